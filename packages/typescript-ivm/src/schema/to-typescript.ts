import {
  description,
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

const INDENT = "  ";
const MAX_DEPTH = 40;
const SIMPLE_TYPE = /^[A-Za-z_$][A-Za-z0-9_$.]*$/;
/** Global names the generated types use (or a reader expects); `$defs` aliases never shadow them. */
const GLOBAL_TYPES = [
  "Array",
  "Record",
  "Promise",
  "Object",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "Function",
  "Date",
  "Error",
  "Map",
  "Set",
  "Partial",
  "Readonly",
  "Pick",
  "Omit",
];

interface Root {
  name: string;
  schema: Schema;
}

/**
 * Turns JSON Schemas into TypeScript type aliases. Each schema passed to
 * {@link declare} becomes `type <name> = …`; every local `$ref` it uses
 * becomes a further alias (registered before its body is converted, so
 * recursive schemas end up as recursive aliases instead of looping).
 *
 * Mapping: objects → object literal types (`required` decides `?`);
 * `additionalProperties: false` closes an object, a schema or `true` adds an
 * index signature, and an absent one leaves an object with declared
 * properties closed (so a misspelt parameter is a type error) while an
 * object without properties stays open; arrays → `T[]` / tuples;
 * `enum`/`const` → literal unions; `anyOf`/`oneOf` → unions; `allOf` →
 * intersections; `type: [..., "null"]` and OpenAPI's `nullable` → `| null`;
 * anything else → `unknown`.
 */
export class TypeEmitter {
  private readonly aliases = new Map<string, string>();
  private readonly refNames = new Map<string, string>();
  private readonly taken = new Set<string>(GLOBAL_TYPES);

  /** Declares `type <name> = <schema>`; `name` must be unique within the emitter. */
  declare(name: string, schema: Schema): void {
    this.taken.add(name);
    this.aliases.set(name, "unknown");
    this.aliases.set(name, this.convert(schema, { name, schema }, 0, 0));
  }

  /** `type X = …;` lines in declaration order, each line prefixed with `indent`. */
  render(indent = ""): string {
    const lines: string[] = [];
    for (const [name, body] of this.aliases) {
      const text = `type ${name} = ${body};`;
      lines.push(...text.split("\n").map((line) => indent + line));
    }
    return lines.join("\n");
  }

  private convert(schema: Schema, root: Root, depth: number, level: number): string {
    if (schema === true) return "unknown";
    if (schema === false) return "never";
    if (depth > MAX_DEPTH) return "unknown";
    const parts: string[] = [];
    const base = this.baseType(schema, root, depth, level);
    if (base !== undefined) parts.push(base);
    if (typeof schema.$ref === "string") parts.push(this.refType(schema.$ref, root, depth));
    for (const member of members(schema, "allOf")) parts.push(this.convert(member, root, depth + 1, level));
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const options = members(schema, keyword);
      if (options.length > 0) parts.push(union(options.map((option) => this.convert(option, root, depth + 1, level))));
    }
    let result = intersection(parts);
    if (schema.nullable === true && result !== "unknown") result = union([result, "null"]);
    return result;
  }

  private baseType(schema: SchemaObject, root: Root, depth: number, level: number): string | undefined {
    if ("const" in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
    const types = typesOf(schema);
    if (types.length === 0) {
      if (looksLikeObject(schema)) return this.objectType(schema, root, depth, level);
      if (looksLikeArray(schema)) return this.arrayType(schema, root, depth, level);
      return undefined;
    }
    return union(
      types.map((type) => {
        switch (type) {
          case "string":
          case "boolean":
          case "null":
            return type;
          case "number":
          case "integer":
            return "number";
          case "array":
            return this.arrayType(schema, root, depth, level);
          case "object":
            return this.objectType(schema, root, depth, level);
          default:
            return "unknown";
        }
      }),
    );
  }

  private refType(ref: string, root: Root, depth: number): string {
    if (ref === "#") return root.name;
    const key = `${root.name}\u0000${ref}`;
    const known = this.refNames.get(key);
    if (known !== undefined) return known;
    const target = resolveRef(root.schema, ref);
    if (target === undefined || depth > MAX_DEPTH) return "unknown";
    const name = this.freshName(ref);
    this.refNames.set(key, name);
    this.aliases.set(name, "unknown");
    this.aliases.set(name, this.convert(target, root, depth + 1, 0));
    return name;
  }

  private freshName(ref: string): string {
    const last = ref.split("/").pop() ?? "Type";
    const cleaned = decodeURIComponent(last)
      .replace(/[^A-Za-z0-9_$]+/g, "_")
      .replace(/^(?=[0-9])/, "_");
    const base = cleaned === "" ? "Type" : cleaned[0]?.toUpperCase() + cleaned.slice(1);
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    return name;
  }

  private arrayType(schema: SchemaObject, root: Root, depth: number, level: number): string {
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : null;
    if (tuple !== null) {
      const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
      const elements = tuple.map((item: unknown) => this.convert(asSchema(item), root, depth + 1, level));
      if (rest !== undefined && rest !== false)
        elements.push(`...${arrayOf(this.convert(asSchema(rest), root, depth + 1, level))}`);
      return `[${elements.join(", ")}]`;
    }
    if (schema.items === undefined) return "unknown[]";
    return arrayOf(this.convert(asSchema(schema.items), root, depth + 1, level));
  }

  private objectType(schema: SchemaObject, root: Root, depth: number, level: number): string {
    const properties = propertiesOf(schema);
    const required = requiredOf(schema);
    const inner = INDENT.repeat(level + 1);
    const lines: string[] = [];
    for (const [name, property] of properties) {
      const doc = docComment(property);
      if (doc !== undefined) lines.push(`${inner}${doc}`);
      const optional = required.has(name) ? "" : "?";
      lines.push(`${inner}${propertyKey(name)}${optional}: ${this.convert(property, root, depth + 1, level + 1)};`);
    }
    const additional = schema.additionalProperties;
    const open =
      additional === true ||
      isSchemaObject(additional) ||
      isSchemaObject(schema.patternProperties) ||
      (additional === undefined && properties.length === 0);
    if (open) {
      // With declared properties the index signature must admit their types too; `unknown` always does.
      const value =
        isSchemaObject(additional) && properties.length === 0
          ? this.convert(additional, root, depth + 1, level + 1)
          : "unknown";
      lines.push(`${inner}[key: string]: ${value};`);
    }
    if (lines.length === 0) return "Record<string, never>";
    return `{\n${lines.join("\n")}\n${INDENT.repeat(level)}}`;
  }
}

function asSchema(value: unknown): Schema {
  return typeof value === "boolean" || isSchemaObject(value) ? value : true;
}

function literal(value: unknown): string {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return JSON.stringify(value);
  return "unknown";
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("unknown")) return "unknown";
  const kept = unique.filter((type) => type !== "never");
  if (kept.length === 0) return "never";
  return kept.join(" | ");
}

