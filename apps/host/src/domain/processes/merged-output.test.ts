import { describe, expect, it } from "vitest";
import { MergedOutput } from "./merged-output.js";

describe("MergedOutput", () => {
  it.each<[string, Record<string, unknown>[]]>([
    ["one patch", [{ a: 1, b: "two" }]],
    ["a replaced key", [{ a: "long value" }, { a: 1 }, { b: [1, 2] }]],
    ["unicode keys and values", [{ ключ: "значение ✓" }, { "🙂": { nested: "é" } }]],
    ["undefined values, which JSON leaves out", [{ a: undefined }, { b: 1 }, { a: 2 }, { b: undefined }]],
    ["a __proto__ key", [JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>]],
    ["nothing", [{}]],
  ])("keeps its byte count equal to the JSON of the merge (%s)", (_label, patches) => {
    const output = new MergedOutput(1024 * 1024);
    let expected: Record<string, unknown> = {};
    for (const patch of patches) {
      expect(output.merge(patch)).toBe(true);
      expected = { ...expected, ...patch };
      expect(output.bytes).toBe(Buffer.byteLength(JSON.stringify(expected)));
      expect(JSON.stringify(output.value())).toBe(JSON.stringify(expected));
    }
  });

  it("refuses a patch that would pass the limit and keeps what it had", () => {
    const output = new MergedOutput(20);
    expect(output.merge({ a: "12345" })).toBe(true);
    expect(output.merge({ b: "1234567890" })).toBe(false);
    expect(output.value()).toEqual({ a: "12345" });
    expect(output.bytes).toBe(Buffer.byteLength('{"a":"12345"}'));
    // Replacing a key with a smaller value makes room again.
    expect(output.merge({ a: 1, b: "12" })).toBe(true);
    expect(JSON.stringify(output.value())).toBe('{"a":1,"b":"12"}');
  });

  it("throws for a value JSON cannot hold, without merging", () => {
    const output = new MergedOutput(1024);
    expect(() => output.merge({ big: 1n })).toThrow(TypeError);
    expect(output.value()).toEqual({});
  });
});
