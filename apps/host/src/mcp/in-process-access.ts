/**
 * HostAccess by direct calls into the domain services of the running host
 * (no HTTP round trip to itself). Each method does what the matching route
 * handler does and builds the same shapes.
 */
import type { ProcessReport, ServiceRecord } from "../cli/api-types.js";
import type { EnvironmentDocs } from "../domain/environment-docs.js";
import { processRecord, processResult } from "../domain/processes/process-record.js";
import type { ProcessRunner } from "../domain/processes/process-runner.js";
import type { ProcessRow } from "../domain/processes/process-store.js";
import { serviceRecord, toolRecord } from "../domain/services/records.js";
import type { ServiceStore } from "../domain/services/service-store.js";
import { notFound } from "../errors.js";
import type { HostAccess } from "./host-access.js";

export interface InProcessDeps {
  store: ServiceStore;
  docs: EnvironmentDocs;
  processes: ProcessRunner;
}

const PAGE = 1000;

export function inProcessAccess({ store, docs, processes }: InProcessDeps): HostAccess {
  return {
    async listServices() {
      const services: ServiceRecord[] = [];
      let after: string | undefined;
      for (;;) {
        const rows = store.list({ limit: PAGE, after });
        services.push(...rows.slice(0, PAGE).map(serviceRecord));
        if (rows.length <= PAGE) return services;
        after = rows[PAGE - 1]!.id;
      }
    },

    async listTools({ query, serviceId, limit }) {
      if (serviceId !== undefined && !store.get(serviceId)) throw notFound(`service "${serviceId}"`);
      return store.listTools({ query, serviceId, limit }).slice(0, limit).map(toolRecord);
    },

    toolDocs: (serviceId, toolId, expand) => docs.tool(serviceId, toolId, expand),

    types: (filter) => docs.types(filter),

    async runCode({ code, timeoutMs }, signal) {
      const created = processes.create({ code, timeoutMs });
      return report(await processes.waitIdle(created.id, signal));
    },

    async getProcess(id) {
      return report(processes.get(id));
    },
  };
}

function report(row: ProcessRow): ProcessReport {
  return row.state === "idle" ? processResult(row) : processRecord(row);
}
