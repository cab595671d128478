/**
 * What the active environment renders for clients: its runtime reference,
 * one tool's page, and a `.d.ts` of the callable tools. One place for the
 * HTTP routes (`/environment/*`, `/tools/.../docs`) and the MCP tools. Each
 * call into the environment is bounded like every other module hook (a
 * `504 invoke_timeout` naming it), so code that never settles cannot hold
 * requests open forever.
 *
 * Every answer is meant for an LLM, so none is longer than
 * `CYRNEL_AGENT_TEXT_LIMIT_CHARS`: the environment is asked to fit it (an
 * index instead of types that are too long, less detail on a tool page) and
 * told how the reader can ask for less; whatever it returns is cut at the
 * limit as a last resort (a custom environment may ignore the request).
 */
import type { EnvironmentModule, ToolDocsInput } from "@cyrnel/sdk";
import { cutText } from "../cut-text.js";
import { CyrnelError, messageOf, noEnvironment } from "../errors.js";
import { TimeoutError, withTimeout } from "../lib/with-timeout.js";
import { seesService, type Viewer } from "./governance/caller.js";
import type { Policies } from "./governance/policies.js";
import type { ModuleEntries } from "./modules/module-entries.js";
import { serviceNotFound, toolNotFound } from "./services/not-found.js";
import type { ServiceStore, ToolRow } from "./services/service-store.js";
import type { ToolCredentials } from "./services/tool-credentials.js";
import type { SelectedTools, TypesBudget } from "./services/types-budget.js";

/** Which tools `GET /environment/types` covers: all callable ones when both lists are empty. */
export interface TypesFilter {
  /** Every callable tool of these services. */
  serviceIds?: readonly string[];
  /** These tools, as `serviceId/toolId`. */
  tools?: readonly string[];
}

/**
 * How a reader asks for less, in words that fit both ways in (HTTP and
 * MCP), since an answer may travel through either.
 */
export const NARROW_TYPES_HINT =
  "Ask for fewer: by service (HTTP `?serviceId=<id>`, MCP get_types `serviceIds`) or by tool " +
  "(HTTP `?tool=<serviceId>/<toolId>`, MCP get_types `tools`), each repeatable; search_tools or " +
  "`GET /tools?serviceId=<id>` finds tool ids.";
export const EXPAND_HINT =
  "ask for the tool's docs again with `expand` set to the type's name (HTTP `?expand=<Type>`, MCP get_tool_docs `expand`)";

/** Answers of `GET /environment/types` kept (each at most the text limit). */
const TYPES_KEPT = 16;
/** Room left for the marker `cutText` appends (`… [cut: N more characters]`). */
const CUT_MARKER_CHARS = 64;

export class EnvironmentDocs {
  /** Answers of {@link types} by environment, policies and tools at their revisions; most recently used last. */
  private readonly typesMade = new Map<string, string>();
  /** The environment instance `typesMade` was made by (another instance, e.g. after a restart of it, starts afresh). */
  private typesOwner: EnvironmentModule | undefined;

  constructor(
    private readonly modules: Pick<ModuleEntries, "activeEnvironment">,
    private readonly store: ServiceStore,
    private readonly policies: Pick<Policies, "actionFor" | "actionsOf" | "revision">,
    private readonly hookTimeoutMs: number,
    private readonly textLimitChars: number,
    private readonly budget: TypesBudget,
    private readonly credentials: Pick<ToolCredentials, "missing" | "missingOf" | "revision">,
  ) {}

  async runtime(): Promise<string> {
    const { id, module } = this.environment();
    return this.capped(await this.bounded(id, "generateDocs", () => module.generateDocs()));
  }

  /**
   * A missing service or tool is a 404 before a missing environment is a 503.
   * `expand` names a type of the page to show in full; a name the page does
   * not have is a 404 with the environment's message. A service outside the
   * viewer's allow-list is missing.
   */
  async tool(viewer: Viewer, serviceId: string, toolId: string, expand?: string): Promise<string> {
    const row = await requireTool(this.store, viewer, serviceId, toolId);
    const { id, module } = this.environment();
    const options = { maxChars: this.textLimitChars, expandHint: EXPAND_HINT, ...(expand ? { expand } : {}) };
    const input = await this.docsInput(row);
    return this.capped(
      await this.bounded(
        id,
        "generateToolDocs",
        () => module.generateToolDocs(input, options),
        // The SDK's word for "the page has no such type".
        (error) =>
          expand && (error as { code?: unknown } | null)?.code === "not_found"
            ? new CyrnelError("not_found", messageOf(error))
            : undefined,
      ),
    );
  }

