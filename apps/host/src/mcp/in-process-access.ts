/**
 * HostAccess by direct calls into the domain services of the running host
 * (no HTTP round trip to itself). Each method does what the matching route
 * handler does and builds the same shapes.
 */
import type { ProcessReport, ServiceRecord } from "../cli/api-types.js";
import { CyrnelError, notFound } from "../errors.js";
import type { ModuleRegistry } from "../services/modules/module-registry.js";
import { processRecord, processResult } from "../services/processes/process-record.js";
import type { ProcessRunner } from "../services/processes/process-runner.js";
import type { ProcessRow } from "../services/processes/process-store.js";
import { serviceRecord, toolRecord } from "../services/services-and-tools/records.js";
import type { ServiceStore } from "../services/services-and-tools/service-store.js";
import type { HostAccess } from "./host-access.js";

export interface InProcessDeps {
  store: ServiceStore;
  modules: ModuleRegistry;
  processes: ProcessRunner;
}

const PAGE = 1000;

export function inProcessAccess({ store, modules, processes }: InProcessDeps): HostAccess {
  const environment = () => {
    const active = modules.activeEnvironment();
    if (!active) throw new CyrnelError("no_environment", "no environment module is active; enable one under /modules");
    return active.module;
  };

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

    async toolDocs(serviceId, toolId) {
      const row = store.getTool(serviceId, toolId);
      if (!row)
        throw notFound(store.get(serviceId) ? `tool "${toolId}" on service "${serviceId}"` : `service "${serviceId}"`);
      return environment().generateToolDocs({
        serviceId: row.serviceId,
        toolId: row.id,
        description: row.description,
        inputSchema: row.inputSchema,
        outputSchema: row.outputSchema,
      });
    },

    async types() {
      const active = environment();
      if (!active.generateTypes) {
        throw new CyrnelError("not_found", "the active environment does not provide type declarations");
      }
      return active.generateTypes(
        store.effectiveTools().map((tool) => ({
          serviceId: tool.serviceId,
          toolId: tool.id,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
        })),
      );
    },

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
