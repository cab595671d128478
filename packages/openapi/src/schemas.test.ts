import { describe, expect, it } from "vitest";
import { hostAjv } from "../test/helpers/ajv.js";
import type { JsonRecord } from "./records.js";
import { createSchemaEmitter, type Direction } from "./schemas.js";

function emit(
  schema: unknown,
  direction: Direction = "request",
  version: "2.0" | "3.0" | "3.1" = "3.0",
  components = {},
) {
  const document: JsonRecord =
    version === "2.0"
      ? { swagger: "2.0", definitions: components }
      : { openapi: version, components: { schemas: components } };
  const emitter = createSchemaEmitter(document, version);
  const { schema: root, refs } = emitter.root(schema, direction);
  const defs = emitter.defs(refs, direction);
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}

describe("keyword translation", () => {
  it.each<[string, unknown, unknown, ("2.0" | "3.0" | "3.1")?]>([
    ["nullable type", { type: "string", nullable: true }, { type: ["string", "null"] }],
    ["nullable enum", { type: "string", enum: ["a"], nullable: true }, { type: ["string", "null"], enum: ["a", null] }],
    [
      "nullable without type",
      { nullable: true, description: "d", oneOf: [{ type: "string" }, { type: "integer" }] },
      { description: "d", anyOf: [{ oneOf: [{ type: "string" }, { type: "integer" }] }, { type: "null" }] },
    ],
    ["nullable false", { type: "string", nullable: false }, { type: "string" }],
    ["x-nullable (Swagger 2)", { type: "integer", "x-nullable": true }, { type: ["integer", "null"] }, "2.0"],
    ["example → examples", { type: "string", example: "x" }, { type: "string", examples: ["x"] }],
    [
      "examples kept (3.1)",
      { type: "string", examples: ["a", "b"], example: "c" },
      { type: "string", examples: ["a", "b"] },
      "3.1",
    ],
    ["examples as a map dropped", { type: "string", examples: { a: { value: 1 } } }, { type: "string" }],
    ["type file", { type: "file" }, { type: "string", format: "binary" }, "2.0"],
    ["format binary kept", { type: "string", format: "binary" }, { type: "string", format: "binary" }],
    ["unknown format dropped", { type: "string", format: "phone" }, { type: "string" }],
    ["known formats kept", { type: "integer", format: "int64" }, { type: "integer", format: "int64" }],
    [
      "boolean exclusiveMinimum",
      { type: "number", minimum: 1, exclusiveMinimum: true },
      { type: "number", exclusiveMinimum: 1 },
    ],
    [
      "boolean exclusiveMaximum false",
      { type: "number", maximum: 9, exclusiveMaximum: false },
      { type: "number", maximum: 9 },
    ],
    [
      "numeric exclusiveMinimum (3.1)",
      { type: "number", exclusiveMinimum: 0 },
      { type: "number", exclusiveMinimum: 0 },
      "3.1",
    ],
    [
      "discriminator, xml, externalDocs, x- dropped",
      {
        type: "object",
        discriminator: { propertyName: "k" },
        xml: { name: "p" },
        externalDocs: { url: "u" },
        "x-internal": true,
      },
      { type: "object" },
    ],
    ["invalid pattern dropped", { type: "string", pattern: "^\\-[a-z]$" }, { type: "string" }],
    ["valid pattern kept", { type: "string", pattern: "^[a-z]+$" }, { type: "string", pattern: "^[a-z]+$" }],
    ["duplicate enum values", { enum: [1, 1, 2] }, { enum: [1, 2] }],
    ["empty enum dropped", { type: "string", enum: [] }, { type: "string" }],
    ["required as boolean dropped", { type: "string", required: true }, { type: "string" }],
    ["duplicate required", { type: "object", required: ["a", "a"] }, { type: "object", required: ["a"] }],
    ["unknown type dropped", { type: "any" }, {}],
    ["type list (3.1)", { type: ["string", "null"] }, { type: ["string", "null"] }, "3.1"],
    [
      "prefixItems (3.1)",
      { type: "array", prefixItems: [{ type: "string" }], items: { type: "integer" } },
      { type: "array", items: [{ type: "string" }], additionalItems: { type: "integer" } },
      "3.1",
    ],
    ["dependentRequired (3.1)", { dependentRequired: { a: ["b"] } }, { dependencies: { a: ["b"] } }, "3.1"],
    [
      "2020 keywords ajv draft-07 cannot express are dropped",
      { type: "object", unevaluatedProperties: false, $id: "x", $anchor: "a", $dynamicRef: "#x" },
      { type: "object" },
      "3.1",
    ],
    ["negative minLength dropped", { type: "string", minLength: -1 }, { type: "string" }],
    ["multipleOf 0 dropped", { type: "number", multipleOf: 0 }, { type: "number" }],
    ["boolean schema true", true, {}],
    ["boolean schema false", false, { not: {} }],
    [
      "boolean subschemas (3.1)",
      { type: "object", additionalProperties: false, properties: { a: true } },
      { type: "object", additionalProperties: false, properties: { a: true } },
      "3.1",
    ],
  ])("%s", (_label, input, expected, version = "3.0") => {
    expect(emit(input, "request", version)).toEqual(expected);
  });

  it("keeps descriptions, defaults and deprecated", () => {
    expect(emit({ type: "integer", description: "How many", default: 20, deprecated: true, title: "Limit" })).toEqual({
      type: "integer",
      description: "How many",
      default: 20,
      deprecated: true,
      title: "Limit",
    });
  });

  it("property names are data, even __proto__ and constructor", () => {
    const input = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__"]}',
    );
    const out = emit(input) as JsonRecord;
    const properties = out.properties as JsonRecord;
    expect(Object.keys(properties)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    const validate = hostAjv().compile(out);
    expect(validate(JSON.parse('{"__proto__":"x","constructor":1}'))).toBe(true);
    expect(validate(JSON.parse('{"__proto__":"x","constructor":"not an integer"}'))).toBe(false);
  });
});

