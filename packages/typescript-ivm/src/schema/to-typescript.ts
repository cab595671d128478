import { constraintTags } from "./constraints.js";
import { htmlToMarkdown } from "./html-markdown.js";
import { type NamedType, NamedTypes } from "./named-types.js";
import {
  constrainsOtherKinds,
  description,
  isSchemaObject,
  looksLikeObject,
  members,
  propertiesOf,
  propertyKey,
  requiredOf,
  type Schema,
  type SchemaObject,
  stringLiteral,
  typesOf,
} from "./schema.js";

const INDENT = "  ";
const MAX_DEPTH = 40;
const SIMPLE_TYPE = /^[A-Za-z_$][A-Za-z0-9_$.]*$/;

/** How much of a type to show. The defaults give complete, valid TypeScript; the limits are for indexes. */
export interface TypeStyle {
  /** Doc comments (descriptions, constraints) on properties. Default: true. */
  comments?: boolean;
  /** Object literals nested deeper than this become `{…}`. */
  maxLevel?: number;
  /** Objects show at most this many properties, then `…`. */
  maxProperties?: number;
  /** Literal unions show at most this many members, then `…`. */
  maxUnion?: number;
  /** Object literals on one line. */
  oneLine?: boolean;
}

/**
 * Turns JSON Schemas into TypeScript types, with the named types of a
 * {@link NamedTypes} referred to by name (declare them with
 * {@link declaration}).
 *
 * Mapping: objects → object literal types (`required` decides `?`);
 * `additionalProperties: false` closes an object, a schema or `true` adds an
 * index signature, and an absent one leaves an object with declared
 * properties closed (so a misspelt parameter is a type error) while an
 * object without properties stays open; a `required` name without a
 * declared property is a required `unknown` one; arrays → `T[]` / tuples
 * (elements past `minItems` optional, then a rest element per
 * `items`/`additionalItems`); `enum`/`const` → literal unions;
 * `anyOf`/`oneOf` → unions; `allOf` → intersections; `type: [..., "null"]`
 * and OpenAPI's `nullable` → `| null`; anything else → `unknown`.
 *
 * Without `type`, a keyword constrains only values of its own kind (JSON
 * Schema), so it says nothing about which kind the value is. Object keywords
 * alone still give an object type: OpenAPI documents routinely leave out
 * `type: object` beside `properties`. Any other kind's keyword (Slack's
 * `{ items: { anyOf: […] } }`, whose values are in fact the elements; or
 * `properties` beside `pattern`) gives `any`: every value is valid input, and
 * a program reads the result as the API's authors meant rather than being
 * refused. Beside other parts (`allOf`, `anyOf`, a `$ref`) such an `any`
 * adds no constraint, so it is left out of the intersection.
 */
export class TypeEmitter {
  constructor(
    private readonly types: NamedTypes,
    private readonly style: TypeStyle = {},
  ) {}

  /** The type of root `index`: its name when it is a named type, else its body. */
  root(index: number): string {
    return this.types.rootName(index) ?? this.body(this.types.rootSchema(index), index);
  }

  /** `type Name = …;` with the type's doc comment, lines prefixed with `indent`. */
  declaration(type: NamedType, indent = ""): string {
    const doc = this.style.comments === false ? undefined : docComment(type.schema);
    const text = `${doc === undefined ? "" : `${doc}\n`}type ${type.name} = ${this.body(type.schema, type.root)};`;
    return indentLines(text, indent);
  }

  /** The type of `schema` itself (not its name, even when it is a named type); its `$ref`s are relative to root `root`. */
  body(schema: Schema, root: number): string {
    return this.convert(schema, root, 0, 0, true);
  }

