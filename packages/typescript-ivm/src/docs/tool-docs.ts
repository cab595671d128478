import type { ToolDocsInput, ToolDocsOptions } from "@cyrnel/sdk";
import { constraintNotes } from "../schema/constraints.js";
import { exampleValue, toSourceLiteral } from "../schema/example.js";
import { htmlToMarkdown } from "../schema/html-markdown.js";
import { NamedTypes } from "../schema/named-types.js";
import { type ParameterRow, parameterRows } from "../schema/parameters.js";
import { description, isSchemaObject, memberAccess, members, type Schema } from "../schema/schema.js";
import { snippetChecker } from "../schema/snippet-check.js";
import { docComment, TypeEmitter } from "../schema/to-typescript.js";
import { cutToFit } from "./fit.js";
import { missingSecretsNote } from "./missing-secrets.js";

/** `cyrnel.services.<svc>.tools.<tool>` as source. */
function toolPath(serviceId: string, toolId: string): string {
  return `cyrnel.services${memberAccess(serviceId)}.tools${memberAccess(toolId)}`;
}

/**
 * The usage snippet: one `invoke` call with example values for (at least)
 * every required parameter. It must pass the host's validation as written:
 * the schema's own examples and defaults are used where each satisfies its
 * part of the schema, and if the whole still fails (documents contradict
 * themselves), a purely generated value is used instead.
 */
export function usageSnippet(input: ToolDocsInput): string {
  const schema = input.inputSchema;
  const checker = snippetChecker(schema);
  const fromDocument = exampleValue(schema, schema, (node, value) => checker.validAt(node, value));
  const generated = () =>
    exampleValue(
      schema,
      schema,
      (node, value, source) => (source === "const" || source === "enum") && checker.validAt(node, value),
    );
  const params = checker.valid(fromDocument) ? fromDocument : generated();
  return `const result = await ${toolPath(input.serviceId, input.toolId)}.invoke(${toSourceLiteral(params ?? {})});`;
}

/** How much one rendering of a page shows. */
interface Detail {
  /** Nesting levels of the parameter table below the top-level parameters. */
  tableDepth: number;
  /** Named types declared in full: those within this many steps of the parameters and result; -1: none. */
  typeDepth: number;
  /** The description is cut to this many characters. */
  descriptionChars?: number;
}

/** Most detailed first; the first rendering within the budget is served. */
const DETAILS: Detail[] = [
  { tableDepth: 8, typeDepth: 2 },
  { tableDepth: 8, typeDepth: 1 },
  { tableDepth: 3, typeDepth: 1 },
  { tableDepth: 3, typeDepth: 0 },
  { tableDepth: 2, typeDepth: 0 },
  { tableDepth: 2, typeDepth: -1 },
  { tableDepth: 1, typeDepth: -1 },
  { tableDepth: 0, typeDepth: -1 },
  { tableDepth: 0, typeDepth: -1, descriptionChars: 2_000 },
];

const ROOTS = ["Input", "Output"];
const DEFAULT_EXPAND_HINT = "ask for this page again with `expand` set to its name";

/**
 * Markdown reference page of one tool (served at `GET /tools/:serviceId/:toolId/docs`):
 * description (HTML turned into Markdown), a usage snippet, the parameters
 * as a table with their constraints, the result, and each named type the
 * tool uses declared once. Named types are not expanded in the table or in
 * other declarations (they are referred to by name), and only those near
 * the parameters and result are declared; the rest are listed by name, and
 * `options.expand` shows one of them (or `Input`/`Output`, the whole
 * parameter or result type) in full. With `options.maxChars` the page
 * shows less detail, step by step, until it fits.
 */
export function renderToolDocs(input: ToolDocsInput, options: ToolDocsOptions = {}): string {
  const page = new ToolPage(input, options.expandHint ?? DEFAULT_EXPAND_HINT);
  const maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  if (options.expand !== undefined) return page.expanded(options.expand, maxChars);
  for (const detail of DETAILS) {
    const text = page.render(detail);
    if (text.length <= maxChars) return text;
  }
  return cutToFit(page.render(DETAILS[DETAILS.length - 1]!), maxChars);
}

/** An error the host answers with 404 (`code: "not_found"`). */
export class UnknownTypeError extends Error {
  readonly code = "not_found";
}

