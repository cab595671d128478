/** HostAccess over the HTTP API of a running host (for `cyrnel mcp` on stdio). */
import type { CyrnelApi } from "../cli/api-client.js";
import type { Page, ServiceDetail, ServiceRecord, ToolRecord } from "../cli/api-types.js";
import type { HostAccess } from "./host-access.js";

const segment = encodeURIComponent;

export function httpAccess(api: CyrnelApi): HostAccess {
  return {
    listServices: () => api.listAll<ServiceRecord>("/services"),

    async listTools({ query, serviceId, limit }) {
      const page = await api.json<Page<ToolRecord>>("GET", "/tools", { query: { query, serviceId, limit } });
      // GET /tools filters by serviceId without checking it exists; an unknown id is worth saying so.
      if (page.items.length === 0 && serviceId !== undefined) {
        await api.json<ServiceDetail>("GET", `/services/${segment(serviceId)}`);
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

    runCode: ({ code, timeoutMs }, signal) => api.runProcess({ code, timeoutMs }, { signal }),

    getProcess: (id) => api.processReport(id),
  };
}
