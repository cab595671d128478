import { describe, expect, it } from "vitest";
import { measureJson, nestsDeeperThan } from "./json-nesting.js";

describe("nestsDeeperThan", () => {
  it.each([
    ["{}", 1, false],
    ["[[]]", 1, true],
    ['{"a":[1,{"b":2}]}', 3, false],
    ['{"a":[1,{"b":2}]}', 2, true],
    // Brackets inside strings, escaped quotes included, do not count.
    ['["[[[[", "\\"[[[[", "\\\\"]', 1, false],
    ['["\\\\", [[]]]', 2, true],
    [`${"[".repeat(100_000)}${"]".repeat(100_000)}`, 512, true],
    // A long string of escaped quotes, backslashes and brackets (ending in a backslash), then real nesting.
    [JSON.stringify([`${'\\"[[x'.repeat(1000)}\\`, [[]]]), 2, true],
    [JSON.stringify([`${'\\"[[x'.repeat(1000)}\\`, [[]]]), 3, false],
    ['["unterminated [[[[', 1, false],
  ])("%s deeper than %d: %s", (text, limit, expected) => {
    expect(nestsDeeperThan(text, limit)).toBe(expected);
  });
});

describe("measureJson", () => {
  it("measures depth and approximate size without recursion", () => {
    expect(measureJson("abc")).toEqual({ depth: 0, bytes: 5 });
    expect(measureJson({ a: [1, { b: "xy" }] }).depth).toBe(3);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(measureJson(deep).depth).toBe(100_000);
    expect(measureJson(deep, 10).depth).toBe(11);
    const size = JSON.stringify({ key: "value", list: [1, 2, 3] }).length;
    expect(Math.abs(measureJson({ key: "value", list: [1, 2, 3] }).bytes - size)).toBeLessThan(8);
  });
});
