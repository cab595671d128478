import { describe, expect, it } from "vitest";
import { typeErrors } from "../../test/support/typecheck.js";
import { NamedTypes } from "./named-types.js";
import type { Schema } from "./schema.js";
import { declareAll, TypeEmitter } from "./to-typescript.js";

function render(schema: Schema): string {
  return declareAll([["T", schema]]);
}

describe("TypeEmitter", () => {
  it.each<[string, Schema, string]>([
    ["true schema", true, "type T = unknown;"],
    ["false schema", false, "type T = never;"],
    ["empty schema", {}, "type T = unknown;"],
    ["string", { type: "string" }, "type T = string;"],
    ["integer", { type: "integer" }, "type T = number;"],
    ["nullable via type array", { type: ["string", "null"] }, "type T = string | null;"],
    ["OpenAPI nullable", { type: "integer", nullable: true }, "type T = number | null;"],
    ["enum", { enum: ["a", "b", 3, null] }, 'type T = "a" | "b" | 3 | null;'],
    ["const", { const: "fixed" }, 'type T = "fixed";'],
    ["object const", { const: { a: 1 } }, "type T = unknown;"],
    ["array of strings", { type: "array", items: { type: "string" } }, "type T = string[];"],
    ["array of unions", { type: "array", items: { type: ["string", "number"] } }, "type T = Array<string | number>;"],
    ["array without items", { type: "array" }, "type T = unknown[];"],
    [
      "tuple (prefixItems)",
      { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false, minItems: 2 },
      "/** @minItems 2 */\ntype T = [string, number];",
    ],
    [
      "tuple with rest",
      { type: "array", prefixItems: [{ type: "string" }], items: { type: "boolean" }, minItems: 1 },
      "/** @minItems 1 */\ntype T = [string, ...boolean[]];",
    ],
    [
      "tuple: elements past minItems optional, more allowed when items is absent",
      { type: "array", prefixItems: [{ type: "string" }, { enum: ["a", "b"] }], minItems: 1 },
      '/** @minItems 1 */\ntype T = [string, ("a" | "b")?, ...unknown[]];',
    ],
    [
      "tuple closed by maxItems",
      { type: "array", prefixItems: [{ type: "string" }], maxItems: 1 },
      "/** @maxItems 1 */\ntype T = [string?];",
    ],
    ["draft-07 tuple", { type: "array", items: [{ type: "string" }], additionalItems: false }, "type T = [string?];"],
    [
      "draft-07 tuple with additionalItems",
      { type: "array", items: [{ type: "string" }], additionalItems: { type: "number" } },
      "type T = [string?, ...number[]];",
    ],
    ["items without type (any value is valid)", { items: { type: "string" } }, "type T = any;"],
    [
      "object keywords beside another kind's keywords, without type",
      { properties: { a: { type: "string" } }, items: { type: "string" } },
      "type T = any;",
    ],
    [
      "object keywords alone, without type: an object",
      { properties: { a: { type: "string" } } },
      "type T = {\n  a?: string;\n};",
    ],
    [
      "anyOf member with items but no type leaves the object alone",
      {
        type: "object",
        properties: { a: { type: "string" } },
        anyOf: [{ items: { type: "string" } }, { items: { type: "number" } }],
      },
      "type T = {\n  a?: string;\n};",
    ],
    ["nullable without type", { nullable: true, items: {} }, "type T = any;"],
    [
      "required name without a property",
      { type: "object", required: ["spec", "a"], properties: { a: { type: "string" } } },
      "type T = {\n  a: string;\n  spec: unknown;\n};",
    ],
    [
      "required name without a property, typed by additionalProperties",
      { type: "object", required: ["spec"], additionalProperties: { type: "number" } },
      "type T = {\n  spec: number;\n  [key: string]: number;\n};",
    ],
    [
      "pattern properties are not typed by additionalProperties",
      { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: { type: "number" } },
      "type T = {\n  [key: string]: unknown;\n};",
    ],
    [
      "line separators in an enum string are escaped",
      { enum: ["a\u2028b", "c\u2029d"] },
      'type T = "a\\u2028b" | "c\\u2029d";',
    ],
    ["anyOf", { anyOf: [{ type: "string" }, { type: "number" }] }, "type T = string | number;"],
    ["oneOf with unknown member", { oneOf: [{ type: "string" }, {}] }, "type T = unknown;"],
    [
      "allOf",
      {
        allOf: [{ $ref: "#/$defs/A" }, { type: "object", properties: { b: { type: "number" } }, required: ["b"] }],
        $defs: { A: { type: "object", properties: { a: { type: "string" } } } },
      },
      "type T = A & {\n  b: number;\n};\ntype A = {\n  a?: string;\n};",
    ],
    ["untyped map", { type: "object" }, "type T = {\n  [key: string]: unknown;\n};"],
    [
      "typed map",
      { type: "object", additionalProperties: { type: "number" } },
      "type T = {\n  [key: string]: number;\n};",
    ],
    ["closed empty object", { type: "object", additionalProperties: false }, "type T = Record<string, never>;"],
    ["unknown type keyword", { type: "file" }, "type T = unknown;"],
    ["remote ref", { $ref: "https://example.com/schema.json" }, "type T = unknown;"],
  ])("%s", (_label, schema, expected) => {
    expect(render(schema)).toBe(expected);
  });

  it("renders objects: required vs optional, quoted keys, descriptions, defaults, open objects", () => {
    expect(
      render({
        type: "object",
        required: ["id"],
        properties: {
          id: { type: "integer", description: "The id" },
          "x-rate": { type: "number", default: 1 },
          nested: { type: "object", properties: { deep: { type: "boolean" } }, additionalProperties: true },
        },
      }),
    ).toBe(
      [
        "type T = {",
        "  /** The id */",
        "  id: number;",
        "  /** @default 1 */",
        '  "x-rate"?: number;',
        "  nested?: {",
        "    deep?: boolean;",
        "    [key: string]: unknown;",
        "  };",
        "};",
      ].join("\n"),
    );
  });

  it("turns recursive $refs into recursive aliases", () => {
    expect(
      render({
        $ref: "#/definitions/Node",
        definitions: {
          Node: {
            type: "object",
            properties: {
              value: { type: "string" },
              children: { type: "array", items: { $ref: "#/definitions/Node" } },
            },
          },
        },
      }),
    ).toBe("type T = Node;\ntype Node = {\n  value?: string;\n  children?: Node[];\n};");
  });

  it("resolves a ref to the root and never shadows global type names", () => {
    expect(
      declareAll([
        [
          "Input",
          {
            type: "object",
            properties: { self: { $ref: "#" }, list: { $ref: "#/$defs/Array" }, rec: { $ref: "#/$defs/record" } },
            $defs: {
              Array: { type: "array", items: { type: "string" } },
              record: { type: "object", additionalProperties: false },
            },
          },
        ],
      ]),
    ).toBe(
      [
        "type Input = {",
        "  self?: Input;",
        "  list?: Array2;",
        "  rec?: Record2;",
        "};",
        "type Array2 = string[];",
        "type Record2 = Record<string, never>;",
      ].join("\n"),
    );
  });

  it("gives different definitions of one name distinct names, and one definition one name", () => {
    expect(
      declareAll([
        ["Input", { $ref: "#/$defs/Pet", $defs: { Pet: { type: "string" } } }],
        ["Output", { $ref: "#/$defs/Pet", $defs: { Pet: { type: "number" } } }],
      ]),
    ).toBe("type Input = Pet;\ntype Output = Pet2;\ntype Pet = string;\ntype Pet2 = number;");
    expect(
      declareAll([
        ["Input", { $ref: "#/$defs/Pet", $defs: { Pet: { type: "string", description: "as input" } } }],
        ["Output", { type: "array", items: { $ref: "#/$defs/Pet" }, $defs: { Pet: { type: "string" } } }],
      ]),
    ).toBe("type Input = Pet;\ntype Output = Pet[];\n/** as input */\ntype Pet = string;");
  });

  it("calls a schema that names itself (x-cyrnel-name) by that name", () => {
    expect(
      declareAll([
        [
          "Input",
          {
            type: "object",
            properties: {
              body: { "x-cyrnel-name": "Pet", type: "object", properties: { tag: { $ref: "#/$defs/Tag" } } },
            },
            required: ["body"],
            $defs: { Tag: { type: "string" } },
          },
        ],
        [
          "Output",
          {
            "x-cyrnel-name": "Pet",
            type: "object",
            properties: { tag: { $ref: "#/$defs/Tag" } },
            $defs: { Tag: { type: "string" } },
          },
        ],
      ]),
    ).toBe(
      [
        "type Input = {",
        "  body: Pet;",
        "};",
        "type Output = Pet;",
        "type Pet = {",
        "  tag?: Tag;",
        "};",
        "type Tag = string;",
      ].join("\n"),
    );
  });

  it("shows constraints as JSDoc tags and HTML descriptions as Markdown", () => {
    expect(
      render({
        type: "object",
        properties: {
          n: { type: "integer", minimum: 1, maximum: 14, default: 3, description: "<p>Days <b>ahead</b>.</p>" },
          s: { type: "string", pattern: "^[a-z]+$", maxLength: 5, format: "email" },
          l: { type: "array", items: { type: "string" }, minItems: 1, uniqueItems: true },
        },
      }),
    ).toBe(
      [
        "type T = {",
        "  /** Days **ahead**. @minimum 1 @maximum 14 @default 3 */",
        "  n?: number;",
        "  /** @format email @maxLength 5 @pattern ^[a-z]+$ */",
        "  s?: string;",
        "  /** @minItems 1 @uniqueItems */",
        "  l?: string[];",
        "};",
      ].join("\n"),
    );
  });

  it("writes a multi-line description as a block comment", () => {
    expect(render({ type: "string", description: "<p>One.</p><p>Two.</p>" })).toBe(
      "/**\n * One.\n *\n * Two.\n */\ntype T = string;",
    );
  });

  it("shortens types for an index when asked to", () => {
    const types = new NamedTypes([
      {
        schema: {
          type: "object",
          properties: {
            a: { type: "object", properties: { b: { type: "object", properties: { c: { type: "string" } } } } },
            e: { enum: ["v1", "v2", "v3", "v4"] },
            f: { type: "string" },
          },
        },
        alias: "Input",
      },
    ]);
    const emitter = new TypeEmitter(types, {
      comments: false,
      oneLine: true,
      maxLevel: 1,
      maxProperties: 2,
      maxUnion: 2,
    });
    expect(emitter.root(0)).toBe('{ a?: { b?: {…}; }; e?: "v1" | "v2" | …; … }');
  });
});

