import { secretForms } from "@cyrnel/sdk";
import { describe, expect, it } from "vitest";
import { boundedJson, maskDeep } from "./secret-masks.js";

const SECRET = "s3cr3t+token/=";
const needles = secretForms({ apiKey: SECRET });

describe("boundedJson", () => {
  it("keeps a value that fits and holds no secret as it is", () => {
    const value = { city: "oslo", days: [1, 2] };
    expect(boundedJson(value, 2048, needles)).toEqual({ value, json: JSON.stringify(value) });
  });

  it.each([
    ["raw", { key: SECRET }],
    ["in a longer text", { note: `key=${SECRET};` }],
    ["percent-encoded", { q: encodeURIComponent(SECRET) }],
    ["as an object key", { [SECRET]: 1 }],
    ["in an array", { tags: ["a", SECRET] }],
  ])("masks a secret %s", (_how, value) => {
    const { value: masked, json } = boundedJson(value, 2048, needles);
    expect(json).not.toContain(SECRET);
    expect(json).not.toContain(encodeURIComponent(SECRET));
    expect(json).toContain("[redacted]");
    expect(JSON.parse(json)).toEqual(masked);
  });

  it.each([
    ["plain", { text: "x".repeat(10_000) }],
    ["quotes and backslashes, which escaping doubles", { text: '"\\'.repeat(5_000) }],
    ["a secret across the cut", { text: `${"x".repeat(2_040)}${SECRET}${"y".repeat(100)}` }],
  ])("cuts a value whose JSON is too long (%s) to a string whose JSON fits, marked as cut", (_what, value) => {
    const { value: cut, json } = boundedJson(value, 2048, needles);
    expect(typeof cut).toBe("string");
    expect(json.length).toBeLessThanOrEqual(2048);
    expect(JSON.parse(json)).toBe(cut);
    expect(cut as string).toMatch(/^\{"text":"/);
    expect(cut as string).toMatch(/… \[cut: [\d,]+ more characters\]$/);
    expect(json).not.toContain(SECRET);
  });

  it("says so for what JSON cannot hold", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(boundedJson(cyclic, 2048, needles).value).toBe("[not JSON-serialisable]");
  });
});

describe("maskDeep", () => {
  it("leaves a value alone when there is nothing to mask", () => {
    const value = { a: [SECRET] };
    expect(maskDeep(value, [])).toBe(value);
  });
});
