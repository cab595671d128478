import { describe, expect, it } from "vitest";
import { isValidIdentifier } from "./identifier.js";

describe("isValidIdentifier", () => {
  it.each(["weather", "forecast", "_private", "$dollar", "getPetById", "a1", "snake_case", "A"])("accepts %s", (id) => {
    expect(isValidIdentifier(id)).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["leading digit", "1abc"],
    ["dash", "get-pet"],
    ["dot", "a.b"],
    ["space", "a b"],
    ["non-ascii", "café"],
    ["reserved word", "class"],
    ["strict-mode reserved", "interface"],
    ["module reserved", "await"],
    ["literal", "null"],
    ["prototype key", "__proto__"],
    ["constructor", "constructor"],
  ])("rejects %s", (_label, id) => {
    expect(isValidIdentifier(id)).toBe(false);
  });

  it("rejects non-strings", () => {
    expect(isValidIdentifier(42)).toBe(false);
    expect(isValidIdentifier(undefined)).toBe(false);
    expect(isValidIdentifier({})).toBe(false);
  });
});
