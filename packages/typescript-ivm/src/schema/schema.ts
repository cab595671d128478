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
  const tokens = refTokens(ref);
  if (tokens === undefined) return undefined;
  let node: unknown = root;
  for (const key of tokens) {
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node, key)) return undefined;
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

/** Keywords that constrain only values of one kind other than objects (JSON Schema's "applies only to" rule). */
const OTHER_KIND_KEYWORDS = [
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
];

/**
 * Whether a schema without `type` constrains values of some kind other than
 * objects (`items`, `pattern`, `minimum`, …). Such a keyword says nothing
 * about which kind the value is: `{ items: … }` accepts any string, number or
 * object, and only an array's elements must match.
 */
export function constrainsOtherKinds(schema: SchemaObject): boolean {
  return typesOf(schema).length === 0 && OTHER_KIND_KEYWORDS.some((keyword) => keyword in schema);
}

export function description(schema: Schema): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const text = schema.description ?? schema.title;
  return typeof text === "string" && text.trim() !== "" ? text.trim() : undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `name` as a property key in TypeScript or JavaScript source: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/**
 * `text` as a double-quoted string literal. JSON.stringify leaves U+2028 and
 * U+2029 as they are (legal in a literal since ES2019), but they end a line
 * for `^` in a multiline RegExp, so indenting a declaration would put spaces
 * inside the string: they are escaped.
 */
export function stringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** `.name` or `["name"]`, for building member-access paths in snippets. */
export function memberAccess(name: string): string {
  return IDENTIFIER.test(name) ? `.${name}` : `[${stringLiteral(name)}]`;
}

/** Keywords whose value is one subschema. */
const SINGLE_SCHEMA_KEYWORDS = [
  "additionalProperties",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
];
/** Keywords whose value maps names to subschemas (`$defs`/`definitions` are visited only through `$ref`s). */
const MAP_SCHEMA_KEYWORDS = ["properties", "patternProperties", "dependentSchemas", "dependencies"];
/** Keywords whose value is a list of subschemas. */
const LIST_SCHEMA_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];

/**
 * Calls `visit` with each direct subschema of `schema` and the path from
 * `schema` to it (`["properties", "name"]`), in the order the keywords appear
 * in `schema`. Definitions (`$defs`, `definitions`) are not subschemas here:
 * they matter only where a `$ref` reaches them.
 */
export function forEachSubschema(schema: SchemaObject, visit: (child: Schema, path: string[]) => void): void {
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "items") {
      if (Array.isArray(value)) visitList(value, keyword, visit);
      else visitSchema(value, [keyword], visit);
    } else if (SINGLE_SCHEMA_KEYWORDS.includes(keyword)) visitSchema(value, [keyword], visit);
    else if (MAP_SCHEMA_KEYWORDS.includes(keyword) && isSchemaObject(value)) {
      for (const [name, child] of Object.entries(value)) visitSchema(child, [keyword, name], visit);
    } else if (LIST_SCHEMA_KEYWORDS.includes(keyword) && Array.isArray(value)) {
      visitList(value, keyword, visit);
    }
  }
}

function visitList(list: unknown[], keyword: string, visit: (child: Schema, path: string[]) => void): void {
  for (let i = 0; i < list.length; i++) visitSchema(list[i], [keyword, String(i)], visit);
}

function visitSchema(value: unknown, path: string[], visit: (child: Schema, path: string[]) => void): void {
  if (typeof value === "boolean" || isSchemaObject(value)) visit(value, path);
}

/** The JSON pointer tokens of a local `$ref` (`#/$defs/a~1b` → `["$defs", "a/b"]`); undefined for other references. */
export function refTokens(ref: string): string[] | undefined {
  if (ref === "#") return [];
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((raw) => {
      let token = raw;
      try {
        token = decodeURIComponent(raw);
      } catch {
        // A lone `%` is taken literally, as the pointer's own text.
      }
      return token.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}
