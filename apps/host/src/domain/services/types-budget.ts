/**
 * What the types of tools may cost. Types — `GET /environment/types`, MCP
 * `get_types`, and the declarations the environment checks code against
 * (`EnvironmentBindings.serviceTools`) — are made from the tools' JSON
 * Schemas, and a large API's schemas run to gigabytes: Microsoft Graph
 * beta's 22,361 tools took the host out of memory when its types were asked
 * for, and their JSON is longer than V8's longest string, so code calling it
 * ran unchecked. So the schemas' size is measured by the database first
 * (`ServiceStore.toolSchemaChars`, kept per service revision) and nothing is
 * read into the host past the budget:
 *
 * - one answer (or one service's declarations for the environment) is made
 *   from at most `chars` characters of schema JSON (`CYRNEL_TYPES_BUDGET_CHARS`,
 *   default 256 MiB: Stripe's whole 177 MB fits);
 * - one tool from at most `toolChars`, an eighth of it;
 * - past either, the request is refused with `413 types_too_large`, naming
 *   the budget, the size and how to ask for less; the environment then asks
 *   for the tools a program names (see packages/typescript-ivm);
 * - answers being made at once hold at most `chars` between them
 *   ({@link SharedBudget}): the next waits, so concurrent requests cannot
 *   add up to an out-of-memory either.
 */

import { CyrnelError } from "../../errors.js";
import { SharedBudget } from "../../lib/shared-budget.js";
import type { ServiceStore, ToolRowText } from "./service-store.js";

/** One tool may take at most this fraction of the budget. */
const TOOL_SHARE = 8;
/** Services whose sizes are kept (by revision); the least recently used go first. */
const MAX_KEPT_SERVICES = 256;

const BUDGET_NAME = "CYRNEL_TYPES_BUDGET_CHARS";

export interface TypesBudgetLimits {
  /** Schema characters per answer (per service and in total). */
  chars: number;
  /** Schema characters per tool. */
  toolChars: number;
}

export function typesBudgetLimits(chars: number): TypesBudgetLimits {
  return { chars, toolChars: Math.max(1, Math.floor(chars / TOOL_SHARE)) };
}

/** Tools of one service selected for an answer, with the revision of the service they were selected at. */
export interface SelectedTools {
  serviceId: string;
  revision: string;
  /** Every effectively enabled tool of the service, or these. */
  toolIds: readonly string[] | "all";
}

export class TypesBudget {
  readonly limits: TypesBudgetLimits;
  private readonly sizes = new Map<string, { revision: string; sizes: Promise<Map<string, number>> }>();
  private readonly inMemory: SharedBudget;

  constructor(
    private readonly store: { toolSchemaChars(serviceId: string): Promise<{ id: string; chars: number }[]> },
    chars: number,
  ) {
    this.limits = typesBudgetLimits(chars);
    this.inMemory = new SharedBudget(chars);
  }

  /**
   * Checks the selection against the budget — each tool, each service, the
   * total — and runs `make` with its size held in the shared budget.
   * Throws `types_too_large` (naming the budget and `hint`) before anything
   * is read when it does not fit.
   */
  async within<T>(selection: readonly SelectedTools[], hint: string, make: () => Promise<T>): Promise<T> {
    let total = 0;
    let tools = 0;
    for (const selected of selection) {
      const sizes = await this.sizesOf(selected.serviceId, selected.revision);
      const ids = selected.toolIds === "all" ? [...sizes.keys()] : selected.toolIds;
      let chars = 0;
      for (const id of ids) {
        const size = sizes.get(id) ?? 0;
        if (size > this.limits.toolChars) {
          throw new CyrnelError(
            "types_too_large",
            `the types of tool "${selected.serviceId}/${id}" would be made from ${number(size)} characters of JSON ` +
              `Schema, more than the ${number(this.limits.toolChars)} one tool may have (an eighth of ${BUDGET_NAME}, ` +
              `${number(this.limits.chars)}); its calls cannot be type-checked. Read its page instead ` +
              `(GET /services/${selected.serviceId}/tools/${id}/docs, MCP get_tool_docs).`,
          );
        }
        chars += size;
      }
      if (chars > this.limits.chars) {
        throw new CyrnelError(
          "types_too_large",
          `the types of ${count(ids.length, "tool")} of service "${selected.serviceId}" would be made from ` +
            `${number(chars)} characters of JSON Schema, more than the ${number(this.limits.chars)} one answer may ` +
            `be made from (${BUDGET_NAME}). ${hint}`,
        );
      }
      total += chars;
      tools += ids.length;
    }
    if (total > this.limits.chars) {
      throw new CyrnelError(
        "types_too_large",
        `the types of these ${count(tools, "tool")} of ${count(selection.length, "service")} would be made from ` +
          `${number(total)} characters of JSON Schema, more than the ${number(this.limits.chars)} one answer may be ` +
          `made from (${BUDGET_NAME}). ${hint}`,
      );
    }
    const release = await this.inMemory.acquire(total);
    try {
      return await make();
    } finally {
      release();
    }
  }

