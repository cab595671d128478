import { createRequire } from "node:module";
import type { AdapterModule, ModuleManifest } from "@cyrnel/sdk";
import { OpenApiAdapter } from "./adapter.js";
import { MODULE_CONFIG_SCHEMA } from "./module-config.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The built-in `openapi` adapter module. */
export const manifest: ModuleManifest = {
  id: "openapi",
  name: "OpenAPI",
  description:
    "Turns OpenAPI 3.0/3.1 and Swagger 2.0 documents (JSON or YAML) into tools, one per operation, and calls them over HTTP.",
  type: "adapter",
  version,
  configSchema: MODULE_CONFIG_SCHEMA,
};

export function instantiate(): AdapterModule {
  return new OpenApiAdapter();
}
