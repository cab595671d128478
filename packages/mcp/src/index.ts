import { createRequire } from "node:module";
import type { AdapterModule, ModuleManifest } from "@cyrnel/sdk";
import { McpAdapter } from "./adapter.js";
import { MODULE_CONFIG_SCHEMA } from "./module-config.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The built-in `mcp` adapter module. */
export const manifest: ModuleManifest = {
  id: "mcp",
  name: "MCP",
  description:
    "Turns the tools of a Model Context Protocol server (started as a child process over stdio, or reached over Streamable HTTP / HTTP+SSE) into tools, and calls them over one session per service.",
  type: "adapter",
  version,
  configSchema: MODULE_CONFIG_SCHEMA,
};

export function instantiate(): AdapterModule {
  return new McpAdapter();
}