describe("readOnly and writeOnly", () => {
  const components = {
    Pet: {
      type: "object",
      required: ["id", "name", "password"],
      properties: {
        id: { type: "integer", readOnly: true },
        name: { type: "string" },
        password: { type: "string", writeOnly: true },
        owner: { $ref: "#/components/schemas/Owner" },
      },
    },
    Owner: { type: "object", readOnly: true },
  };

  it("requests omit readOnly properties (also through $ref) and keep writeOnly ones", () => {
    expect(emit({ $ref: "#/components/schemas/Pet" }, "request", "3.0", components)).toEqual({
      type: "object",
      required: ["name", "password"],
      properties: { name: { type: "string" }, password: { type: "string", writeOnly: true } },
      "x-cyrnel-name": "Pet",
    });
  });

  it("responses omit writeOnly properties", () => {
    expect(emit({ $ref: "#/components/schemas/Pet" }, "response", "3.0", components)).toEqual({
      type: "object",
      required: ["id", "name"],
      properties: {
        id: { type: "integer", readOnly: true },
        name: { type: "string" },
        owner: { $ref: "#/$defs/Owner" },
      },
      "x-cyrnel-name": "Pet",
      $defs: { Owner: { type: "object", readOnly: true } },
    });
  });
});

describe("$ref handling", () => {
  const components = {
    Node: {
      type: "object",
      properties: {
        value: { type: "string" },
        children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
      },
    },
    A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" } } },
    B: { type: "object", properties: { a: { $ref: "#/components/schemas/A" } } },
    "Weird name/with~chars": { type: "string" },
    Alias: { $ref: "#/components/schemas/Node" },
  };

  it("a recursive schema becomes a finite $defs entry that ajv compiles and validates", () => {
    const out = emit({ $ref: "#/components/schemas/Node" }, "response", "3.0", components);
    expect(out).toEqual({
      type: "object",
      properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      "x-cyrnel-name": "Node",
      $defs: {
        Node: {
          type: "object",
          properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
        },
      },
    });
    const validate = hostAjv().compile(out as JsonRecord);
    expect(validate({ value: "a", children: [{ value: "b", children: [] }] })).toBe(true);
    expect(validate({ value: "a", children: [{ value: 1 }] })).toBe(false);
    expect(() => JSON.stringify(out)).not.toThrow();
  });

  it("indirect cycles pull in every schema they need", () => {
    const out = emit(
      { type: "object", properties: { start: { $ref: "#/components/schemas/A" } } },
      "request",
      "3.0",
      components,
    ) as JsonRecord;
    expect(Object.keys(out.$defs as JsonRecord)).toEqual(["A", "B"]);
    expect(hostAjv().compile(out)({ start: { b: { a: { b: {} } } } })).toBe(true);
  });

  it("names are sanitised for use in a $ref", () => {
    const out = emit({ $ref: "#/components/schemas/Weird%20name~1with~0chars" }, "request", "3.0", {
      "Weird name/with~chars": {
        type: "object",
        properties: { self: { $ref: "#/components/schemas/Weird%20name~1with~0chars" } },
      },
    }) as JsonRecord;
    expect(Object.keys(out.$defs as JsonRecord)).toEqual(["Weird_name_with_chars"]);
    expect(hostAjv().compile(out)({ self: { self: {} } })).toBe(true);
  });

  it("aliases resolve through to their target", () => {
    const out = emit(
      { type: "array", items: { $ref: "#/components/schemas/Alias" } },
      "request",
      "3.0",
      components,
    ) as JsonRecord;
    expect(out.items).toEqual({ $ref: "#/$defs/Alias" });
    expect((out.$defs as JsonRecord).Alias).toEqual({ $ref: "#/$defs/Node" });
    expect(hostAjv().compile(out)([{ value: "x" }])).toBe(true);
  });

  it("a $ref with siblings keeps both (allOf), and nullable wraps it", () => {
    const out = emit(
      {
        type: "object",
        properties: { n: { $ref: "#/components/schemas/Node", description: "the node", nullable: true } },
      },
      "request",
      "3.0",
      components,
    ) as JsonRecord;
    expect((out.properties as JsonRecord).n).toEqual({
      description: "the node",
      anyOf: [{ allOf: [{ $ref: "#/$defs/Node" }] }, { type: "null" }],
    });
    expect(hostAjv().compile(out)({ n: null })).toBe(true);
  });

  it("a root $ref with a description is inlined, keeps the description and says whose it is", () => {
    expect(
      emit({ $ref: "#/components/schemas/B", description: "override" }, "request", "3.1", components),
    ).toMatchObject({
      type: "object",
      description: "override",
      "x-cyrnel-name": "B",
    });
  });

  it("names an inlined alias chain after its last link, and a root that is not inlined not at all", () => {
    expect(emit({ $ref: "#/components/schemas/Alias" }, "request", "3.0", components)).toMatchObject({
      "x-cyrnel-name": "Node",
    });
    const kept = emit({ $ref: "#/components/schemas/B", minProperties: 1 }, "request", "3.0", components);
    expect(kept).toMatchObject({ allOf: [{ $ref: "#/$defs/B" }], minProperties: 1 });
    expect(kept).not.toHaveProperty("x-cyrnel-name");
    expect(emit({ type: "string" }, "request", "3.0", components)).not.toHaveProperty("x-cyrnel-name");
  });

  it("a chain of aliases that never reaches a schema is rejected", () => {
    const loop = { X: { $ref: "#/components/schemas/Y" }, Y: { $ref: "#/components/schemas/X" } };
    expect(() => emit({ type: "array", items: { $ref: "#/components/schemas/X" } }, "request", "3.0", loop)).toThrow(
      /circular/,
    );
    expect(() => emit({ $ref: "#/components/schemas/X" }, "request", "3.0", loop)).toThrow(/circular/);
  });

  it("Swagger 2 definitions are named like components", () => {
    const out = emit({ type: "array", items: { $ref: "#/definitions/Pet" } }, "response", "2.0", {
      Pet: { type: "object" },
    }) as JsonRecord;
    expect(out).toEqual({ type: "array", items: { $ref: "#/$defs/Pet" }, $defs: { Pet: { type: "object" } } });
  });

  it("pointers outside components are named after their path", () => {
    const document = { openapi: "3.0.3", paths: { "/a": { get: { x: { type: "string" } } } } };
    const emitter = createSchemaEmitter(document, "3.0");
    const { refs } = emitter.root({ type: "array", items: { $ref: "#/paths/~1a/get/x" } }, "request");
    expect(Object.keys(emitter.defs(refs, "request"))).toEqual(["paths__a_get_x"]);
  });

  it("rejects absurdly deep schemas instead of overflowing the stack", () => {
    let deep: JsonRecord = { type: "string" };
    for (let i = 0; i < 500; i++) deep = { type: "array", items: deep };
    expect(() => emit(deep)).toThrow(/nested more than/);
  });
});
