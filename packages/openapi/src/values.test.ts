import { describe, expect, it } from "vitest";
import { conformingValues, satisfies, tidyValues } from "./values.js";

const defs: Record<string, unknown> = {
  "#/$defs/Kind": { type: "integer", enum: [1, 3] },
  "#/$defs/Node": { type: "object", properties: { next: { $ref: "#/$defs/Node" } } },
};
const resolve = (ref: string) => defs[ref];

describe("satisfies", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["integer", { type: "integer" }, 3, true],
    ["integer rejects text", { type: "integer" }, "3", false],
    ["type list", { type: ["string", "null"] }, null, true],
    ["enum", { enum: ["a", { b: 1 }] }, { b: 1 }, true],
    ["const", { const: 2 }, 3, false],
    ["bounds", { minimum: 1, exclusiveMaximum: 5 }, 5, false],
    ["multipleOf", { multipleOf: 0.1 }, 0.3, true],
    ["lengths count code points", { maxLength: 2 }, "😀😀", true],
    ["pattern", { pattern: "^AC[0-9a-f]{2}$" }, "ACzz", false],
    ["date format", { type: "string", format: "date" }, "2024-02-30", false],
    ["date-time format", { type: "string", format: "date-time" }, "2024-02-03T04:05:06Z", true],
    ["int32 format", { type: "integer", format: "int32" }, 2 ** 31, false],
    ["items", { type: "array", items: { type: "string" } }, ["a", 1], false],
    ["tuple and additionalItems", { items: [{ type: "string" }], additionalItems: false }, ["a", "b"], false],
    ["uniqueItems", { uniqueItems: true }, [{ a: 1 }, { a: 1 }], false],
    ["required", { required: ["a"] }, {}, false],
    ["additionalProperties", { properties: { a: {} }, additionalProperties: false }, { b: 1 }, false],
    ["patternProperties", { patternProperties: { "^x": { type: "integer" } } }, { x1: "no" }, false],
    ["anyOf", { anyOf: [{ type: "string" }, { type: "integer" }] }, 1, true],
    ["oneOf needs exactly one", { oneOf: [{ type: "number" }, { type: "integer" }] }, 1, false],
    ["not", { not: { type: "string" } }, "x", false],
    // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test.
    ["if/then", { if: { type: "string" }, then: { minLength: 2 } }, "x", false],
    ["$ref", { $ref: "#/$defs/Kind" }, 2, false],
    ["recursive $ref", { $ref: "#/$defs/Node" }, { next: { next: {} } }, true],
    ["unknown $ref is not held against the value", { $ref: "#/$defs/Nope" }, 1, true],
    ["dependencies", { dependencies: { a: ["b"] } }, { a: 1 }, false],
  ])("%s", (_label, schema, value, expected) => {
    expect(satisfies(value, schema, resolve)).toBe(expected);
  });
});

describe("tidyValues", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "a numeric text default of an integer is converted",
      { type: "integer", default: "100" },
      { type: "integer", default: 100 },
    ],
    ["a boolean text default is converted", { type: "boolean", default: "true" }, { type: "boolean", default: true }],
    ["an unconvertible default is dropped", { type: "integer", default: "0xFF" }, { type: "integer" }],
    [
      "a string enum of numbers is converted, and its default then fits",
      { type: "string", enum: [1, 3], default: "1" },
      { type: "string", enum: ["1", "3"], default: "1" },
    ],
    ["an enum with nothing convertible goes", { type: "integer", enum: ["a", "b"] }, { type: "integer" }],
    ["null stays in a nullable enum", { type: "string", enum: ["a", null] }, { type: "string", enum: ["a", null] }],
    [
      "examples: invalid ones dropped, convertible ones converted, duplicates once",
      { type: "integer", examples: ["0xFF", "7", 7, 8] },
      { type: "integer", examples: [7, 8] },
    ],
    [
      "nested properties and items are tidied too",
      { type: "object", properties: { a: { type: "array", items: { type: "number", default: "x" } } } },
      { type: "object", properties: { a: { type: "array", items: { type: "number" } } } },
    ],
    ["a default checked through a $ref", { $ref: "#/$defs/Kind", default: 2 }, { $ref: "#/$defs/Kind" }],
  ])("%s", (_label, schema, expected) => {
    tidyValues(schema, resolve);
    expect(schema).toEqual(expected);
  });

  it("does not modify the arrays it was given", () => {
    const examples = ["x", 1];
    const schema = { type: "integer", examples };
    tidyValues(schema, resolve);
    expect(examples).toEqual(["x", 1]);
    expect(conformingValues(["1", 1, "a"], { type: "integer" }, resolve)).toEqual([1]);
  });
});
