import type { ToolDocsInput } from "@cyrnel/sdk";
import { exampleValue, toSourceLiteral } from "../schema/example.js";
import { parameterRows } from "../schema/parameters.js";
import { memberAccess } from "../schema/schema.js";
import { snippetChecker } from "../schema/snippet-check.js";
import { TypeEmitter } from "../schema/to-typescript.js";

/** The gating table of SPEC section 6, as a tool call from code sees it. */
const TOOL_ERRORS: [number, string, string][] = [
  [404, "not_found", "the service or the tool does not exist"],
  [409, "service_disabled", "the service is disabled or stale"],
  [409, "tool_disabled", "the tool is disabled"],
  [400, "validation_failed", "the parameters do not match the input schema (`details` lists the problems)"],
  [502, "adapter_error", "the service call failed (the message comes from the adapter)"],
  [504, "invoke_timeout", "the service call took too long"],
];

/** {@link TOOL_ERRORS} as a Markdown table (shared by the runtime reference and every tool page). */
export const TOOL_ERROR_TABLE = [
  "| status | code | when |",
  "| --- | --- | --- |",
  ...TOOL_ERRORS.map(([status, code, when]) => `| ${status} | \`${code}\` | ${when} |`),
].join("\n");

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

/** Markdown reference page of one tool (served at `GET /tools/:serviceId/:toolId/docs`). */
export function renderToolDocs(input: ToolDocsInput): string {
  const out: string[] = [];
  out.push(`# \`${input.serviceId}.${input.toolId}\``, "");
  out.push(input.description.trim() === "" ? "_No description._" : input.description.trim(), "");
  out.push("## Usage", "", "```ts", usageSnippet(input), "cyrnel.output({ result });", "```", "");

  out.push("## Parameters", "");
  const rows = parameterRows(input.inputSchema);
  if (rows.length === 0) out.push("This tool takes no parameters: call `invoke()` or `invoke({})`.", "");
  else {
    out.push("| Name | Type | Required | Description |", "| --- | --- | --- | --- |");
    for (const row of rows) {
      const notes: string[] = [];
      if (row.description !== undefined)
        notes.push(/[.!?]$/.test(row.description) ? row.description : `${row.description}.`);
      if (row.format !== undefined) notes.push(`Format: \`${row.format}\`.`);
      if (row.enum !== undefined)
        notes.push(`One of: ${row.enum.map((value) => `\`${JSON.stringify(value)}\``).join(", ")}.`);
      if (row.default !== undefined) notes.push(`Default: \`${JSON.stringify(row.default)}\`.`);
      out.push(
        `| \`${cell(row.path)}\` | \`${cell(row.type)}\` | ${row.required ? "yes" : "no"} | ${cell(notes.join(" "))} |`,
      );
    }
    out.push("");
  }

  out.push("## Returns", "", "`invoke` resolves with a value of this shape (`Output`):", "");
  const emitter = new TypeEmitter();
  emitter.declare("Output", input.outputSchema);
  out.push("```ts", emitter.render(), "```", "");

  out.push(
    "## Errors",
    "",
    "A failed call rejects with an `Error` (name `ToolCallError`) whose `status` and `code` say why.",
    "Catch it with `try`/`catch`; uncaught, it fails the process with that message.",
    "",
    TOOL_ERROR_TABLE,
    "",
  );
  return out.join("\n");
}

/** Table cells: no pipes or line breaks. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}
