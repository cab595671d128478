import { describe, expect, it } from "vitest";
import { CappedText } from "./capped-text.js";

describe("CappedText", () => {
  it("keeps chunks under the cap and hands each one to live readers unchanged", () => {
    const text = new CappedText(10, "stdout");
    expect(text.append("abc\n")).toBe("abc\n");
    expect(text.append("def")).toBe("def");
    expect(text.toString()).toBe("abc\ndef");
  });

  it("cuts at the cap: live readers get the kept part and one marker, then nothing", () => {
    const text = new CappedText(6, "stderr");
    expect(text.append("abcd")).toBe("abcd");
    expect(text.append("efghij")).toBe("ef\n[cyrnel: stderr truncated at 6 bytes; the rest is dropped]\n");
    expect(text.append("more")).toBe("");
    expect(text.toString()).toBe("abcdef\n[cyrnel: stderr truncated at 6 bytes; 8 more bytes dropped]\n");
  });

  it("never splits a multi-byte character", () => {
    const text = new CappedText(5, "stdout");
    expect(text.append("aaaa\u00e9")).toBe("aaaa\n[cyrnel: stdout truncated at 5 bytes; the rest is dropped]\n");
    expect(text.toString()).toBe("aaaa\n[cyrnel: stdout truncated at 5 bytes; 2 more bytes dropped]\n");
  });
});
