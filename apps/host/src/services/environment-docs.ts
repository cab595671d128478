/**
 * What the active environment renders for clients: its runtime reference,
 * one tool's page, and a `.d.ts` of every callable tool. One place for the
 * HTTP routes (`/environment/*`, `/tools/.../docs`) and the MCP tools.
 */
import type { EnvironmentModule, ToolDocsInput } from "@cyrnel/sdk";
import { CyrnelError, noEnvironment, notFound } from "../errors.js";
import type { ModuleRegistry } from "./modules/module-registry.js";
import type { ServiceStore, ToolRow } from "./services-and-tools/service-store.js";

export class EnvironmentDocs {
  constructor(
    private readonly modules: ModuleRegistry,
    private readonly store: ServiceStore,
  ) {}

  runtime(): Promise<string> {
    return this.environment().generateDocs();
  }

  /** A missing service or tool is a 404 before a missing environment is a 503. */
  tool(serviceId: string, toolId: string): Promise<string> {
    const row = requireTool(this.store, serviceId, toolId);
    return this.environment().generateToolDocs(docsInput(row));
  }

  types(): Promise<string> {
    const environment = this.environment();
    if (!environment.generateTypes) {
      throw new CyrnelError("not_found", "the active environment does not provide type declarations");
    }
    return environment.generateTypes(this.store.effectiveTools().map(docsInput));
  }

  private environment(): EnvironmentModule {
    const active = this.modules.activeEnvironment();
    if (!active) throw noEnvironment();
    return active.module;
  }
}

/** The tool, or a 404 naming what is missing: the service, or the tool on it. */
export function requireTool(store: ServiceStore, serviceId: string, toolId: string): ToolRow {
  const row = store.getTool(serviceId, toolId);
  if (!row)
    throw notFound(store.get(serviceId) ? `tool "${toolId}" on service "${serviceId}"` : `service "${serviceId}"`);
  return row;
}

const docsInput = (tool: ToolRow): ToolDocsInput => ({
  serviceId: tool.serviceId,
  toolId: tool.id,
  description: tool.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
});
