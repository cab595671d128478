/**
 * What the MCP tools need from a host, over its HTTP API: `cyrnel mcp`
 * (stdio) sends the requests to a running host over the network, `/mcp`
 * inside the host hands them to the app itself (no socket, the caller's
 * Authorization header carried along). Both go through the same routes, so
 * validation, auth and the tools' answers cannot differ between the two.
 *
 * Failures are thrown as ApiError carrying the API's stable `code`; the
 * tools turn them into MCP tool errors.
 */
import type { CyrnelApi } from "../cli/api-client.js";
import type { Page } from "../contract/common.js";
import type { ProcessReport } from "../contract/processes.js";
import type { ServiceRecord } from "../contract/services.js";
import type { ToolRecord } from "../contract/tools.js";

export interface ToolFilter {
  /** Case-insensitive substring of the tool's name or description. */
  query?: string;
  serviceId?: string;
  limit: number;
}

/** Which tools `types` covers (all callable ones when both are empty): `GET /environment/types` `serviceId` and `tool`. */
export interface TypesFilter {
  serviceIds?: string[];
  /** `serviceId/toolId` each. */
  tools?: string[];
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
  runCode(
    input: { code: string; timeoutMs?: number; typecheck?: boolean },
    signal: AbortSignal,
  ): Promise<ProcessReport>;
  getProcess(id: number): Promise<ProcessReport>;
}

const segment = encodeURIComponent;

export function hostAccess(api: CyrnelApi): HostAccess {
  return {
    listServices: () => api.listAll<ServiceRecord>("/services"),

    async listTools({ query, serviceId, limit }) {
      const page = await api.json<Page<ToolRecord>>("GET", "/tools", { query: { query, serviceId, limit } });
      // GET /tools filters by serviceId without checking it exists; an unknown id is worth saying so.
      if (page.items.length === 0 && serviceId !== undefined) {
        await api.json("GET", `/services/${segment(serviceId)}`);
      }
      return page.items;
    },

    toolDocs: (serviceId, toolId, expand) =>
      api.text("GET", `/tools/${segment(serviceId)}/${segment(toolId)}/docs`, { query: { expand } }),

    types: ({ serviceIds = [], tools = [] } = {}) => {
      // Repeated parameters: the client's query option holds one value per name.
      const search = new URLSearchParams([
        ...serviceIds.map((id): [string, string] => ["serviceId", id]),
        ...tools.map((tool): [string, string] => ["tool", tool]),
      ]).toString();
      return api.text("GET", `/environment/types${search === "" ? "" : `?${search}`}`);
    },

    runCode: ({ code, timeoutMs, typecheck }, signal) => api.runProcess({ code, timeoutMs, typecheck }, { signal }),

    getProcess: (id) => api.processReport(id),
  };
}
