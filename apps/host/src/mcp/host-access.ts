/**
 * What the MCP tools need from a host. Two implementations: in-process
 * domain calls for `/mcp` inside the server (in-process-access.ts) and HTTP
 * calls to a running host for `cyrnel mcp` over stdio (http-access.ts), so
 * the tool definitions exist once (tools.ts).
 *
 * Failures are thrown as errors carrying the API's stable `code`
 * (CyrnelError in process, ApiError over HTTP); the tools turn them into
 * MCP tool errors.
 */
import type { ProcessReport, ServiceRecord, ToolRecord } from "../cli/api-types.js";
import type { TypesFilter } from "../domain/environment-docs.js";

export interface ToolFilter {
  /** Case-insensitive substring of the tool's name or description. */
  query?: string;
  serviceId?: string;
  limit: number;
}

export interface HostAccess {
  listServices(): Promise<ServiceRecord[]>;
  /** Throws `not_found` when `serviceId` names no service. */
  listTools(filter: ToolFilter): Promise<ToolRecord[]>;
  /** Markdown from the active environment; `expand` shows one type of the page in full. */
  toolDocs(serviceId: string, toolId: string, expand?: string): Promise<string>;
  /** The `.d.ts` of `GET /environment/types` (or its index), for all callable tools or those filtered. */
  types(filter?: TypesFilter): Promise<string>;
  /** Creates a process and waits until it is idle (or `signal` aborts, which stops the wait, not the process). */
  runCode(input: { code: string; timeoutMs?: number }, signal: AbortSignal): Promise<ProcessReport>;
  getProcess(id: number): Promise<ProcessReport>;
}