  /**
   * The `.d.ts` of the callable tools the viewer sees, or of those the
   * filter names (all checked first: an unknown or hidden one is a 404, a
   * malformed tool entry a 400, one that cannot be called a 409, as a call
   * would be). Tools whose schemas exceed the types budget are refused with
   * `413 types_too_large` before their schemas are read (see
   * services/types-budget.ts).
   */
  async types(viewer: Viewer, filter: TypesFilter = {}): Promise<string> {
    const selection = await this.selectTools(viewer, filter);
    const { id, module } = this.environment();
    const generateTypes = module.generateTypes?.bind(module);
    if (!generateTypes) {
      throw new CyrnelError("not_found", "the active environment does not provide type declarations");
    }
    const options = { maxChars: this.textLimitChars, narrowHint: NARROW_TYPES_HINT };
    const budgeted = selection.map(({ serviceId, revision, rows }) => ({
      serviceId,
      revision,
      toolIds: rows === "all" ? ("all" as const) : rows.map((row) => row.id),
    }));
    // The same tools at the same revisions under the same policies and secrets give the same text: made once (rendering every
    // tool of five large APIs takes seconds), then answered from here until any of them changes.
    const key = JSON.stringify([id, this.policies.revision, this.credentials.revision, budgeted]);
    if (this.typesOwner !== module) {
      this.typesOwner = module;
      this.typesMade.clear();
    }
    const known = this.typesMade.get(key);
    if (known !== undefined) {
      this.typesMade.delete(key);
      this.typesMade.set(key, known);
      return known;
    }
    const text = await this.budget.within(budgeted, NARROW_TYPES_HINT, async () => {
      const fromJson = module.generateTypesFromJson?.bind(module);
      if (fromJson) {
        const toolsJson = await this.toolsJson(budgeted);
        return this.capped(await this.bounded(id, "generateTypesFromJson", () => fromJson(toolsJson, options)));
      }
      // An environment without it is handed the tools parsed (their schemas parsed here, on the event loop).
      const rows: ToolRow[] = [];
      for (const selected of selection) {
        rows.push(...(selected.rows === "all" ? await this.store.effectiveTools(selected.serviceId) : selected.rows));
      }
      const inputs = await Promise.all(rows.map((tool) => this.docsInput(tool)));
      return this.capped(await this.bounded(id, "generateTypes", () => generateTypes(inputs, options)));
    });
    this.typesMade.set(key, text);
    if (this.typesMade.size > TYPES_KEPT) this.typesMade.delete(this.typesMade.keys().next().value as string);
    return text;
  }

  /**
   * The tools an answer covers, per service, without their schemas for whole
   * services (those are read only once they fit the budget): every
   * effectively enabled tool (`"all"`), or the rows of the tools named.
   */
  private async selectTools(
    viewer: Viewer,
    { serviceIds = [], tools = [] }: TypesFilter,
  ): Promise<{ serviceId: string; revision: string; rows: ToolRow[] | "all" }[]> {
    const catalog = await this.store.catalog();
    const revisionOf = (serviceId: string) => catalog[serviceId]?.revision ?? "";
    const whole = new Set<string>();
    if (serviceIds.length === 0 && tools.length === 0) {
      for (const serviceId of Object.keys(catalog)) if (seesService(viewer, serviceId)) whole.add(serviceId);
    }
    for (const serviceId of serviceIds) {
      await requireCallableService(this.store, viewer, serviceId);
      whole.add(serviceId);
    }
    const named = new Map<string, Map<string, ToolRow>>();
    for (const entry of tools) {
      const slash = entry.indexOf("/");
      if (slash <= 0 || slash === entry.length - 1 || entry.indexOf("/", slash + 1) >= 0) {
        throw new CyrnelError("bad_request", `tool filter "${entry}" must be <serviceId>/<toolId>`);
      }
      const row = await requireTool(this.store, viewer, entry.slice(0, slash), entry.slice(slash + 1));
      await requireCallableService(this.store, viewer, row.serviceId);
      if (!row.enabled)
        throw new CyrnelError("tool_disabled", `tool "${row.id}" on service "${row.serviceId}" is disabled`);
      if (whole.has(row.serviceId)) continue;
      const rows = named.get(row.serviceId) ?? new Map<string, ToolRow>();
      rows.set(row.id, row);
      named.set(row.serviceId, rows);
    }
    return [
      ...[...whole].map((serviceId) => ({ serviceId, revision: revisionOf(serviceId), rows: "all" as const })),
      ...[...named].map(([serviceId, rows]) => ({
        serviceId,
        revision: revisionOf(serviceId),
        rows: [...rows.values()],
      })),
    ];
  }