class ToolPage {
  private readonly types: NamedTypes;
  private readonly emitter: TypeEmitter;
  private readonly snippet: string;
  private readonly typeName = (schema: Schema) => this.nameOf(schema);

  constructor(
    private readonly input: ToolDocsInput,
    private readonly expandHint: string,
  ) {
    this.types = new NamedTypes(
      [
        { schema: input.inputSchema, alias: "Input" },
        { schema: input.outputSchema, alias: "Output" },
      ],
      ROOTS,
    );
    this.emitter = new TypeEmitter(this.types);
    this.snippet = usageSnippet(input);
  }

  render(detail: Detail): string {
    const out = [...this.head(detail.descriptionChars)];
    out.push("## Usage", "", "```ts", this.snippet, "cyrnel.output({ result });", "```", "");
    out.push(...this.parameters(detail.tableDepth));
    out.push(...this.returns());
    out.push(...this.typesSection(detail.typeDepth));
    out.push(
      "## Errors",
      "",
      "A failed call rejects with an `Error` (name `ToolCallError`) whose `status` and `code` say why",
      "(`not_found`, `service_disabled`, `tool_disabled`, `validation_failed`, `tool_denied`, `approval_denied`,",
      "`approval_expired`, `adapter_error`, `invoke_timeout`);",
      "the runtime reference (the environment docs) explains each. Catch it with `try`/`catch`; uncaught, it fails the process.",
      "",
    );
    return out.join("\n");
  }

  /** One type in full (a named type, or `Input`/`Output`), and the names of the types it uses. */
  expanded(name: string, maxChars: number): string {
    const rootIndex = ROOTS.indexOf(name);
    const named = this.types.get(name);
    if (rootIndex < 0 && named === undefined) {
      const known = [...ROOTS, ...this.types.declarations.map((type) => type.name)];
      const listed = known.slice(0, 60).join(", ") + (known.length > 60 ? `, … (${known.length - 60} more)` : "");
      throw new UnknownTypeError(
        `type "${name}" is not on the page of ${this.input.serviceId}.${this.input.toolId}; its types: ${listed}`,
      );
    }
    const declaration =
      named !== undefined
        ? this.emitter.declaration(named)
        : `type ${name} = ${this.emitter.body(this.types.rootSchema(rootIndex), rootIndex)};`;
    const uses = named !== undefined ? named.references : this.types.rootReferences(rootIndex);
    const head = [
      `# \`${this.input.serviceId}.${this.input.toolId}\`: \`${name}\``,
      "",
      `One type of this tool in full. Types it uses are declared below or named at the end; for another one, ${this.expandHint}.`,
      "",
    ];
    const withUses = this.declarations(uses.filter((use) => use !== name));
    const full = [...head, "```ts", declaration, ...withUses, "```", ""].join("\n");
    if (full.length <= maxChars) return full;
    const short = [...head, "```ts", declaration, "```", "", ...this.namesLine("Types it uses", uses)].join("\n");
    return cutToFit(short, maxChars);
  }

  private head(descriptionChars: number | undefined): string[] {
    const { serviceId, toolId } = this.input;
    let text = htmlToMarkdown(this.input.description.trim());
    if (descriptionChars !== undefined && text.length > descriptionChars)
      text = `${text.slice(0, descriptionChars)}… [description cut]`;
    return [
      `# \`${serviceId}.${toolId}\``,
      "",
      text === "" ? "_No description._" : text,
      "",
      ...policyLines(this.input),
    ];
  }

  private parameters(depth: number): string[] {
    const { rows, truncated } = parameterRows(this.input.inputSchema, { maxDepth: depth, typeName: this.typeName });
    if (rows.length === 0)
      return ["## Parameters", "", "This tool takes no parameters: call `invoke()` or `invoke({})`.", ""];
    const out = ["## Parameters", "", "| Name | Type | Required | Description |", "| --- | --- | --- | --- |"];
    for (const row of rows) out.push(tableRow(row));
    out.push("");
    if (truncated)
      out.push(
        `Deeper nested parameters are left out here; the whole parameter type is \`Input\`: ${this.expandHint}.`,
        "",
      );
    return out;
  }

