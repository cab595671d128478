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

  it("counts what the environment dropped at its own cap: the marker's figure is the whole of it", () => {
    // The environment cut first (its cap below this one): the stream ends where it stopped.
    const upstream = new CappedText(100, "stdout");
    expect(upstream.append("abc")).toBe("abc");
    expect(upstream.droppedElsewhere(10)).toBe("\n[cyrnel: stdout truncated at 3 bytes; the rest is dropped]\n");
    expect(upstream.droppedElsewhere(951_424)).toBe("");
    expect(upstream.toString()).toBe("abc\n[cyrnel: stdout truncated at 3 bytes; 951424 more bytes dropped]\n");
    // Both cut: what this host dropped of what it was sent, plus what was never sent.
    const both = new CappedText(4, "stderr");
    expect(both.append("abcdef")).toBe("abcd\n[cyrnel: stderr truncated at 4 bytes; the rest is dropped]\n");
    expect(both.droppedElsewhere(1_000)).toBe("");
    expect(both.toString()).toBe("abcd\n[cyrnel: stderr truncated at 4 bytes; 1002 more bytes dropped]\n");
  });
});
