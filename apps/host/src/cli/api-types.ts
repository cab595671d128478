/**
 * The shapes of the host's HTTP API that clients read (see GET /openapi.json
 * for the full contract). Shared by the CLI commands, the stdio MCP server
 * and the in-process MCP access, which builds the same shapes from store rows.
 */
export interface ServiceRecord {
  id: string;
  name: string;
  description: string;
  adapter: string;
  source: string | null;
  version: string | null;
  hash: string;
  enabled: boolean;
  stale: boolean;
  toolCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ServiceDetail extends ServiceRecord {
  staleReason: string | null;
  configSchema: Record<string, unknown>;
  secretsSchema: Record<string, unknown>;
  enableError?: { code: string; error: string };
}

export interface ToolRecord {
  serviceId: string;
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  effectivelyEnabled: boolean;
}

export type ExitState = "success" | "failed" | "timeout" | "canceled";

export interface ProcessRecord {
  id: number;
  ref: string | null;
  state: "queued" | "running" | "idle" | "terminating";
  exitState: ExitState | null;
  error: string | null;
  timeoutMs: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A process with its results; `output`, `stdout` and `stderr` are present once it is idle. */
export interface ProcessReport extends ProcessRecord {
  output?: Record<string, unknown>;
  stdout?: string;
  stderr?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
