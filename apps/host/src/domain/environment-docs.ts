/**
 * What the active environment renders for clients: its runtime reference,
 * one tool's page, and a `.d.ts` of every callable tool. One place for the
 * HTTP routes (`/environment/*`, `/tools/.../docs`) and the MCP tools. Each
 * call into the environment is bounded like every other module hook (a
 * `504 invoke_timeout` naming it), so code that never settles cannot hold
 * requests open forever.
 */
import type { EnvironmentModule, ToolDocsInput } from "@cyrnel/sdk";
import { CyrnelError, noEnvironment, notFound } from "../errors.js";
import { TimeoutError, withTimeout } from "../lib/with-timeout.js";
import type { ModuleEntries } from "./modules/module-entries.js";
import type { ServiceStore, ToolRow } from "./services/service-store.js";

export class EnvironmentDocs {
  constructor(
    private readonly modules: Pick<ModuleEntries, "activeEnvironment">,
    private readonly store: ServiceStore,
    private readonly hookTimeoutMs: number,
  ) {}

  runtime(): Promise<string> {
    const { id, module } = this.environment();
    return this.bounded(id, "generateDocs", () => module.generateDocs());
  }

  /** A missing service or tool is a 404 before a missing environment is a 503. */
  tool(serviceId: string, toolId: string): Promise<string> {
    const row = requireTool(this.store, serviceId, toolId);
    const { id, module } = this.environment();
    return this.bounded(id, "generateToolDocs", () => module.generateToolDocs(docsInput(row)));
  }

  types(): Promise<string> {
    const { id, module } = this.environment();
    const generateTypes = module.generateTypes?.bind(module);
    if (!generateTypes) {
      throw new CyrnelError("not_found", "the active environment does not provide type declarations");
    }
    return this.bounded(id, "generateTypes", () => generateTypes(this.store.effectiveTools().map(docsInput)));
  }

  private environment(): { id: string; module: EnvironmentModule } {
    const active = this.modules.activeEnvironment();
    if (!active) throw noEnvironment();
    return active;
  }

  private async bounded(id: string, hook: string, call: () => Promise<string>): Promise<string> {
    try {
      return await withTimeout(`${hook} of module "${id}"`, this.hookTimeoutMs, call);
    } catch (error) {
      if (error instanceof TimeoutError) throw new CyrnelError("invoke_timeout", error.message);
      throw error;
    }
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
