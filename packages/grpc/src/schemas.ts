import { type JSONSchema, SCHEMA_NAME_KEYWORD } from "@cyrnel/sdk";
import { jsonName, typeNames } from "./names.js";
import { type Enum, type Field, protobuf, type Root, type Type } from "./protobuf.js";
import { SCALAR_SCHEMAS, WELL_KNOWN_SCHEMAS } from "./well-known.js";

/**
 * Stage 3: message types → JSON Schema (draft-07), by the proto3 JSON
 * mapping (`well-known.ts` for scalars and well-known types).
 *
 * - Every message and enum type is a named type: `{"$ref": "#/$defs/<Name>"}`
 *   wherever it is used (names from `names.ts`), and each tool schema
 *   carries the `$defs` it reaches. Recursive messages stay finite this
 *   way, and a type used by many tools is declared once by environments.
 *   The root (a method's request or response) is inlined and keeps its name
 *   as `x-cyrnel-name`.
 * - Properties are the fields' JSON names (`user_name` → `userName`);
 *   `additionalProperties: false`. Required: proto2 `required` fields only.
 *   proto3 fields are optional on input (absent means the default) — on
 *   output every field without presence is always there (see `values.ts`),
 *   but the same schema serves both, so they are not listed as required.
 * - A oneof with several members: at most one of them may be set, written
 *   as `not: {anyOf: [{required: [a, b]}, …]}` over each pair (an unset
 *   oneof is valid).
 * - Repeated → array; map → object whose values follow the value type.
 * - Enums by name (`{"type": "string", "enum": [...]}`);
 *   `google.protobuf.NullValue` → `null`.
 * - Comments become `description`s.
 */
export class SchemaEmitter {
  private readonly names: Map<string, string>;
  private readonly bodies = new Map<string, JSONSchema>();
  /** Per named type: the names its body refers to directly. */
  private readonly edges = new Map<string, Set<string>>();
  private readonly byName = new Map<string, Type | Enum>();

  constructor(root: Root) {
    this.names = typeNames(root);
  }

  /** Schema of a method's request or response message, standing alone (inlined body, `$defs` it needs). */
  rootSchema(type: Type): JSONSchema {
    const special = WELL_KNOWN_SCHEMAS[type.fullName];
    if (special) return { $schema: "http://json-schema.org/draft-07/schema#", ...special };
    const name = this.nameOf(type);
    const body = this.body(name);
    const defs = this.reachable(name);
    return {
      $schema: "http://json-schema.org/draft-07/schema#",
      [SCHEMA_NAME_KEYWORD]: name,
      ...body,
      ...(defs.length > 0 ? { $defs: Object.fromEntries(defs.map((def) => [def, this.body(def)])) } : {}),
    };
  }

  /** Like {@link rootSchema}, for the array of messages a server-streaming method returns. */
  streamSchema(type: Type, maxItems: number): JSONSchema {
    const { $schema, $defs, ...item } = this.rootSchema(type);
    return {
      $schema,
      type: "array",
      items: item,
      description: `The messages the server streamed, in order (at most ${maxItems}).`,
      ...($defs === undefined ? {} : { $defs }),
    };
  }

  private nameOf(type: Type | Enum): string {
    const name = this.names.get(type.fullName);
    if (name === undefined) throw new Error(`internal: type ${type.fullName} has no name`);
    this.byName.set(name, type);
    return name;
  }

