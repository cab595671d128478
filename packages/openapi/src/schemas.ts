import { type JSONSchema, SCHEMA_NAME_KEYWORD } from "@cyrnel/sdk";
import type { SpecVersion } from "./parse.js";
import { followRefs, refTokens, valueAt } from "./pointer.js";
import { define, entriesOf, isRecord, type JsonRecord, own, ownString, recordFrom } from "./records.js";
import { conformingValues, type RefResolver, tidyValues } from "./values.js";

/**
 * Stage 4 (see the README's table): OpenAPI schema objects → JSON Schema draft-07 that ajv compiles
 * (strict: false, with ajv-formats).
 *
 * - Every `$ref` becomes a local `{"$ref": "#/$defs/<Name>"}`; the root
 *   schema of each tool carries the `$defs` it needs (transitively). Shared
 *   and recursive component schemas therefore stay finite and are emitted
 *   once per root. At a root position (a parameter, the body, the output) a
 *   leading `$ref` is inlined one level so simple cases read naturally; the
 *   inlined schema says whose it is with `"x-cyrnel-name": "<Name>"`
 *   (`SCHEMA_NAME_KEYWORD`), the name its `$defs` entry would have.
 * - `<Name>` is the component name (`#/components/schemas/Pet`,
 *   `#/definitions/Pet` → `Pet`) with characters outside `[A-Za-z0-9_.-]`
 *   replaced by `_`; other pointers are named after their path. Clashes get
 *   `_2`, `_3`, … in document order.
 * - Only keywords draft-07 knows are kept, and only with values its
 *   meta-schema accepts (an invalid `pattern`, a non-array `required`, … is
 *   dropped). OpenAPI-only keywords are translated: `nullable` → `"null"` in
 *   `type` (or `anyOf` with `{type: "null"}`), `example` → `examples`,
 *   Swagger 2 `type: file` → `{type: "string", format: "binary"}`, boolean
 *   `exclusiveMinimum`/`exclusiveMaximum` → numbers, 3.1 `prefixItems` →
 *   tuple `items`, `dependentRequired`/`dependentSchemas` → `dependencies`.
 *   `discriminator`, `xml`, `externalDocs`, `x-*` and keywords draft-07 cannot
 *   express (`unevaluatedProperties`, `$dynamicRef`, …) are dropped; unknown
 *   `format`s are dropped (ajv would only warn about them).
 * - Direction matters: request schemas omit `readOnly` properties, response
 *   schemas omit `writeOnly` ones (also from `required`).
 * - `default`s, `examples` and `enum` values that contradict their own
 *   schema are converted or dropped (`values.ts`): what a validator fills
 *   in or a usage snippet shows must be valid.
 */

export const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

export type Direction = "request" | "response";

/** A translated schema and the `$defs` names it refers to directly. */
interface Translated {
  schema: JSONSchema | boolean;
  refs: Set<string>;
  /** Its data values were checked against it ({@link tidyValues}). */
  tidied?: boolean;
}

/** The formats ajv-formats defines; others would only produce ajv warnings. */
const KNOWN_FORMATS = new Set([
  "date",
  "time",
  "date-time",
  "iso-time",
  "iso-date-time",
  "duration",
  "uri",
  "uri-reference",
  "uri-template",
  "url",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "regex",
  "uuid",
  "json-pointer",
  "json-pointer-uri-fragment",
  "relative-json-pointer",
  "byte",
  "int32",
  "int64",
  "float",
  "double",
  "password",
  "binary",
]);

const SIMPLE_TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
const COUNT_KEYWORDS = new Set(["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"]);
const STRING_KEYWORDS = new Set(["title", "description", "$comment", "contentMediaType", "contentEncoding"]);
const BOOLEAN_KEYWORDS = new Set(["uniqueItems", "readOnly", "writeOnly", "deprecated"]);
const SCHEMA_KEYWORDS = new Set(["additionalItems", "contains", "propertyNames", "if", "then", "else", "not"]);
const SCHEMA_LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf"]);
const DATA_KEYWORDS = new Set(["default", "const"]);
/** Keywords that only annotate: safe to merge onto an inlined `$ref` target. */
const ANNOTATIONS = new Set(["title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly"]);
const COMPOSITIONS = ["allOf", "anyOf", "oneOf", "not", "$ref", "const", "if"];

const MAX_DEPTH = 200;

function isValidPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** Characters that need no escaping in a JSON pointer or a URI fragment. */
function sanitizeName(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9_.-]/g, "_");
  return cleaned === "" ? "_" : cleaned;
}

