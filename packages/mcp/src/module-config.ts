import type { JSONSchema } from "@cyrnel/sdk";

/**
 * The module's own config (`PATCH /modules/mcp/config`): how long opening a
 * session may take — starting a stdio server (an `npx` that downloads its
 * package first can take a while) or reaching an HTTP one, plus
 * `initialize`, and each `tools/list` page at install. Keep it below the
 * host's hook timeout (CYRNEL_INVOKE_TIMEOUT_MS) so this error, which says
 * what the server did, comes first.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export const MODULE_CONFIG_SCHEMA: JSONSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    connectTimeoutMs: {
      type: "integer",
      minimum: 100,
      maximum: 600_000,
      default: DEFAULT_CONNECT_TIMEOUT_MS,
      description: "Deadline for starting or reaching an MCP server and initializing a session, in ms.",
    },
  },
};

export function connectTimeoutOf(config: Record<string, unknown>): number {
  const value = config.connectTimeoutMs;
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : DEFAULT_CONNECT_TIMEOUT_MS;
}
