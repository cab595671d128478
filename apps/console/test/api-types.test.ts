/**
 * The console's API types must be what the host's route definitions generate today: a route added, removed or
 * changed in apps/host without `pnpm --filter @cyrnel/console generate:api` fails here (and the console then fails
 * to compile against the new types, which is the point).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script shared with the generator, without type declarations.
import { hostOpenApiDocument, renderApiTypes, typesFile } from "../scripts/api-types.mjs";

describe("generated API types", () => {
  it("match the host's /openapi.json", async () => {
    const document = await hostOpenApiDocument();
    expect(Object.keys(document.paths)).toContain("/processes/{id}/events");
    const expected: string = await renderApiTypes(document);
    const committed = readFileSync(typesFile, "utf8");
    if (committed !== expected) {
      throw new Error(
        "src/api/api-schema.ts is stale: the host's routes changed. Run pnpm --filter @cyrnel/console generate:api " +
          "and commit the result.",
      );
    }
    expect(committed).toContain("followProcess");
  });
});
