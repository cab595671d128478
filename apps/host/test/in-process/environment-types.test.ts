import * as openapi from "@cyrnel/openapi";
import * as typescriptIvm from "@cyrnel/typescript-ivm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turnsDuring } from "../support/event-loop.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * `GET /environment/types` of a large API. The host used to parse every schema of the tools asked for and the
 * environment to render them, both on the host's event loop: with five large APIs installed that held every other
 * request, `/health` included, for 3–5 s. Now the host reads the schemas as text, a slice at a time, and hands them
 * to the environment's `generateTypesFromJson`, which renders them in a thread of its own.
 */
const TOOLS = 24;
/** Characters of description in each tool's input schema: ~7 MB of schemas in all. */
const DESCRIPTION_CHARS = 300_000;

function largeDocument(): string {
  const paths: Record<string, unknown> = {};
  for (let index = 0; index < TOOLS; index++) {
    paths[`/records/${index}`] = {
      post: {
        operationId: `op${index}`,
        summary: `Operation ${index}`,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["id"],
                properties: {
                  id: { type: "string", description: `Record ${index}. ${"x".repeat(DESCRIPTION_CHARS)}` },
                },
              },
            },
          },
        },
        responses: { 200: { description: "Done" } },
      },
    };
  }
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Large", version: "1" },
    servers: [{ url: "http://127.0.0.1:9" }],
    paths,
  });
}

let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcess({ builtins: [openapi, typescriptIvm] });
  const environment = await host.api("POST", "/modules/typescript-ivm/enabled", { enabled: true });
  expect(environment.status, environment.text).toBe(200);
  const installed = await host.api("POST", "/services", {
    id: "large",
    adapter: "openapi",
    definition: largeDocument(),
    enabled: true,
  });
  expect(installed.status, installed.text).toBe(201);
  // A denied tool: what the host says of each tool besides its schemas reaches the environment too.
  const policy = await host.api("PUT", "/services/large/policy", {
    default: "allow",
    rules: [{ tools: "op3", action: "deny" }],
  });
  expect(policy.status, policy.text).toBe(200);
});
afterAll(() => host?.stop());

describe("GET /environment/types of a large API", () => {
  it("lets the event loop run while the schemas are read and rendered, and answers their declarations", async () => {
    const { result, turns } = await turnsDuring(() => host.api("GET", "/environment/types?serviceId=large"));
    expect(result.status, result.text).toBe(200);
    // Read in slices of about half a megabyte with a turn between each, then rendered in a thread: dozens of turns.
    // Parsed and rendered on the event loop, the ~7 MB let through a handful.
    expect(turns).toBeGreaterThanOrEqual(20);
    // Longer than one answer may be: the index of the tools, each with its signature.
    const text = result.text;
    expect(text).toMatch(/^\/\/ An index, not the declarations: the types of these 24 tools are /);
    expect(text).toContain("//   op23(params: { body: { id: string; }; }) → unknown");
    expect(text).toContain("//   op3: denied by the service's policy (every call fails with 403 tool_denied)");
  });

  it("answers the same text again, from what it made", async () => {
    const first = await host.api("GET", "/environment/types?serviceId=large");
    const again = await turnsDuring(() => host.api("GET", "/environment/types?serviceId=large"));
    expect(again.result.text).toBe(first.text);
  });
});
