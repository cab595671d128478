import { describe, expect, it } from "vitest";
import { exampleValue, toSourceLiteral } from "./example.js";
import type { Schema } from "./schema.js";

describe("exampleValue", () => {
  it.each<[string, Schema, unknown]>([
    ["examples win", { type: "string", examples: ["Oslo"], default: "x" }, "Oslo"],
    ["OpenAPI example", { type: "integer", example: 7 }, 7],
    ["default", { type: "boolean", default: false }, false],
    ["const", { const: "v1" }, "v1"],
    ["first enum value", { enum: ["celsius", "fahrenheit"] }, "celsius"],
    ["plain string", { type: "string" }, "example"],
    ["date-time", { type: "string", format: "date-time" }, "2024-01-01T12:00:00Z"],
    ["email", { type: "string", format: "email" }, "user@example.com"],
    ["integer with minimum", { type: "integer", minimum: 10 }, 10],
    ["integer with exclusive minimum", { type: "integer", exclusiveMinimum: 0 }, 1],
    ["number", { type: "number" }, 1.5],
    ["nullable string picks the string", { type: ["null", "string"] }, "example"],
    ["array", { type: "array", items: { type: "integer" } }, [1]],
    ["array without items", { type: "array" }, []],
    ["tuple", { type: "array", prefixItems: [{ type: "string" }, { type: "boolean" }] }, ["example", true]],
    ["anyOf skips null", { anyOf: [{ type: "null" }, { type: "number" }] }, 1.5],
    [
      "object: required properties only",
      { type: "object", required: ["city"], properties: { city: { type: "string" }, days: { type: "integer" } } },
      { city: "example" },
    ],
    [
      "allOf merges objects",
      {
        allOf: [
          { type: "object", required: ["a"], properties: { a: { type: "string" } } },
          { type: "object", required: ["b"], properties: { b: { type: "integer" } } },
        ],
      },
      { a: "example", b: 1 },
    ],
    [
      "oneOf keeps the parent's required properties",
      {
        type: "object",
        required: ["kind", "size"],
        properties: { size: { type: "integer" } },
        oneOf: [{ properties: { kind: { const: "box" } } }],
      },
      { kind: "box", size: 1 },
    ],
    [
      "refs and recursion",
      {
        type: "object",
        required: ["root"],
        properties: { root: { $ref: "#/$defs/Node" } },
        $defs: {
          Node: {
            type: "object",
            required: ["name", "child"],
            properties: { name: { type: "string" }, child: { $ref: "#/$defs/Node" } },
          },
        },
      },
      { root: { name: "example", child: null } },
    ],
  ])("%s", (_label, schema, expected) => {
    expect(exampleValue(schema)).toEqual(expected);
  });
});

describe("toSourceLiteral", () => {
  it("prints JavaScript with bare identifier keys", () => {
    expect(toSourceLiteral({ city: "Oslo", "x-y": [1, { ok: true }], empty: {}, none: [] })).toBe(
      [
        "{",
        '  city: "Oslo",',
        '  "x-y": [',
        "    1,",
        "    {",
        "      ok: true,",
        "    },",
        "  ],",
        "  empty: {},",
        "  none: [],",
        "}",
      ].join("\n"),
    );
  });
});