  /** Named types reachable from `name` (itself only if it is recursive), sorted. */
  private reachable(name: string): string[] {
    const seen = new Set<string>();
    const stack = [...this.edgesOf(name)];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...this.edgesOf(next));
    }
    return [...seen].sort();
  }

  private edgesOf(name: string): Set<string> {
    this.body(name);
    return this.edges.get(name)!;
  }

  private body(name: string): JSONSchema {
    const known = this.bodies.get(name);
    if (known) return known;
    const type = this.byName.get(name)!;
    const edges = new Set<string>();
    this.edges.set(name, edges);
    const body = type instanceof protobuf.Enum ? enumSchema(type) : this.messageSchema(type, edges);
    this.bodies.set(name, body);
    return body;
  }

  private messageSchema(type: Type, edges: Set<string>): JSONSchema {
    const properties: Record<string, JSONSchema> = {};
    const required: string[] = [];
    for (const field of type.fieldsArray) {
      const key = jsonName(field);
      properties[key] = this.fieldSchema(field, edges);
      if (field.required) required.push(key);
    }
    const pairs: JSONSchema[] = [];
    for (const oneof of type.oneofsArray) {
      const members = oneof.fieldsArray.map(jsonName);
      for (let i = 0; i < members.length; i++) {
        for (let j = i + 1; j < members.length; j++) pairs.push({ required: [members[i], members[j]] });
      }
    }
    return {
      type: "object",
      ...describe(type.comment),
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
      ...(pairs.length > 0 ? { not: { anyOf: pairs } } : {}),
    };
  }

  private fieldSchema(field: Field, edges: Set<string>): JSONSchema {
    const value = this.valueSchema(field.resolvedType, field.type, edges);
    let schema: JSONSchema;
    if (field instanceof protobuf.MapField) {
      schema = {
        type: "object",
        additionalProperties: value,
        ...(KEY_PATTERNS[field.keyType] ? { propertyNames: { pattern: KEY_PATTERNS[field.keyType] } } : {}),
      };
    } else if (field.repeated) {
      schema = { type: "array", items: value };
    } else {
      schema = { ...value };
    }
    const notes = [field.comment, field.partOf && field.partOf.fieldsArray.length > 1 ? oneofNote(field) : null];
    const text = notes.filter((note): note is string => typeof note === "string" && note.trim() !== "").join("\n\n");
    if (text !== "") {
      const own = typeof schema.description === "string" && !schema.$ref ? `\n\n${schema.description}` : "";
      schema.description = `${text.trim()}${own}`;
    }
    return schema;
  }

  private valueSchema(resolved: Type | Enum | null, scalar: string, edges: Set<string>): JSONSchema {
    if (resolved === null) {
      const schema = SCALAR_SCHEMAS[scalar];
      if (!schema) throw new Error(`unsupported field type "${scalar}"`);
      return { ...schema };
    }
    if (resolved.fullName === ".google.protobuf.NullValue") return { type: "null" };
    const special = WELL_KNOWN_SCHEMAS[resolved.fullName];
    if (special) return { ...special };
    const name = this.nameOf(resolved);
    edges.add(name);
    return { $ref: `#/$defs/${name}` };
  }
}

/** Map keys are strings in JSON; integer and bool keys must look like one. */
const KEY_PATTERNS: Record<string, string> = {
  int32: "^-?[0-9]+$",
  sint32: "^-?[0-9]+$",
  sfixed32: "^-?[0-9]+$",
  int64: "^-?[0-9]+$",
  sint64: "^-?[0-9]+$",
  sfixed64: "^-?[0-9]+$",
  uint32: "^[0-9]+$",
  fixed32: "^[0-9]+$",
  uint64: "^[0-9]+$",
  fixed64: "^[0-9]+$",
  bool: "^(true|false)$",
};

function oneofNote(field: Field): string {
  const others = field.partOf!.fieldsArray.filter((other) => other !== field).map(jsonName);
  return `One of "${field.partOf!.name}": not together with ${others.map((name) => `"${name}"`).join(", ")}.`;
}

function enumSchema(type: Enum): JSONSchema {
  const values = Object.keys(type.values);
  const documented = values.filter((value) => type.comments[value]);
  const lines = documented.map((value) => `- ${value}: ${type.comments[value]!.replace(/\s+/g, " ").trim()}`);
  const text = [type.comment, lines.length > 0 ? lines.join("\n") : null].filter(Boolean).join("\n\n");
  return { type: "string", enum: values, ...describe(text) };
}

function describe(text: string | null | undefined): { description?: string } {
  return typeof text === "string" && text.trim() !== "" ? { description: text.trim() } : {};
}
