import {
  isSchemaObject,
  looksLikeArray,
  looksLikeObject,
  members,
  propertiesOf,
  propertyKey,
  requiredOf,
  resolveRef,
  type Schema,
  type SchemaObject,
  typesOf,
} from "./schema.js";

const MAX_DEPTH = 12;

/** Where a value the schema gives comes from. */
export type GivenSource = "examples" | "example" | "default" | "const" | "enum";

/** Decides whether a value the schema gives (an example, a default, …) may be used at `node`. */
export type AcceptGiven = (node: SchemaObject, value: unknown, source: GivenSource) => boolean;

/**
 * A plausible value for `schema`, for usage snippets: the schema's own
 * `examples`/`example`/`default`/`const`/`enum` value when it has one that
 * `accept` allows (by default: any), otherwise a placeholder of the right
 * type. Objects get their required properties (optional ones are listed in
 * the docs instead); recursive `$ref`s stop at the first repetition.
 */
export function exampleValue(schema: Schema, root: Schema = schema, accept: AcceptGiven = () => true): unknown {
  return build(schema, root, 0, [], accept);
}

function build(schema: Schema, root: Schema, depth: number, refs: string[], accept: AcceptGiven): unknown {
  if (!isSchemaObject(schema) || depth > MAX_DEPTH) return null;
  const given = givenExamples(schema).find((candidate) => accept(schema, candidate.value, candidate.source));
  if (given !== undefined) return given.value;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    if (target === undefined || refs.includes(schema.$ref)) return null;
    return build(target, root, depth + 1, [...refs, schema.$ref], accept);
  }
  const allOf = members(schema, "allOf");
  if (allOf.length > 0) {
    const merged: Record<string, unknown> = {};
    let other: unknown;
    for (const part of [withoutKeyword(schema, "allOf"), ...allOf]) {
      const value = build(part, root, depth + 1, refs, accept);
      if (isSchemaObject(value)) Object.assign(merged, value);
      else if (value !== null) other = value;
    }
    return Object.keys(merged).length > 0 || other === undefined ? merged : other;
  }
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const options = members(schema, keyword);
    if (options.length === 0) continue;
    const preferred = options.find((option) => !isNullSchema(option)) ?? options[0];
    return build(mergeSiblings(schema, keyword, preferred as Schema), root, depth + 1, refs, accept);
  }
  const type = typesOf(schema).find((item) => item !== "null") ?? implicitType(schema);
  switch (type) {
    case "string":
      return exampleString(schema);
    case "integer":
    case "number":
      return exampleNumber(schema, type);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      if (Array.isArray(schema.prefixItems)) {
        return schema.prefixItems.map((item: unknown) => build(item as Schema, root, depth + 1, refs, accept));
      }
      if (schema.items === undefined || schema.items === false) return [];
      return [build(schema.items as Schema, root, depth + 1, refs, accept)];
    }
    case "object": {
      const required = requiredOf(schema);
      const value: Record<string, unknown> = {};
      for (const [name, property] of propertiesOf(schema)) {
        if (required.has(name)) value[name] = build(property, root, depth + 1, refs, accept);
      }
      return value;
    }
    default:
      return null;
  }
}

/** The values the schema itself offers, most specific first. */
function givenExamples(schema: SchemaObject): { value: unknown; source: GivenSource }[] {
  const out: { value: unknown; source: GivenSource }[] = [];
  if (Array.isArray(schema.examples))
    out.push(...schema.examples.map((value) => ({ value, source: "examples" as const })));
  if ("example" in schema) out.push({ value: schema.example, source: "example" });
  if ("default" in schema) out.push({ value: schema.default, source: "default" });
  if ("const" in schema) out.push({ value: schema.const, source: "const" });
  if (Array.isArray(schema.enum)) out.push(...schema.enum.map((value) => ({ value, source: "enum" as const })));
  return out;
}

function implicitType(schema: SchemaObject): string | undefined {
  if (looksLikeObject(schema)) return "object";
  if (looksLikeArray(schema)) return "array";
  return undefined;
}

function isNullSchema(schema: Schema): boolean {
  if (!isSchemaObject(schema)) return false;
  const types = typesOf(schema);
  return types.length === 1 && types[0] === "null";
}

function withoutKeyword(schema: SchemaObject, keyword: string): SchemaObject {
  const { [keyword]: _dropped, ...rest } = schema;
  return rest;
}

/** `{type: "object", required: [...], oneOf: [{properties...}]}`: the chosen option plus the parent's keywords. */
function mergeSiblings(schema: SchemaObject, keyword: string, option: Schema): Schema {
  if (!isSchemaObject(option)) return option;
  const parent = withoutKeyword(schema, keyword);
  return { ...parent, ...option, properties: { ...asRecord(parent.properties), ...asRecord(option.properties) } };
}

function asRecord(value: unknown): Record<string, unknown> {
  return isSchemaObject(value) ? value : {};
}

function exampleString(schema: SchemaObject): string {
  switch (schema.format) {
    case "date-time":
      return "2024-01-01T12:00:00Z";
    case "date":
      return "2024-01-01";
    case "time":
      return "12:00:00";
    case "email":
      return "user@example.com";
    case "uri":
    case "url":
      return "https://example.com";
    case "uuid":
      return "123e4567-e89b-12d3-a456-426614174000";
    case "ipv4":
      return "192.0.2.1";
    default:
      return "example";
  }
}

function exampleNumber(schema: SchemaObject, type: "integer" | "number"): number {
  const { minimum, exclusiveMinimum, maximum } = schema;
  if (typeof minimum === "number") return type === "integer" ? Math.ceil(minimum) : minimum;
  if (typeof exclusiveMinimum === "number")
    return type === "integer" ? Math.floor(exclusiveMinimum) + 1 : exclusiveMinimum + 1;
  if (typeof maximum === "number" && maximum < 0) return type === "integer" ? Math.floor(maximum) : maximum;
  return type === "integer" ? 1 : 1.5;
}

/** `value` as JavaScript source (identifier keys unquoted), indented for a snippet. */
export function toSourceLiteral(value: unknown, indent = ""): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => `${inner}${toSourceLiteral(item, inner)},`).join("\n")}\n${indent}]`;
  }
  if (isSchemaObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const lines = entries.map(([key, item]) => `${inner}${propertyKey(key)}: ${toSourceLiteral(item, inner)},`);
    return `{\n${lines.join("\n")}\n${indent}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}
