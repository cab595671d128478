import { describe, expect, it } from "vitest";
import { utf8Prefix } from "./host-bridge.js";

describe("utf8Prefix", () => {
  it.each([
    ["ascii within the limit", "hello", 10, "hello"],
    ["ascii cut", "hello", 3, "hel"],
    ["two-byte characters are never split", "éé", 3, "é"],
    ["four-byte characters are never split", "a😀b", 4, "a"],
    ["nothing fits", "é", 1, ""],
    ["zero bytes", "abc", 0, ""],
  ])("%s", (_label, text, maxBytes, expected) => {
    expect(utf8Prefix(text, maxBytes)).toBe(expected);
    expect(Buffer.byteLength(utf8Prefix(text, maxBytes))).toBeLessThanOrEqual(Math.max(maxBytes, 0));
  });
});
