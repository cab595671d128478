import { describe, expect, it } from "vitest";
import { mergePatch } from "./merge-patch.js";

describe("mergePatch (RFC 7396)", () => {
  it("gives the results of the RFC's examples", () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: "b" }, { a: "c" }, { a: "c" }],
      [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
      [{ a: "b" }, { a: null }, {}],
      [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
      [{ a: ["b"] }, { a: "c" }, { a: "c" }],
      [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
      [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
      [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
      [
        ["a", "b"],
        ["c", "d"],
        ["c", "d"],
      ],
      [{ a: "b" }, ["c"], ["c"]],
      [{ a: "foo" }, null, null],
      [{ a: "foo" }, "bar", "bar"],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: "b", c: null }, { a: "b" }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases) expect(mergePatch(target, patch)).toEqual(result);
  });

  it("leaves both inputs as they were, and a __proto__ key is a key", () => {
    const target = { properties: { orderId: { type: "integer", maximum: 10 } } };
    const patch = JSON.parse('{"properties":{"orderId":{"maximum":null}},"__proto__":{"polluted":true}}');
    const result = mergePatch(target, patch) as Record<string, unknown>;
    expect(result).toEqual({ properties: { orderId: { type: "integer" } }, ["__proto__"]: { polluted: true } });
    expect(Object.hasOwn(result, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((result as { polluted?: unknown }).polluted).toBeUndefined();
    expect(target.properties.orderId.maximum).toBe(10);
  });
});
