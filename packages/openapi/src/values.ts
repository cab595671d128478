import { isRecord, type JsonRecord } from "./records.js";

/**
 * Data in schemas (`default`, `examples`, `enum`) that contradicts the
 * schema it sits in. Documents are full of it — ably's `limit` defaults to
 * the string `"100"` for an integer, Zoom's `type` is a string whose enum
 * holds numbers, Azure's examples give `"0xFF"` for an integer — and it
 * does harm downstream: a validator that fills defaults rejects calls that
 * never mentioned the parameter, and docs and usage snippets show values
 * the host then refuses. So, per schema node:
 *
 * - an `enum` value of another primitive type than a declared single `type`
 *   is converted when that is lossless (`1` ↔ `"1"`, `"true"` → `true`),
 *   else dropped (with every value gone, the `enum` goes);
 * - a `default` or an example that does not satisfy its node is converted
 *   the same way when that makes it valid, else dropped.
 *
 * {@link satisfies} is a compact draft-07 check of the keywords the
 * translated schemas carry (formats: the common ones, like ajv-formats).
 * It errs towards "valid" where it cannot tell (an unresolvable `$ref`,
 * deep recursion), so it only removes what is certainly wrong.
 */

export type RefResolver = (ref: string) => unknown;

const MAX_DEPTH = 64;

const FORMATS: Record<string, (text: string) => boolean> = {
  date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && validDate(text),
  "date-time": (text) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/.test(text) &&
    validDate(text.slice(0, 10)),
  time: (text) => /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/.test(text),
  uuid: (text) => /^(urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(text),
  email: (text) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text),
  ipv4: (text) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(text),
  uri: (text) => /^[a-z][a-z0-9+.-]*:[^\s]*$/i.test(text),
  byte: (text) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text),
};

const NUMBER_FORMATS: Record<string, (value: number) => boolean> = {
  int32: (value) => Number.isInteger(value) && value >= -(2 ** 31) && value <= 2 ** 31 - 1,
  int64: (value) => Number.isInteger(value),
};

function validDate(text: string): boolean {
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return "number";
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  if (type === "integer") return typeof value === "number" && Number.isInteger(value);
  return typeOf(value) === type;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

function equal(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return true;
  }
}

/** Whether `value` satisfies the translated draft-07 `schema` (see the module comment). */
export function satisfies(value: unknown, schema: unknown, resolve: RefResolver, depth = 0): boolean {
  if (schema === true || depth > MAX_DEPTH) return true;
  if (schema === false) return false;
  if (!isRecord(schema)) return true;
  const check = (sub: unknown, item: unknown = value) => satisfies(item, sub, resolve, depth + 1);
  if (typeof schema.$ref === "string") {
    const target = resolve(schema.$ref);
    if (target !== undefined && !check(target)) return false;
  }
  return (
    generic(value, schema, check) &&
    numeric(value, schema) &&
    textual(value, schema) &&
    arrayLike(value, schema, check) &&
    objectLike(value, schema, check)
  );
}

type Check = (schema: unknown, item?: unknown) => boolean;

function generic(value: unknown, schema: JsonRecord, check: Check): boolean {
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length > 0 && !types.some((type) => typeof type === "string" && hasType(value, type))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((item) => equal(item, value))) return false;
  if (Object.hasOwn(schema, "const") && !equal(schema.const, value)) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every((member) => check(member))) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((member) => check(member))) return false;
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((member) => check(member)).length !== 1) return false;
  if (Object.hasOwn(schema, "not") && check(schema.not)) return false;
  if (Object.hasOwn(schema, "if")) {
    const branch = check(schema.if) ? schema.then : schema.else;
    if (branch !== undefined && !check(branch)) return false;
  }
  return true;
}

function numeric(value: unknown, schema: JsonRecord): boolean {
  if (typeof value !== "number") return true;
  const bound = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  const [minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf] = [
    bound("minimum"),
    bound("maximum"),
    bound("exclusiveMinimum"),
    bound("exclusiveMaximum"),
    bound("multipleOf"),
  ];
  if (minimum !== undefined && value < minimum) return false;
  if (maximum !== undefined && value > maximum) return false;
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return false;
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) return false;
  if (multipleOf !== undefined && multipleOf > 0) {
    const ratio = value / multipleOf;
    if (Math.abs(ratio - Math.round(ratio)) > 1e-9) return false;
  }
  const format = typeof schema.format === "string" ? NUMBER_FORMATS[schema.format] : undefined;
  return format === undefined || format(value);
}

function textual(value: unknown, schema: JsonRecord): boolean {
  if (typeof value !== "string") return true;
  const length = [...value].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
  if (typeof schema.pattern === "string" && !matches(schema.pattern, value)) return false;
  const format =
    typeof schema.format === "string" && Object.hasOwn(FORMATS, schema.format) ? FORMATS[schema.format] : undefined;
  return format === undefined || format(value);
}

function arrayLike(value: unknown, schema: JsonRecord, check: Check): boolean {
  if (!Array.isArray(value)) return true;
  if (typeof schema.minItems === "number" && value.length < schema.minItems) return false;
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return false;
  if (schema.uniqueItems === true && new Set(value.map(canonical)).size !== value.length) return false;
  if (Array.isArray(schema.items)) {
    const tuple = schema.items;
    if (!tuple.every((item, index) => index >= value.length || check(item, value[index]))) return false;
    if (
      Object.hasOwn(schema, "additionalItems") &&
      !value.slice(tuple.length).every((item) => check(schema.additionalItems, item))
    )
      return false;
  } else if (Object.hasOwn(schema, "items") && !value.every((item) => check(schema.items, item))) {
    return false;
  }
  return !Object.hasOwn(schema, "contains") || value.some((item) => check(schema.contains, item));
}