  private convert(schema: Schema, root: number, depth: number, level: number, itself = false): string {
    if (schema === true) return "unknown";
    if (schema === false) return "never";
    if (!itself) {
      const name = this.types.annotatedName(schema);
      if (name !== undefined) return name;
    }
    if (depth > MAX_DEPTH) return "unknown";
    const parts: string[] = [];
    const base = this.baseType(schema, root, depth, level);
    if (base !== undefined) parts.push(base);
    if (typeof schema.$ref === "string") parts.push(this.types.refType(root, schema.$ref) ?? "unknown");
    for (const member of members(schema, "allOf")) parts.push(this.convert(member, root, depth + 1, level));
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const options = members(schema, keyword);
      if (options.length > 0) parts.push(union(options.map((option) => this.convert(option, root, depth + 1, level))));
    }
    let result = intersection(parts);
    if (schema.nullable === true && result !== "unknown" && result !== "any") result = union([result, "null"]);
    return result;
  }

  private baseType(schema: SchemaObject, root: number, depth: number, level: number): string | undefined {
    if ("const" in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) return this.literalUnion(schema.enum);
    const types = typesOf(schema);
    if (types.length === 0) {
      if (constrainsOtherKinds(schema)) return "any";
      if (looksLikeObject(schema)) return this.objectType(schema, root, depth, level);
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

  private literalUnion(values: unknown[]): string {
    const max = this.style.maxUnion;
    if (max === undefined || values.length <= max) return union(values.map(literal));
    return `${union(values.slice(0, max).map(literal))} | …`;
  }

  private arrayType(schema: SchemaObject, root: number, depth: number, level: number): string {
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : null;
    if (tuple !== null) {
      // An array shorter than the tuple is valid down to `minItems`, and one longer unless the rest is `false`
      // (or `maxItems` stops it): a fixed tuple would refuse both.
      const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
      const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
      const elements = tuple.map((item: unknown, index) => {
        const type = this.convert(asSchema(item), root, depth + 1, level);
        return index < minItems ? type : `${SIMPLE_TYPE.test(type) ? type : `(${type})`}?`;
      });
      const closed = rest === false || (typeof schema.maxItems === "number" && schema.maxItems <= tuple.length);
      if (!closed) elements.push(`...${arrayOf(this.convert(asSchema(rest ?? true), root, depth + 1, level))}`);
      return `[${elements.join(", ")}]`;
    }
    if (schema.items === undefined) return "unknown[]";
    return arrayOf(this.convert(asSchema(schema.items), root, depth + 1, level));
  }

  private objectType(schema: SchemaObject, root: number, depth: number, level: number): string {
    const properties = propertiesOf(schema);
    const { maxLevel, maxProperties, oneLine } = this.style;
    if (maxLevel !== undefined && level > maxLevel && properties.length > 0) return "{…}";
    const required = requiredOf(schema);
    const inner = oneLine ? "" : INDENT.repeat(level + 1);
    const lines: string[] = [];
    const shown = maxProperties === undefined ? properties : properties.slice(0, maxProperties);
    for (const [name, property] of shown) {
      const doc = this.style.comments === false ? undefined : docComment(property);
      if (doc !== undefined) lines.push(indentLines(doc, inner));
      const optional = required.has(name) ? "" : "?";
      lines.push(`${inner}${propertyKey(name)}${optional}: ${this.convert(property, root, depth + 1, level + 1)};`);
    }
    if (shown.length < properties.length) lines.push(`${inner}…`);
    const additional = schema.additionalProperties;
    const patterned = isSchemaObject(schema.patternProperties);
    // A required name with no declared property (DigitalOcean's `apps_create`) is still required, of whatever type
    // the other keywords allow: left out, a closed object could not hold the one valid value.
    const declared = new Set(properties.map(([name]) => name));
    for (const name of required) {
      if (declared.has(name)) continue;
      const value =
        isSchemaObject(additional) && !patterned ? this.convert(additional, root, depth + 1, level + 1) : "unknown";
      lines.push(`${inner}${propertyKey(name)}: ${value};`);
    }
    const open =
      additional === true ||
      isSchemaObject(additional) ||
      patterned ||
      (additional === undefined && properties.length === 0);
    if (open) {
      // With declared properties (or pattern properties, whose values `additionalProperties` does not govern) the
      // index signature must admit their types too; `unknown` always does.
      const value =
        isSchemaObject(additional) && properties.length === 0 && !patterned
          ? this.convert(additional, root, depth + 1, level + 1)
          : "unknown";
      lines.push(`${inner}[key: string]: ${value};`);
    }
    if (lines.length === 0) return "Record<string, never>";
    if (oneLine) return `{ ${lines.join(" ")} }`;
    return `{\n${lines.join("\n")}\n${INDENT.repeat(level)}}`;
  }
}

/**
 * `type <name> = …;` for each of `roots` (name → schema), then every named
 * type they use, each once: a small, self-contained block of declarations
 * (tool pages, tests).
 */
export function declareAll(roots: [string, Schema][], style: TypeStyle = {}): string {
  const types = new NamedTypes(
    roots.map(([name, schema]) => ({ schema, alias: name })),
    roots.map(([name]) => name),
  );
  const emitter = new TypeEmitter(types, style);
  const lines = roots.map(([name, schema], index) => {
    const doc = style.comments === false ? undefined : docComment(schema);
    return `${doc === undefined ? "" : `${doc}\n`}type ${name} = ${emitter.root(index)};`;
  });
  for (const type of types.declarations) lines.push(emitter.declaration(type));
  return lines.join("\n");
}

function indentLines(text: string, indent: string): string {
  return indent === "" ? text : text.replace(/^/gm, indent);
}

function asSchema(value: unknown): Schema {
  return typeof value === "boolean" || isSchemaObject(value) ? value : true;
}

function literal(value: unknown): string {
  if (typeof value === "string") return stringLiteral(value);
  if (typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return JSON.stringify(value);
  return "unknown";
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("unknown")) return "unknown";
  if (unique.includes("any")) return "any";
  const kept = unique.filter((type) => type !== "never");
  if (kept.length === 0) return "never";
  return kept.join(" | ");
}

function intersection(types: string[]): string {
  const known = [...new Set(types)].filter((type) => type !== "unknown");
  // `any` here is a schema that adds no constraint we can write (see the class comment): the others decide.
  const kept = known.length > 1 ? known.filter((type) => type !== "any") : known;
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

/**
 * A JSDoc comment from the schema's description (HTML turned into Markdown)
 * and its constraints (`@minimum 1 @default 3`), or undefined when there is
 * nothing to say. One line when it fits on one.
 */
export function docComment(schema: Schema): string | undefined {
  const text = description(schema);
  const tags = constraintTags(schema);
  const markdown = text === undefined ? undefined : htmlToMarkdown(text).replace(/\*\//g, "*\\/");
  const parts = [markdown, tags === "" ? undefined : tags.replace(/\*\//g, "*\\/")].filter(
    (part): part is string => part !== undefined && part !== "",
  );
  if (parts.length === 0) return undefined;
  const joined = parts.join(" ");
  if (!joined.includes("\n")) return `/** ${joined} */`;
  return [
    "/**",
    ...parts
      .join("\n")
      .split("\n")
      .map((line) => (line === "" ? " *" : ` * ${line}`)),
    " */",
  ].join("\n");
}
