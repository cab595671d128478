/**
 * Small, dependency-free helpers for reading JSON Schemas (draft-07,
 * 2019-09, 2020-12) as the docs and type generators need them. Only local
 * references (`#`, `#/$defs/…`, `#/definitions/…`, any local JSON pointer)
 * are followed; anything else is treated as an unknown schema.
 */

export type Schema = Record<string, unknown> | boolean;
export type SchemaObject = Record<string, unknown>;

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` inside `root`; undefined when it is remote or dangling. */
export function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === "boolean" || isSchemaObject(node) ? node : undefined;
}

/** The `type` keyword as a list (empty when absent). */
export function typesOf(schema: SchemaObject): string[] {
  const { type } = schema;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((item): item is string => typeof item === "string");
  return [];
}

/** Schema members of `anyOf`/`oneOf`/`allOf`. */
export function members(schema: SchemaObject, keyword: "anyOf" | "oneOf" | "allOf"): Schema[] {
  const list = schema[keyword];
  if (!Array.isArray(list)) return [];
  return list.filter((item): item is Schema => typeof item === "boolean" || isSchemaObject(item));
}

export function propertiesOf(schema: SchemaObject): [string, Schema][] {
  const { properties } = schema;
  if (!isSchemaObject(properties)) return [];
  return Object.entries(properties).filter(
    (entry): entry is [string, Schema] => typeof entry[1] === "boolean" || isSchemaObject(entry[1]),
  );
}

export function requiredOf(schema: SchemaObject): Set<string> {
  const { required } = schema;
  return new Set(Array.isArray(required) ? required.filter((item): item is string => typeof item === "string") : []);
}

/** Whether the schema describes an object (by `type`, or by object keywords when `type` is absent). */
export function looksLikeObject(schema: SchemaObject): boolean {
  const types = typesOf(schema);
  if (types.length > 0) return types.includes("object");
  return "properties" in schema || "additionalProperties" in schema || "patternProperties" in schema;
}

export function looksLikeArray(schema: SchemaObject): boolean {
  const types = typesOf(schema);
  if (types.length > 0) return types.includes("array");
  return "items" in schema || "prefixItems" in schema;
}

export function description(schema: Schema): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const text = schema.description ?? schema.title;
  return typeof text === "string" && text.trim() !== "" ? text.trim() : undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `name` as a property key in TypeScript or JavaScript source: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** `.name` or `["name"]`, for building member-access paths in snippets. */
export function memberAccess(name: string): string {
  return IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}
