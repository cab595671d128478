import { describe, expect, it } from "vitest";
import { cutText } from "./cut-text.js";

describe("cutText", () => {
  it("keeps text that fits", () => {
    expect(cutText("abc", 3)).toBe("abc");
  });

  it("cuts with a marker naming what was left out", () => {
    expect(cutText("a".repeat(12_345), 10)).toBe(`${"a".repeat(10)}… [cut: 12,335 more characters]`);
  });

  it("never splits a surrogate pair", () => {
    expect(cutText("ab😀cd", 3)).toBe("ab… [cut: 4 more characters]");
  });

  it("counts from the full text when the caller passes a prefix", () => {
    expect(cutText("abcdef", 3, 1000)).toBe("abc… [cut: 997 more characters]");
    expect(cutText("ab", 3, 1000)).toBe("ab… [cut: 998 more characters]");
  });
});