function objectLike(value: unknown, schema: JsonRecord, check: Check): boolean {
  if (!isRecord(value)) return true;
  const keys = Object.keys(value);
  if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) return false;
  if (typeof schema.maxProperties === "number" && keys.length > schema.maxProperties) return false;
  if (
    Array.isArray(schema.required) &&
    !schema.required.every((key) => typeof key !== "string" || Object.hasOwn(value, key))
  )
    return false;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const patterns = isRecord(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
  for (const key of keys) {
    let known = false;
    if (Object.hasOwn(properties, key)) {
      known = true;
      if (!check(properties[key], value[key])) return false;
    }
    for (const [pattern, sub] of patterns) {
      if (!matches(pattern, key)) continue;
      known = true;
      if (!check(sub, value[key])) return false;
    }
    if (!known && Object.hasOwn(schema, "additionalProperties") && !check(schema.additionalProperties, value[key]))
      return false;
    if (Object.hasOwn(schema, "propertyNames") && !check(schema.propertyNames, key)) return false;
  }
  if (isRecord(schema.dependencies)) {
    for (const [key, dependency] of Object.entries(schema.dependencies)) {
      if (!Object.hasOwn(value, key)) continue;
      if (
        Array.isArray(dependency) ? !dependency.every((name) => Object.hasOwn(value, String(name))) : !check(dependency)
      )
        return false;
    }
  }
  return true;
}

/** Lossless conversions between a string and a number or boolean, tried on values that do not fit. */
function conversions(value: unknown): unknown[] {
  if (typeof value === "string") {
    const out: unknown[] = [];
    if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim())) out.push(Number(value));
    if (value === "true" || value === "false") out.push(value === "true");
    return out;
  }
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  return [];
}

/** `value` if it satisfies `schema`, else its first lossless conversion that does, else `undefined`. */
function fitted(value: unknown, schema: JsonRecord, resolve: RefResolver): { value: unknown } | undefined {
  if (satisfies(value, schema, resolve)) return { value };
  for (const converted of conversions(value)) if (satisfies(converted, schema, resolve)) return { value: converted };
  return undefined;
}

/** Conforming `examples` of `values` for `schema` (converted where that helps), each once. */
export function conformingValues(values: readonly unknown[], schema: unknown, resolve: RefResolver): unknown[] {
  const seen = new Set<string>();
  return values.flatMap((value) => {
    const found = isRecord(schema) ? fitted(value, schema, resolve) : { value };
    if (!found) return [];
    const key = canonical(found.value);
    if (seen.has(key)) return [];
    seen.add(key);
    return [found.value];
  });
}

/** A declared single primitive `type` with an enum of other types: convert what converts, drop the rest. */
function repairEnum(node: JsonRecord): void {
  if (!Array.isArray(node.enum) || typeof node.type !== "string") return;
  const type = node.type;
  if (!["string", "number", "integer", "boolean"].includes(type)) return;
  const kept: unknown[] = [];
  for (const item of node.enum) {
    const candidate = hasType(item, type) || item === null ? item : conversions(item).find((c) => hasType(c, type));
    if (candidate !== undefined && !kept.some((existing) => equal(existing, candidate))) kept.push(candidate);
  }
  if (kept.length === node.enum.length && kept.every((item, index) => item === (node.enum as unknown[])[index])) return;
  if (kept.length > 0) node.enum = kept;
  else delete node.enum;
}

const SUBSCHEMA_KEYS = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
];
const SUBSCHEMA_LIST_KEYS = ["allOf", "anyOf", "oneOf", "items"];
const SUBSCHEMA_MAP_KEYS = ["properties", "patternProperties", "dependencies"];

/**
 * Repair `enum`s and drop (or convert) `default`s and `examples` that
 * contradict their node, in place, throughout `schema` (not across `$ref`s:
 * each `$defs` entry is tidied once on its own).
 */
export function tidyValues(schema: unknown, resolve: RefResolver, seen = new Set<unknown>()): void {
  if (!isRecord(schema) || seen.has(schema)) return;
  seen.add(schema);
  repairEnum(schema);
  if (Object.hasOwn(schema, "default")) {
    const found = fitted(schema.default, schema, resolve);
    if (found) schema.default = found.value;
    else delete schema.default;
  }
  if (Array.isArray(schema.examples)) {
    const kept = conformingValues(schema.examples, schema, resolve);
    if (kept.length > 0) schema.examples = kept;
    else delete schema.examples;
  }
  for (const key of SUBSCHEMA_KEYS) if (isRecord(schema[key])) tidyValues(schema[key], resolve, seen);
  for (const key of SUBSCHEMA_LIST_KEYS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const item of list) tidyValues(item, resolve, seen);
  }
  for (const key of SUBSCHEMA_MAP_KEYS) {
    const map = schema[key];
    if (isRecord(map)) for (const item of Object.values(map)) tidyValues(item, resolve, seen);
  }
}
