import { htmlToMarkdown } from "./html-markdown.js";
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

const MAX_LABEL_DEPTH = 8;

/** One row of a tool's parameter list. Nested properties have dotted paths (`body.owner.name`, `tags[].id`). */
export interface ParameterRow {
  path: string;
  type: string;
  required: boolean;
  /** In Markdown (HTML descriptions are converted). */
  description?: string;
  enum?: unknown[];
  /** The schema the row describes (`$ref`s followed), for its constraints. */
  schema: Schema;
}

/** How far {@link parameterRows} goes. */
export interface RowOptions {
  /** Nesting levels listed below the top-level parameters (0: only those). */
  maxDepth: number;
  /**
   * The name of a named type (the target of a `$ref`, or a schema that
   * names itself): such a row shows the name and is not expanded, since the
   * page declares the type once. Without it, `$ref`s are expanded and
   * labelled with their last pointer token.
   */
  typeName?: (schema: Schema) => string | undefined;
}

/**
 * Flattens an object schema into rows, expanding nested objects (also
 * inside arrays and `allOf` parts; a recursive `$ref` is listed once and
 * not expanded again) down to `maxDepth`. `truncated` says whether rows
 * were left out below that depth.
 */
export function parameterRows(
  schema: Schema,
  options: RowOptions = { maxDepth: 8 },
  root: Schema = schema,
): { rows: ParameterRow[]; truncated: boolean } {
  const state = { rows: [] as ParameterRow[], truncated: false, options };
  expand(schema, root, "", state, [], 0);
  return { rows: state.rows, truncated: state.truncated };
}

interface RowState {
  rows: ParameterRow[];
  truncated: boolean;
  options: RowOptions;
}

function expand(schema: Schema, root: Schema, prefix: string, state: RowState, refs: string[], depth: number) {
  if (depth > state.options.maxDepth) {
    state.truncated = true;
    return;
  }
  const { rows } = state;
  const named = state.options.typeName;
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
    const row: ParameterRow = {
      path,
      type: typeLabel(property, root, named),
      required: required.has(name),
      schema: useSite(property, resolved.schema),
    };
    const text = description(property) ?? description(resolved.schema);
    if (text !== undefined) row.description = htmlToMarkdown(text);
    if (isSchemaObject(resolved.schema) && Array.isArray(resolved.schema.enum)) row.enum = resolved.schema.enum;
    rows.push(row);
    const recursive = isSchemaObject(property) && typeof property.$ref === "string" && seen.includes(property.$ref);
    if (recursive || !isSchemaObject(resolved.schema) || named?.(property) !== undefined) continue;
    if (looksLikeObject(resolved.schema) || members(resolved.schema, "allOf").length > 0)
      expand(resolved.schema, root, path, state, resolved.refs, depth + 1);
    else if (looksLikeArray(resolved.schema) && isSchemaObject(resolved.schema.items)) {
      const items = resolved.schema.items;
      if (named?.(items) === undefined) expand(items, root, `${path}[]`, state, resolved.refs, depth + 1);
    }
  }
}

/** A referenced schema as this use sees it: what the use itself says (a `default`, …) wins. */
function useSite(property: Schema, target: Schema): Schema {
  if (!isSchemaObject(property) || !isSchemaObject(target) || property === target) return target;
  const { $ref: _ref, ...own } = property;
  return { ...target, ...own };
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
function typeLabel(schema: Schema, root: Schema, named: RowOptions["typeName"], depth = 0): string {
  if (schema === true) return "any";
  if (schema === false) return "never";
  if (depth > MAX_LABEL_DEPTH) return "any";
  const name = named?.(schema);
  if (name !== undefined) return name;
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
    label = types.map((type) => (type === "array" ? arrayLabel(schema, root, named, depth) : type)).join(" | ");
  } else if (options.length > 0) {
    label = [...new Set(options.map((option) => typeLabel(option, root, named, depth + 1)))].join(" | ");
  } else if (looksLikeObject(schema)) label = "object";
  else if (looksLikeArray(schema)) label = arrayLabel(schema, root, named, depth);
  else if (members(schema, "allOf").length > 0) label = "object";
  else label = "any";
  if (schema.nullable === true) label += " | null";
  return label;
}

function arrayLabel(schema: SchemaObject, root: Schema, named: RowOptions["typeName"], depth: number): string {
  const items = schema.items;
  if (items === undefined || Array.isArray(items)) return "array";
  const element = typeLabel(items as Schema, root, named, depth + 1);
  return element.includes(" ") ? `(${element})[]` : `${element}[]`;
}