  /** What {@link typesNote} says of the service at this revision (its sizes kept as for answers), or undefined. */
  async noteOf(serviceId: string, revision: string): Promise<string | undefined> {
    const sizes = await this.sizesOf(serviceId, revision);
    return typesNoteOfSizes(
      [...sizes].map(([id, chars]) => ({ id, chars })),
      this.limits,
    );
  }

  /**
   * Each effectively enabled tool's schema size (in position order), measured by the database once per revision of
   * the service.
   */
  sizesOf(serviceId: string, revision: string): Promise<ReadonlyMap<string, number>> {
    const known = this.sizes.get(serviceId);
    if (known?.revision === revision) {
      this.sizes.delete(serviceId);
      this.sizes.set(serviceId, known);
      return known.sizes;
    }
    const sizes = this.store.toolSchemaChars(serviceId).then((rows) => new Map(rows.map((row) => [row.id, row.chars])));
    this.sizes.set(serviceId, { revision, sizes });
    // A failed read is not kept.
    sizes.catch(() => {
      if (this.sizes.get(serviceId)?.sizes === sizes) this.sizes.delete(serviceId);
    });
    if (this.sizes.size > MAX_KEPT_SERVICES) this.sizes.delete(this.sizes.keys().next().value as string);
    return sizes;
  }
}

/**
 * What an install or update says about a definition whose types do not fit
 * the budget (undefined when they do): whole-service types are refused, and
 * code is checked against the tools it names.
 */
export function typesNote(tools: readonly ToolRowText[], limits: TypesBudgetLimits): string | undefined {
  return typesNoteOfSizes(
    tools.map((tool) => ({ id: tool.id, chars: tool.inputSchema.length + tool.outputSchema.length })),
    limits,
  );
}

/** {@link typesNote} from each tool's schema size. */
function typesNoteOfSizes(
  tools: readonly { id: string; chars: number }[],
  limits: TypesBudgetLimits,
): string | undefined {
  let total = 0;
  const oversized: string[] = [];
  for (const tool of tools) {
    total += tool.chars;
    if (tool.chars > limits.toolChars) oversized.push(tool.id);
  }
  const notes: string[] = [];
  if (total > limits.chars) {
    notes.push(
      `The types of this service's ${count(tools.length, "tool")} would be made from ${number(total)} characters of ` +
        `JSON Schema, more than the ${number(limits.chars)} one answer may be made from (${BUDGET_NAME}): ` +
        "GET /environment/types (and MCP get_types) answer 413 types_too_large for the whole service, so ask for " +
        "its tools by name (?tool=<serviceId>/<toolId>); code is type-checked against the tools it names.",
    );
  }
  if (oversized.length > 0) {
    const listed =
      oversized.slice(0, 10).join(", ") + (oversized.length > 10 ? `, … (${oversized.length - 10} more)` : "");
    notes.push(
      `${count(oversized.length, "tool")} alone would take more than ${number(limits.toolChars)} characters of ` +
        `JSON Schema (an eighth of ${BUDGET_NAME}), so they have no types and code calling them is not ` +
        `type-checked: ${listed}.`,
    );
  }
  return notes.length === 0 ? undefined : notes.join(" ");
}

function count(n: number, noun: string): string {
  return `${number(n)} ${noun}${n === 1 ? "" : "s"}`;
}

function number(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * The environment's `serviceTools` binding: the effectively enabled tools of
 * a service, or those of `toolIds`, as JSON text — within the budget, or a
 * `types_too_large` rejection naming it (the environment then asks for the
 * tools a program names).
 */
export async function budgetedServiceTools(
  store: Pick<ServiceStore, "catalog" | "toolsJson">,
  budget: TypesBudget,
  serviceId: string,
  toolIds?: readonly string[],
): Promise<{ revision: string; toolsJson: string[] }> {
  const entry = (await store.catalog())[serviceId];
  // Not callable: the store answers no tools.
  if (entry === undefined) return store.toolsJson(serviceId, []);
  const callable = new Set(entry.tools);
  const selected = toolIds === undefined ? ("all" as const) : toolIds.filter((id) => callable.has(id));
  return budget.within(
    [{ serviceId, revision: entry.revision, toolIds: selected }],
    "Code is type-checked against the tools it names instead.",
    // The sizes the budget was checked with also page the read (see ServiceStore.toolsJson).
    async () =>
      store.toolsJson(serviceId, selected === "all" ? undefined : selected, {
        revision: entry.revision,
        sizes: await budget.sizesOf(serviceId, entry.revision),
      }),
  );
}