  /**
   * The selected tools as the JSON text of one `ToolDocsInput[]` (what {@link docsInput} makes of each), in parts:
   * their schemas as stored, never parsed here, read a slice at a time with the event loop let through between
   * (every tool of five large APIs is a few hundred megabytes of schemas; parsing them took the host 1 s, and
   * rendering them 2.5 s more). The sizes the budget was checked with also page the read.
   */
  private async toolsJson(selection: readonly SelectedTools[]): Promise<string[]> {
    const entries: string[] = [];
    for (const { serviceId, revision, toolIds } of selection) {
      const [actionOf, missingOf] = await Promise.all([
        this.policies.actionsOf(serviceId),
        this.credentials.missingOf(serviceId),
      ]);
      const { toolsJson } = await this.store.toolsJson(
        serviceId,
        toolIds === "all" ? undefined : toolIds,
        { revision, sizes: await this.budget.sizesOf(serviceId, revision) },
        (tool) => ({ annotations: tool.annotations, policy: actionOf(tool), missingSecrets: missingOf(tool) }),
      );
      // Each service's parts are one array ("[…", …, "]"; "[]" when empty): their entries go into one array of all.
      if (toolsJson.length < 2) continue;
      const inner = toolsJson.slice(0, -1);
      inner[0] = (entries.length === 0 ? "" : ",") + (inner[0] as string).slice(1);
      entries.push(...inner);
    }
    return ["[", ...entries, "]"];
  }

  /**
   * What an environment documents about a tool: its schemas, annotations, the policy a call meets, and the secrets
   * it needs when none is set.
   */
  private async docsInput(tool: ToolRow): Promise<ToolDocsInput> {
    const missingSecrets = await this.credentials.missing(tool);
    return {
      serviceId: tool.serviceId,
      toolId: tool.id,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      policy: await this.policies.actionFor(tool),
      ...(missingSecrets !== undefined && { missingSecrets }),
    };
  }

  private environment(): { id: string; module: EnvironmentModule } {
    const active = this.modules.activeEnvironment();
    if (!active) throw noEnvironment();
    return active;
  }

  /**
   * Calls a documentation hook of the environment under the hook timeout. Whatever it throws becomes an error
   * naming the module and the hook (`504` for the timeout, else `502`), unless `known` recognises it.
   */
  private async bounded(
    id: string,
    hook: string,
    call: () => Promise<string>,
    known: (error: unknown) => CyrnelError | undefined = () => undefined,
  ): Promise<string> {
    try {
      return await withTimeout(`${hook} of module "${id}"`, this.hookTimeoutMs, call);
    } catch (error) {
      if (error instanceof TimeoutError) throw new CyrnelError("invoke_timeout", error.message);
      throw known(error) ?? new CyrnelError("adapter_error", `${hook} of module "${id}" failed: ${messageOf(error)}`);
    }
  }

  /** The last resort: an environment that ignored the limit is cut at it. */
  private capped(text: string): string {
    if (text.length <= this.textLimitChars) return text;
    return cutText(text, this.textLimitChars - CUT_MARKER_CHARS);
  }
}

/** The tool, or a 404 naming what is missing: the service (also when the viewer may not see it), or the tool on it. */
export async function requireTool(
  store: ServiceStore,
  viewer: Viewer,
  serviceId: string,
  toolId: string,
): Promise<ToolRow> {
  const row = seesService(viewer, serviceId) ? await store.getTool(serviceId, toolId) : undefined;
  if (!row) throw await toolNotFound(store, serviceId, toolId, viewer);
  return row;
}

/** The service, or 404 when it does not exist and 409 when it is disabled or stale (no tool of it can be called). */
async function requireCallableService(store: ServiceStore, viewer: Viewer, serviceId: string): Promise<void> {
  const service = seesService(viewer, serviceId) ? await store.get(serviceId) : undefined;
  if (!service) throw await serviceNotFound(store, serviceId, viewer);
  if (service.stale) {
    throw new CyrnelError(
      "service_disabled",
      `service "${serviceId}" is stale (${service.staleReason}); update it first`,
    );
  }
  if (!service.enabled) throw new CyrnelError("service_disabled", `service "${serviceId}" is disabled`);
}
