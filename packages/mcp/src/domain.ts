import { isRecord } from "./records.js";
import { type McpTarget, parseTarget } from "./target.js";

/**
 * What `generateDefinition` stores in `adapterDomain` (persisted by the host
 * in plaintext: never a secret) and the adapter reads back when a service is
 * hydrated. `format` changes with the shape; an older one asks for the
 * service to be updated.
 */
export const DOMAIN_FORMAT = 1;

export interface ServiceDomain {
  format: typeof DOMAIN_FORMAT;
  target: McpTarget;
  /** The server's `serverInfo` at install time. */
  server: { name: string; title?: string; version: string };
  /** The server's `instructions`, when it gave any. */
  instructions?: string;
  /** Which HTTP transport answered at install ("streamable" or the legacy "sse"); tried first later. */
  http?: HttpFlavour;
  /** SHA-256 of the listed tools (`tools.ts`): a session compares the server's current list against it. */
  toolsDigest: string;
}

export type HttpFlavour = "streamable" | "sse";

export interface ToolDomain {
  format: typeof DOMAIN_FORMAT;
  /** The MCP tool name sent in `tools/call`. */
  name: string;
  /** The tool declared an output schema: the call returns its `structuredContent`. */
  structured: boolean;
}

const stale = (what: string) =>
  new Error(`${what} was made by another version of the mcp adapter: update the service to regenerate it`);

export function readServiceDomain(value: Record<string, unknown>): ServiceDomain {
  if (value.format !== DOMAIN_FORMAT || !isRecord(value.target) || !isRecord(value.server)) {
    throw stale("the service's stored definition");
  }
  // Re-validated: the stored target went through the same parser at install.
  const target = parseTarget(JSON.stringify(value.target));
  return { ...(value as unknown as ServiceDomain), target };
}

export function readToolDomain(id: string, value: Record<string, unknown>): ToolDomain {
  if (value.format !== DOMAIN_FORMAT || typeof value.name !== "string" || typeof value.structured !== "boolean") {
    throw stale(`tool "${id}"`);
  }
  return value as unknown as ToolDomain;
}
