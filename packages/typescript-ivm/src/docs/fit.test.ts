import { describe, expect, it } from "vitest";
import { cutToFit } from "./fit.js";

describe("cutToFit", () => {
  it("leaves a text that fits alone", () => {
    expect(cutToFit("short", 5)).toBe("short");
  });

  it("cuts to the limit and says so", () => {
    const cut = cutToFit("x".repeat(500), 100);
    expect(cut).toHaveLength(100);
    expect(cut.endsWith("[cut: the rest does not fit in 100 characters]")).toBe(true);
  });

  it("never splits a surrogate pair", () => {
    const text = `${"a".repeat(52)}😀${"b".repeat(100)}`;
    const cut = cutToFit(text, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