export interface SchemaEmitter {
  /**
   * Translate a schema at a root position: a leading `$ref` is inlined one
   * level and `true`/`false` become `{}`/`{not: {}}`.
   */
  root(node: unknown, direction: Direction): { schema: JSONSchema; refs: Set<string> };
  /** The `$defs` object for `refs` and everything they need, sorted by name. */
  defs(refs: Iterable<string>, direction: Direction): Record<string, JSONSchema | boolean>;
  /** Follow `$ref`s to the raw schema they name (for inspections such as "is this binary?"). */
  resolve(node: unknown): unknown;
  /** The values (examples) that satisfy a translated schema of this emitter, converted where that helps. */
  conforming(values: readonly unknown[], schema: JSONSchema, direction: Direction): unknown[];
}

/**
 * One emitter per document: it names `$defs` consistently across all tools
 * and translates each referenced schema once per direction.
 */
export function createSchemaEmitter(document: JsonRecord, version: SpecVersion): SchemaEmitter {
  const names = new Map<string, string>();
  const pointers = new Map<string, readonly string[]>();
  /** `$ref` → `$defs` name, so each distinct reference is parsed and named once. */
  const refNames = new Map<string, string>();
  const usedNames = new Set<string>();
  const cache = new Map<string, Translated>();

  function claim(pointer: string, tokens: readonly string[], preferred: string): string {
    const base = sanitizeName(preferred);
    let name = base;
    for (let n = 2; usedNames.has(name); n++) name = `${base}_${n}`;
    usedNames.add(name);
    names.set(pointer, name);
    pointers.set(name, tokens);
    return name;
  }

  // Component schemas are named up front, in document order, so their names
  // do not depend on which tool happens to reference them first.
  const componentPath = version === "2.0" ? ["definitions"] : ["components", "schemas"];
  const components = valueAt(document, componentPath);
  for (const [key] of entriesOf(components)) {
    const tokens = [...componentPath, key];
    claim(canonical(tokens), tokens, key);
  }

  function canonical(tokens: readonly string[]): string {
    return JSON.stringify(tokens);
  }

  function nameFor(ref: string): string {
    let name = refNames.get(ref);
    if (name === undefined) {
      const tokens = refTokens(ref);
      const key = canonical(tokens);
      name = names.get(key) ?? claim(key, tokens, tokens.join("_"));
      refNames.set(ref, name);
    }
    return name;
  }

  function resolve(node: unknown): unknown {
    const { value, circular } = followRefs(document, node);
    return circular === undefined ? value : {};
  }

  function translate(node: unknown, direction: Direction, depth: number, refs: Set<string>): JSONSchema | boolean {
    if (depth > MAX_DEPTH)
      throw new Error(`Invalid OpenAPI document: a schema is nested more than ${MAX_DEPTH} levels deep`);
    if (typeof node === "boolean") return node;
    if (!isRecord(node)) return {};
    const ref = ownString(node, "$ref");
    if (ref === undefined) return withNullable(keywords(node, direction, depth, refs), node);
    const name = nameFor(ref);
    refs.add(name);
    const target = { $ref: `#/$defs/${name}` };
    const { $ref: _ignored, ...rest } = node;
    const siblings = keywords(rest, direction, depth, refs);
    return withNullable(Object.keys(siblings).length === 0 ? target : { allOf: [target], ...siblings }, rest);
  }

  function sub(node: unknown, direction: Direction, depth: number, refs: Set<string>) {
    return translate(node, direction, depth + 1, refs);
  }

  function keywords(node: JsonRecord, direction: Direction, depth: number, refs: Set<string>): JSONSchema {
    const out: JsonRecord = {};
    const dependencies: JsonRecord = {};
    for (const [key, value] of Object.entries(node)) {
      if (STRING_KEYWORDS.has(key)) {
        if (typeof value === "string") out[key] = value;
      } else if (BOOLEAN_KEYWORDS.has(key)) {
        if (typeof value === "boolean") out[key] = value;
      } else if (COUNT_KEYWORDS.has(key)) {
        if (Number.isInteger(value) && (value as number) >= 0) out[key] = value;
      } else if (SCHEMA_KEYWORDS.has(key)) {
        out[key] = sub(value, direction, depth, refs);
      } else if (SCHEMA_LIST_KEYWORDS.has(key)) {
        if (Array.isArray(value) && value.length > 0) out[key] = value.map((item) => sub(item, direction, depth, refs));
      } else if (DATA_KEYWORDS.has(key)) {
        out[key] = value;
      } else {
        translateSpecial(key, value, node, out, dependencies, direction, depth, refs);
      }
    }
    if (Object.keys(dependencies).length > 0) out.dependencies = dependencies;
    finishRequired(node, out, direction);
    finishNumbers(node, out);
    finishItems(node, out, direction, depth, refs);
    finishFile(out);
    return out;
  }

  /** Properties hidden in this direction: `readOnly` ones in requests, `writeOnly` ones in responses. */
  function hiddenProperties(node: JsonRecord, direction: Direction): Set<string> {
    const flag = direction === "request" ? "readOnly" : "writeOnly";
    return new Set(
      entriesOf(own(node, "properties"))
        .filter(([, schema]) => own(schema, flag) === true || own(resolve(schema), flag) === true)
        .map(([name]) => name),
    );
  }

  function finishRequired(node: JsonRecord, out: JsonRecord, direction: Direction): void {
    if (!Array.isArray(out.required)) return;
    const hidden = hiddenProperties(node, direction);
    const kept = (out.required as string[]).filter((name) => !hidden.has(name));
    if (kept.length > 0) out.required = kept;
    else delete out.required;
  }

  function translateSpecial(
    key: string,
    value: unknown,
    node: JsonRecord,
    out: JsonRecord,
    dependencies: JsonRecord,
    direction: Direction,
    depth: number,
    refs: Set<string>,
  ): void {
    switch (key) {
      case "type": {
        const types = (Array.isArray(value) ? value : [value]).filter(
          (type): type is string => typeof type === "string" && (SIMPLE_TYPES.has(type) || type === "file"),
        );
        const unique = [...new Set(types)];
        if (unique.length === 1) out.type = unique[0];
        else if (unique.length > 1) out.type = unique;
        return;
      }
      case "format":
        if (typeof value === "string" && KNOWN_FORMATS.has(value)) out.format = value;
        return;
      case "enum":
        if (Array.isArray(value) && value.length > 0) out.enum = uniqueValues(value);
        return;
      case "multipleOf":
        if (typeof value === "number" && Number.isFinite(value) && value > 0) out.multipleOf = value;
        return;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
        return;
      case "pattern":
        if (typeof value === "string" && isValidPattern(value)) out.pattern = value;
        return;
      case "required": {
        if (!Array.isArray(value)) return;
        const required = [...new Set(value.filter((item): item is string => typeof item === "string"))];
        if (required.length > 0) out.required = required;
        return;
      }
      case "properties": {
        if (!isRecord(value)) return;
        const hidden = hiddenProperties(node, direction);
        const properties: JsonRecord = {};
        for (const [name, schema] of Object.entries(value)) {
          if (hidden.has(name)) continue;
          define(properties, name, sub(schema, direction, depth, refs));
        }
        out.properties = properties;
        return;
      }
      case "patternProperties": {
        if (!isRecord(value)) return;
        out.patternProperties = recordFrom(
          Object.entries(value)
            .filter(([pattern]) => isValidPattern(pattern))
            .map(([pattern, schema]) => [pattern, sub(schema, direction, depth, refs)] as const),
        );
        return;
      }
      case "additionalProperties":
        out.additionalProperties = sub(value, direction, depth, refs);
        return;
      case "dependencies":
      case "dependentRequired":
      case "dependentSchemas":
        for (const [name, dependency] of entriesOf(value)) {
          if (Array.isArray(dependency)) {
            define(dependencies, name, [...new Set(dependency.filter((item) => typeof item === "string"))]);
          } else {
            define(dependencies, name, sub(dependency, direction, depth, refs));
          }
        }
        return;
      case "examples":
        if (Array.isArray(value)) out.examples = value;
        return;
      case "example":
        if (!Array.isArray(own(node, "examples"))) out.examples = [value];
        return;
      default:
        // items/prefixItems are handled together afterwards; everything else
        // (discriminator, xml, externalDocs, nullable, x-*, …) is dropped.
        return;
    }
  }

  function finishNumbers(node: JsonRecord, out: JsonRecord): void {
    for (const [exclusive, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (own(node, exclusive) === true && typeof out[bound] === "number") {
        out[exclusive] = out[bound];
        delete out[bound];
      }
    }
  }

  function finishItems(
    node: JsonRecord,
    out: JsonRecord,
    direction: Direction,
    depth: number,
    refs: Set<string>,
  ): void {
    const items = own(node, "items");
    const prefix = own(node, "prefixItems");
    if (Array.isArray(prefix)) {
      out.items = prefix.map((item) => sub(item, direction, depth, refs));
      if (items !== undefined && !Array.isArray(items)) out.additionalItems = sub(items, direction, depth, refs);
    } else if (Array.isArray(items)) {
      out.items = items.map((item) => sub(item, direction, depth, refs));
    } else if (items !== undefined) {
      out.items = sub(items, direction, depth, refs);
    }
  }

  function finishFile(out: JsonRecord): void {
    const type = out.type;
    if (type === "file") {
      out.type = "string";
      out.format = "binary";
    } else if (Array.isArray(type) && type.includes("file")) {
      out.type = [...new Set(type.map((item) => (item === "file" ? "string" : item)))];
      out.format = "binary";
    }
  }

  function root(node: unknown, direction: Direction): { schema: JSONSchema; refs: Set<string> } {
    const refs = new Set<string>();
    let current = node;
    let annotations: JsonRecord = {};
    const seen = new Set<string>();
    let inlined: string | undefined;
    for (let ref = ownString(current, "$ref"); ref !== undefined; ref = ownString(current, "$ref")) {
      if (seen.has(ref)) throw new Error(`Invalid OpenAPI document: $ref "${ref}" is a circular alias`);
      const { $ref: _ignored, ...rest } = current as JsonRecord;
      if (!Object.keys(rest).every((key) => ANNOTATIONS.has(key) || key.startsWith("x-"))) break;
      seen.add(ref);
      // Annotations next to a `$ref` describe this use of the target: they win over the target's own.
      annotations = { ...keywords(rest, direction, 0, refs), ...annotations };
      inlined = nameFor(ref);
      current = valueAt(document, refTokens(ref));
    }
    const translated = translate(current, direction, 0, refs);
    const schema = typeof translated === "boolean" ? (translated ? {} : { not: {} }) : { ...translated };
    const out: JsonRecord = { ...schema, ...annotations };
    // The inlined schema keeps its name, so docs and types can call it by the name its `$defs` entry has.
    if (inlined !== undefined && ownString(current, "$ref") === undefined) out[SCHEMA_NAME_KEYWORD] = inlined;
    tidyValues(out, resolver(direction));
    return { schema: out, refs };
  }

  /** `#/$defs/<Name>` → the translated schema, for checking values (no tidying: values do not affect validity). */
  function resolver(direction: Direction): RefResolver {
    return (ref) => {
      if (!ref.startsWith("#/$defs/")) return undefined;
      const name = ref.slice("#/$defs/".length);
      return pointers.has(name) ? defBody(name, direction).schema : undefined;
    };
  }

  function conforming(values: readonly unknown[], schema: JSONSchema, direction: Direction): unknown[] {
    return conformingValues(values, schema, resolver(direction));
  }

  function defBody(name: string, direction: Direction): Translated {
    const key = `${direction}\u0000${name}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const refs = new Set<string>();
    const tokens = pointers.get(name)!;
    const entry: Translated = { schema: translate(valueAt(document, tokens), direction, 0, refs), refs };
    cache.set(key, entry);
    return entry;
  }

  function defs(start: Iterable<string>, direction: Direction): Record<string, JSONSchema | boolean> {
    const needed = new Set<string>();
    const queue = [...start];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (needed.has(name)) continue;
      needed.add(name);
      queue.push(...defBody(name, direction).refs);
    }
    const sorted = [...needed].sort();
    for (const name of sorted) checkAlias(name, direction);
    const entries = sorted.map((name) => [name, defBody(name, direction)] as const);
    const resolve = resolver(direction);
    for (const [, entry] of entries) {
      if (entry.tidied) continue;
      entry.tidied = true;
      tidyValues(entry.schema, resolve);
    }
    return recordFrom(entries.map(([name, entry]) => [name, entry.schema] as const));
  }

  /** A chain of pure aliases (`A: {$ref: B}`, `B: {$ref: A}`) would send ajv into endless recursion. */
  function checkAlias(start: string, direction: Direction): void {
    const seen = new Set<string>();
    let name: string | undefined = start;
    while (name !== undefined) {
      if (seen.has(name)) {
        throw new Error(
          `Invalid OpenAPI document: schema $ref chain through "${start}" is circular and never reaches a schema`,
        );
      }
      seen.add(name);
      const schema: unknown = defBody(name, direction).schema;
      const keys = isRecord(schema) ? Object.keys(schema) : [];
      const ref = keys.length === 1 ? ownString(schema, "$ref") : undefined;
      name = ref?.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
    }
  }

  return { root, defs, resolve, conforming };
}

/** draft-07 requires distinct `enum` values. */
function uniqueValues(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value) ?? "undefined";
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Apply OpenAPI 3.0 `nullable: true` (and Swagger's `x-nullable`) to a translated schema. */
function withNullable(out: JSONSchema, node: JsonRecord): JSONSchema {
  if (own(node, "nullable") !== true && own(node, "x-nullable") !== true) return out;
  const composed = COMPOSITIONS.some((key) => Object.hasOwn(out, key));
  if (!composed && out.type !== undefined) {
    const types = Array.isArray(out.type) ? out.type : [out.type];
    const result: JsonRecord = { ...out, type: types.includes("null") ? types : [...types, "null"] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) result.enum = [...out.enum, null];
    return result;
  }
  const annotations: JsonRecord = {};
  const rest: JsonRecord = {};
  for (const [key, value] of Object.entries(out)) {
    if (key === "title" || key === "description") annotations[key] = value;
    else rest[key] = value;
  }
  if (Object.keys(rest).length === 0) return out;
  return { ...annotations, anyOf: [rest, { type: "null" }] };
}
