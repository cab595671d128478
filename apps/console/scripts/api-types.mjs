// Renders the TypeScript types of the host's HTTP API from the document the host itself publishes at
// GET /openapi.json. The document comes from the built host's route definitions (`createHost` on a throw-away data
// directory, no port, no modules), so no running host is needed. Shared by the generator and the staleness test.
//
// The host is reached by its path rather than as a dependency: the host depends on the console (it serves its
// build), so a dependency back would be a cycle. turbo.json makes the console's tests wait for the host's build.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

export const hostDist = join(import.meta.dirname, "..", "..", "host", "dist", "index.js");
export const typesFile = join(import.meta.dirname, "..", "src", "api", "api-schema.ts");

const HEADER = `/**
 * The host's HTTP API as TypeScript types, generated from its GET /openapi.json (the route definitions in
 * apps/host/src/routes). Do not edit: run \`pnpm --filter @cyrnel/console generate:api\` after changing a route.
 * test/api-types.test.ts fails while this file differs from what the host's routes generate.
 */
`;

/** The host's OpenAPI document, as GET /openapi.json answers it. */
export async function hostOpenApiDocument() {
  const { createHost, loadConfig } = await import(pathToFileURL(hostDist).href).catch((error) => {
    throw new Error(`the host is not built (${hostDist}): run pnpm build first`, { cause: error });
  });
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-console-types-"));
  const host = await createHost(loadConfig({ CYRNEL_DATA_DIR: dataDir, CYRNEL_LOG_LEVEL: "silent" }), {
    builtins: [],
  });
  try {
    const response = await host.app.request("/openapi.json");
    if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The file's whole text for the document. */
export async function renderApiTypes(document) {
  return HEADER + astToString(await openapiTS(document, { alphabetize: false }));
}
