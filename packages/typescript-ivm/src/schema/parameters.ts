import {
  description,
  isSchemaObject,
  looksLikeArray,
  looksLikeObject,
  members,
  propertiesOf,
  requiredOf,
  resolveRef,
  type Schema,
  type SchemaObject,
  typesOf,
} from "./schema.js";

/** One row of a tool's parameter list. Nested properties have dotted paths (`body.owner.name`, `tags[].id`). */
export interface ParameterRow {
  path: string;
  type: string;
  required: boolean;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  /** The `format` of a string (`date-time`, `uri`, …). */
  format?: string;
}

const MAX_DEPTH = 8;

/**
 * Flattens an object schema into rows, expanding nested objects (also
 * inside arrays, `allOf` parts and local `$ref`s; a recursive `$ref` is
 * listed once and not expanded again).
 */
export function parameterRows(schema: Schema, root: Schema = schema): ParameterRow[] {
  const rows: ParameterRow[] = [];
  expand(schema, root, "", rows, [], 0);
  return rows;
}

function expand(schema: Schema, root: Schema, prefix: string, rows: ParameterRow[], refs: string[], depth: number) {
  if (depth > MAX_DEPTH) return;
  const { schema: target, refs: seen } = follow(schema, root, refs);
  if (!isSchemaObject(target)) return;
  const required = requiredOf(target);
  for (const part of members(target, "allOf")) {
    const resolved = follow(part, root, seen);
    if (isSchemaObject(resolved.schema)) for (const name of requiredOf(resolved.schema)) required.add(name);
  }
  for (const [name, property] of collectProperties(target, root, seen)) {
    const path = prefix === "" ? name : `${prefix}.${name}`;
    const resolved = follow(property, root, seen);
    const row: ParameterRow = { path, type: typeLabel(property, root), required: required.has(name) };
    const text = description(property) ?? description(resolved.schema);
    if (text !== undefined) row.description = text;
    if (isSchemaObject(resolved.schema)) {
      if (Array.isArray(resolved.schema.enum)) row.enum = resolved.schema.enum;
      if ("default" in resolved.schema) row.default = resolved.schema.default;
      if (typeof resolved.schema.format === "string") row.format = resolved.schema.format;
    }
    rows.push(row);
    const recursive = isSchemaObject(property) && typeof property.$ref === "string" && seen.includes(property.$ref);
    if (recursive || !isSchemaObject(resolved.schema)) continue;
    if (looksLikeObject(resolved.schema) || members(resolved.schema, "allOf").length > 0)
      expand(resolved.schema, root, path, rows, resolved.refs, depth + 1);
    else if (looksLikeArray(resolved.schema) && resolved.schema.items !== undefined) {
      expand(resolved.schema.items as Schema, root, `${path}[]`, rows, resolved.refs, depth + 1);
    }
  }
}

/** Properties of the schema and of its `allOf` parts, in order (later definitions of a name win). */
function collectProperties(schema: SchemaObject, root: Schema, refs: string[]): [string, Schema][] {
  const collected = new Map<string, Schema>(propertiesOf(schema));
  for (const part of members(schema, "allOf")) {
    const resolved = follow(part, root, refs);
    if (isSchemaObject(resolved.schema)) {
      for (const [name, property] of collectProperties(resolved.schema, root, resolved.refs))
        collected.set(name, property);
    }
  }
  return [...collected];
}

function follow(schema: Schema, root: Schema, refs: string[]): { schema: Schema; refs: string[] } {
  let current = schema;
  let seen = refs;
  while (isSchemaObject(current) && typeof current.$ref === "string" && !seen.includes(current.$ref)) {
    const target = resolveRef(root, current.$ref);
    if (target === undefined) break;
    seen = [...seen, current.$ref];
    current = target;
  }
  return { schema: current, refs: seen };
}

/** A short type for tables: `string`, `integer`, `"a" | "b"`, `object`, `Pet[]`, `string | null`. */
function typeLabel(schema: Schema, root: Schema, depth = 0): string {
  if (schema === true) return "any";
  if (schema === false) return "never";
  if (depth > MAX_DEPTH) return "any";
  if (typeof schema.$ref === "string") {
    const name = schema.$ref === "#" ? "object" : (schema.$ref.split("/").pop() ?? "object");
    return resolveRef(root, schema.$ref) === undefined ? "any" : name;
  }
  if ("const" in schema) return JSON.stringify(schema.const) ?? "any";
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const options = [...members(schema, "oneOf"), ...members(schema, "anyOf")];
  let label: string;
  const types = typesOf(schema);
  if (types.length > 0) {
    label = types.map((type) => (type === "array" ? arrayLabel(schema, root, depth) : type)).join(" | ");
  } else if (options.length > 0) {
    label = [...new Set(options.map((option) => typeLabel(option, root, depth + 1)))].join(" | ");
  } else if (looksLikeObject(schema)) label = "object";
  else if (looksLikeArray(schema)) label = arrayLabel(schema, root, depth);
  else if (members(schema, "allOf").length > 0) label = "object";
  else label = "any";
  if (schema.nullable === true) label += " | null";
  return label;
}

function arrayLabel(schema: SchemaObject, root: Schema, depth: number): string {
  const items = schema.items;
  if (items === undefined || Array.isArray(items)) return "array";
  const element = typeLabel(items as Schema, root, depth + 1);
  return element.includes(" ") ? `(${element})[]` : `${element}[]`;
}