/** The values JSON Schema accepts must be assignable to the rendered type (no program refused for a valid input). */
describe("valid values are assignable", () => {
  it.each<[string, Schema, string]>([
    [
      "Slack's items-only object, read as the object it is",
      { items: { anyOf: [{ type: "object" }] } },
      "{ name: 'general' }",
    ],
    ["a string where only arrays are constrained", { items: { type: "number" } }, '"text"'],
    ["a short tuple", { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }, '["a"]'],
    ["a long tuple", { type: "array", prefixItems: [{ type: "string" }], minItems: 1 }, '["a", 2, true]'],
    [
      "the object a required-only name demands (DigitalOcean apps_create)",
      { type: "object", required: ["spec"], properties: { project_id: { type: "string" } } },
      '{ spec: { name: "app" }, project_id: "p" }',
    ],
    [
      "an object beside an array-guessed anyOf member",
      {
        type: "object",
        properties: { a: { type: "string" } },
        anyOf: [{ items: { type: "string" } }, { items: { type: "number" } }],
      },
      '{ a: "x" }',
    ],
    [
      "a pattern property's value",
      { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: { type: "number" } },
      '{ "x-id": "s", other: 1 }',
    ],
    ["an enum string with U+2028", { type: "object", properties: { e: { enum: ["a\u2028b"] } } }, '{ e: "a\\u2028b" }'],
    [
      "null for a nullable $ref and a nullable allOf (OpenAPI 3.0)",
      {
        type: "object",
        properties: { a: { $ref: "#/$defs/A", nullable: true }, b: { allOf: [{ $ref: "#/$defs/A" }], nullable: true } },
        $defs: { A: { type: "object", properties: { x: { type: "string" } } } },
      },
      "{ a: null, b: null }",
    ],
    [
      "a member of a oneOf with a discriminator",
      {
        oneOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }],
        discriminator: { propertyName: "kind", mapping: { cat: "#/$defs/Cat", dog: "#/$defs/Dog" } },
        $defs: {
          Cat: {
            type: "object",
            required: ["kind"],
            properties: { kind: { type: "string" }, meows: { type: "boolean" } },
          },
          Dog: {
            type: "object",
            required: ["kind"],
            properties: { kind: { type: "string" }, barks: { type: "boolean" } },
          },
        },
      },
      '{ kind: "cat", meows: true }',
    ],
    [
      "the properties of every allOf member together",
      {
        allOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { type: "object", required: ["b"], properties: { b: { type: "number" } } },
        ],
      },
      '{ a: "x", b: 1 }',
    ],
    [
      "declared properties beside additionalProperties of another type",
      { type: "object", properties: { n: { type: "number" } }, additionalProperties: { type: "string" } },
      '{ n: 1, s: "x" }',
    ],
    [
      "a recursive value",
      {
        $ref: "#/$defs/Node",
        $defs: {
          Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } },
        },
      },
      "{ children: [{ children: [] }, {}] }",
    ],
  ])("%s", (_label, schema, value) => {
    const declarations = declareAll([["T", schema]]).replace(/^/gm, "  ");
    expect(
      typeErrors({ "main.ts": `namespace N {\n${declarations}\n  export const value: T = ${value};\n}\n` }),
    ).toEqual([]);
  });
});

describe("operator precedence", () => {
  it("parenthesises unions inside intersections only at the top level", () => {
    expect(
      render({
        allOf: [
          { anyOf: [{ type: "string" }, { type: "number" }] },
          { type: "object", properties: { a: { enum: ["x|y", "z"] } } },
        ],
      }),
    ).toBe('type T = (string | number) & {\n  a?: "x|y" | "z";\n};');
  });
});