  private returns(): string[] {
    const out = ["## Returns", ""];
    const name = this.types.rootName(1);
    const said = description(this.input.outputSchema);
    if (name !== undefined) {
      out.push(`\`invoke\` resolves with a value of type \`${name}\` (declared under Types).`, "");
      // What the answer itself says, unless it is the type's own description (shown with the type).
      const declared = this.types.get(name);
      if (said !== undefined && (declared === undefined || description(declared.schema) !== said))
        out.push(htmlToMarkdown(said), "");
      return out;
    }
    out.push("`invoke` resolves with a value of this shape (`Output`):", "", "```ts");
    const doc = docComment(this.input.outputSchema);
    if (doc !== undefined) out.push(doc);
    out.push(`type Output = ${this.emitter.root(1)};`, "```", "");
    return out;
  }

  private typesSection(depth: number): string[] {
    const all = this.types.declarations.map((type) => type.name);
    if (all.length === 0) return [];
    const start = [...new Set([...this.types.rootReferences(0), ...this.types.rootReferences(1)])];
    const shown = depth < 0 ? [] : this.types.within(start, depth);
    const out = ["## Types", ""];
    if (shown.length > 0) out.push("```ts", ...this.declarations(shown), "```", "");
    const rest = all.filter((name) => !shown.includes(name));
    out.push(...this.namesLine(shown.length > 0 ? "More types it uses" : "Types it uses", rest));
    return out;
  }

  private declarations(names: readonly string[]): string[] {
    return names.map((name) => this.emitter.declaration(this.types.get(name)!));
  }

  private namesLine(label: string, names: readonly string[]): string[] {
    if (names.length === 0) return [];
    return [
      `${label} (not declared here): ${names.map((name) => `\`${name}\``).join(", ")}. To see one, ${this.expandHint}.`,
      "",
    ];
  }

  /** The named type a schema is (a `$ref`, a self-named schema, or `allOf` of just one of those). */
  private nameOf(schema: Schema): string | undefined {
    if (!isSchemaObject(schema)) return undefined;
    const annotated = this.types.annotatedName(schema);
    if (annotated !== undefined) return annotated;
    // Parameters come from the input schema (root 0), so their `$ref`s are relative to it.
    if (typeof schema.$ref === "string") return this.types.refType(0, schema.$ref);
    const parts = members(schema, "allOf");
    const typed = ["type", "properties", "items", "anyOf", "oneOf", "enum", "const"].some((key) => key in schema);
    return parts.length === 1 && !typed ? this.nameOf(parts[0]!) : undefined;
  }
}

/** What calling the tool needs (its policy, a secret not set) and does (its annotations), when the host said. */
function policyLines(input: ToolDocsInput): string[] {
  const { policy = "allow", annotations = {} } = input;
  const missing = missingSecretsNote(input);
  const effects = [
    annotations.readOnly && "read-only",
    annotations.destructive && "destructive",
    annotations.idempotent && "idempotent",
    annotations.openWorld && "reaches an outside service",
  ].filter((effect): effect is string => typeof effect === "string");
  const effect = effects.length > 0 ? ` Effect: ${effects.join(", ")}.` : "";
  return [
    `**Policy: \`${policy}\`** — ${POLICY_MEANING[policy]}${effect}`,
    "",
    ...(missing === undefined ? [] : [`**${missing}**`, ""]),
  ];
}

const POLICY_MEANING = {
  allow: "calls run at once.",
  ask:
    "every call waits until an operator approves or denies it (the process is `suspended` meanwhile, " +
    "its timeout paused). Approved, the call runs; denied, it throws `approval_denied` (403) with the " +
    "operator's reason; undecided in time, `approval_expired` (403).",
  deny: "every call is refused with `tool_denied` (403) before anything is sent; do not call it.",
} as const;

function tableRow(row: ParameterRow): string {
  const notes: string[] = [];
  if (row.description !== undefined)
    notes.push(/[.!?]$/.test(row.description) ? row.description : `${row.description}.`);
  if (row.enum !== undefined)
    notes.push(`One of: ${row.enum.map((value) => `\`${JSON.stringify(value)}\``).join(", ")}.`);
  notes.push(...constraintNotes(row.schema));
  return `| \`${cell(row.path)}\` | \`${cell(row.type)}\` | ${row.required ? "yes" : "no"} | ${cell(notes.join(" "))} |`;
}

/** Table cells: no pipes or line breaks. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}
