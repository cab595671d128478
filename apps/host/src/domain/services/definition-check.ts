/**
 * What the host verifies about an adapter's ServiceDefinition before
 * persisting it: the shape (a broken adapter must not corrupt the
 * database), every tool id (valid, non-reserved, unique) and every schema.
 * Checked a slice of tools at a time, letting other requests through in
 * between: Microsoft Graph's 11,000 tools take a third of a second.
 */
import { isValidIdentifier, MAX_IDENTIFIER_CHARS, type ServiceDefinition } from "@cyrnel/sdk";
import { CyrnelError } from "../../errors.js";
import { yieldToEventLoop } from "../../lib/event-loop.js";
import type { SchemaValidator } from "../../lib/json-schema.js";

/** The hints of the SDK's `ToolAnnotations`. */
const ANNOTATIONS = new Set(["readOnly", "destructive", "idempotent", "openWorld"]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const SLICE = 250;

export async function checkDefinition(
  value: unknown,
  adapter: string,
  validator: SchemaValidator,
): Promise<ServiceDefinition> {
  const broken = (problem: string) =>
    new CyrnelError("adapter_error", `adapter "${adapter}" returned an invalid definition: ${problem}`);
  if (!isObject(value)) throw broken("not an object");
  for (const key of ["name", "description"] as const) {
    if (typeof value[key] !== "string") throw broken(`"${key}" must be a string`);
  }
  for (const key of ["configSchema", "secretsSchema", "adapterDomain"] as const) {
    if (!isObject(value[key])) throw broken(`"${key}" must be an object`);
  }
  if (!Array.isArray(value.tools)) throw broken(`"tools" must be an array`);
  const seen = new Set<string>();
  for (let index = 0; index < value.tools.length; index++) {
    if (index > 0 && index % SLICE === 0) await yieldToEventLoop();
    const tool: unknown = value.tools[index];
    if (!isObject(tool)) throw broken(`tools[${index}] is not an object`);
    if (!isValidIdentifier(tool.id)) {
      throw new CyrnelError(
        "bad_request",
        `tool id ${JSON.stringify(tool.id)} (tools[${index}]) is not a valid TypeScript identifier of at most ` +
          `${MAX_IDENTIFIER_CHARS} characters, or is a reserved word`,
      );
    }
    if (seen.has(tool.id)) throw new CyrnelError("bad_request", `tool id "${tool.id}" appears more than once`);
    seen.add(tool.id);
    for (const key of ["name", "description"] as const) {
      if (typeof tool[key] !== "string") throw broken(`tool "${tool.id}": "${key}" must be a string`);
    }
    for (const key of ["inputSchema", "outputSchema", "adapterDomain"] as const) {
      if (!isObject(tool[key])) throw broken(`tool "${tool.id}": "${key}" must be an object`);
    }
    if (tool.annotations !== undefined) {
      if (!isObject(tool.annotations)) throw broken(`tool "${tool.id}": "annotations" must be an object`);
      for (const [hint, claimed] of Object.entries(tool.annotations)) {
        if (!ANNOTATIONS.has(hint)) throw broken(`tool "${tool.id}": unknown annotation "${hint}"`);
        if (typeof claimed !== "boolean") throw broken(`tool "${tool.id}": annotation "${hint}" must be a boolean`);
      }
    }
    if (tool.secrets !== undefined) {
      const alternatives = tool.secrets;
      if (
        !Array.isArray(alternatives) ||
        !alternatives.every((names) => Array.isArray(names) && names.every((name) => typeof name === "string"))
      ) {
        throw broken(`tool "${tool.id}": "secrets" must be an array of arrays of secret names`);
      }
    }
    for (const key of ["inputSchema", "outputSchema"] as const) {
      const problem = validator.checkSchema(tool[key] as Record<string, unknown>);
      if (problem)
        throw new CyrnelError("bad_request", `tool "${tool.id}": ${key} is not a valid JSON Schema: ${problem}`);
    }
  }
  for (const key of ["configSchema", "secretsSchema"] as const) {
    const problem = validator.checkSchema(value[key] as Record<string, unknown>);
    if (problem) throw new CyrnelError("bad_request", `${key} is not a valid JSON Schema: ${problem}`);
  }
  return value as unknown as ServiceDefinition;
}
