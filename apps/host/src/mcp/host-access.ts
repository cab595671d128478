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
import type { CyrnelApi } from "../client/api-client.js";
import type { Page } from "../contract/common.js";
import type { ApprovalListItem, ApprovalSummary } from "../contract/governance.js";
import type {
  BoundedResult,
  ExitState,
  ProcessRecord,
  ProcessState,
  ProcessText,
  TextPage,
} from "../contract/processes.js";
import type { ServiceRecord } from "../contract/services.js";
import type { ToolRecord } from "../contract/tools.js";

export interface ToolFilter {
  /** Words of the task: results ranked by `GET /tools?search=` (BM25); without them, every tool in list order. */
  search?: string;
  serviceId?: string;
  /** With `search`: also tools that cannot be called now. */
  includeDisabled?: boolean;
  limit: number;
}

/** Which tools `types` covers (all callable ones when both are empty): `GET /environment/types` `serviceId` and `tool`. */
export interface TypesFilter {
  serviceIds?: string[];
  /** `serviceId/toolId` each. */
  tools?: string[];
}

export interface ProcessFilter {
  state?: ProcessState;
  exitState?: ExitState;
  limit: number;
  cursor?: string;
}

export interface HostAccess {
  listServices(): Promise<ServiceRecord[]>;
  /** Throws `not_found` when `serviceId` names no service. */
  listTools(filter: ToolFilter): Promise<ToolRecord[]>;
  /** Markdown from the active environment; `expand` shows one type of the page in full. */
  toolDocs(serviceId: string, toolId: string, expand?: string): Promise<string>;
  /** The `.d.ts` of `GET /environment/types` (or its index), for all callable tools or those filtered. */
  types(filter?: TypesFilter): Promise<string>;
  /** Creates a process and answers it at once (queued or running). */
  startProcess(input: { code: string; timeoutMs?: number; typecheck?: boolean }): Promise<ProcessRecord>;
  /**
   * Waits until the process is idle or `signal` aborts (which stops the wait, not the process); answers its
   * state then. stdout is handed to `onStdout` as it is written, approvals it waits for to `onApproval`.
   */
  waitForProcess(
    id: number,
    signal: AbortSignal,
    onStdout: (text: string) => void,
    onApproval?: (approval: ApprovalSummary) => void,
  ): Promise<ProcessRecord>;
  /** Kills the process's run (nothing when it is already idle). */
  killProcess(id: number): Promise<void>;
  /** The process, with its results sized for an LLM once it is idle. */
  getProcess(id: number): Promise<ProcessRecord | BoundedResult>;
  /** A page of one of an idle process's texts; `limit` defaults to (and is capped at) the host's text limit. */
  processText(id: number, stream: ProcessText, offset: number, limit?: number): Promise<TextPage>;
  listProcesses(filter: ProcessFilter): Promise<Page<ProcessRecord>>;
  /** The approvals the process's calls wait for now (the caller's own process), each with its expiry. */
  pendingApprovals(processId: number): Promise<ApprovalListItem[]>;
}

const segment = encodeURIComponent;

export function hostAccess(api: CyrnelApi): HostAccess {
  return {
    listServices: () => api.listAll<ServiceRecord>("/services"),

    async listTools({ search, serviceId, includeDisabled, limit }) {
      const page = await api.json<Page<ToolRecord>>("GET", "/tools", {
        query: { search, serviceId, includeDisabled, limit },
      });
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

    startProcess: ({ code, timeoutMs, typecheck }) =>
      api.json<ProcessRecord>("POST", "/processes", { body: { code, timeoutMs, typecheck } }),

    waitForProcess: (id, signal, onStdout, onApproval) =>
      api.waitForProcess(id, {
        signal,
        onText: (stream, text) => stream === "stdout" && onStdout(text),
        onApproval,
      }),

    async killProcess(id) {
      try {
        await api.json("POST", `/processes/${id}/signals/kill`);
      } catch (error) {
        // Already idle: its run ended by itself meanwhile.
        if ((error as { code?: unknown }).code !== "conflict") throw error;
      }
    },

    async getProcess(id) {
      const record = await api.json<ProcessRecord>("GET", `/processes/${id}`);
      return record.state === "idle" ? api.json<BoundedResult>("GET", `/processes/${id}/results`) : record;
    },

    processText: (id, stream, offset, limit) =>
      api.json<TextPage>("GET", `/processes/${id}/text`, { query: { stream, offset, limit } }),

    listProcesses: (filter) => api.json<Page<ProcessRecord>>("GET", "/processes", { query: { ...filter } }),

    pendingApprovals: async (processId) =>
      (
        await api.json<Page<ApprovalListItem>>("GET", "/approvals", {
          query: { processId, state: "pending", limit: 100 },
        })
      ).items,
  };
}