function intersection(types: string[]): string {
  const kept = [...new Set(types)].filter((type) => type !== "unknown");
  if (kept.length === 0) return "unknown";
  if (kept.length === 1) return kept[0] as string;
  return kept.map((type) => (hasTopLevelUnion(type) ? `(${type})` : type)).join(" & ");
}

/** Whether `type` is a union at its outermost level (a `|` outside any brackets or string literal). */
function hasTopLevelUnion(type: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === "{" || char === "(" || char === "[" || char === "<") depth++;
    else if (char === "}" || char === ")" || char === "]" || char === ">") depth--;
    else if (char === "|" && depth === 0) return true;
  }
  return false;
}

function arrayOf(element: string): string {
  return SIMPLE_TYPE.test(element) ? `${element}[]` : `Array<${element}>`;
}

/** A JSDoc line from the schema's description (and default), or undefined when there is nothing to say. */
export function docComment(schema: Schema): string | undefined {
  const text = description(schema);
  const defaultValue = isSchemaObject(schema) && "default" in schema ? JSON.stringify(schema.default) : undefined;
  const parts = [text, defaultValue === undefined ? undefined : `@default ${defaultValue}`].filter(
    (part): part is string => part !== undefined,
  );
  if (parts.length === 0) return undefined;
  return `/** ${parts
    .join(" ")
    .replace(/\*\//g, "*\\/")
    .replace(/\s*\n\s*/g, " ")} */`;
}
