import { describe, expect, it } from "vitest";
import { describeCompileError, transpile } from "./transpile.js";

describe("transpile", () => {
  it("strips types and keeps every line where it was", () => {
    const source = [
      "interface A { x: number }",
      "const a: A = { x: 1 };",
      "enum E { One = 1 }",
      "function f<T>(value: T): T {",
      "  return value as T;",
      "}",
      "await f(a);",
      "return E.One;",
    ].join("\n");
    const result = transpile(source);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const lines = result.code.split("\n");
    // Header line + the user's lines + footer line.
    expect(lines).toHaveLength(source.split("\n").length + 2);
    expect(lines[0]).toBe("(async function () {");
    expect(lines[2]).toBe("const a = { x: 1 };");
    expect(lines[7]).toBe("await f(a);");
    expect(lines.at(-1)).toBe("})");
  });

  it.each([
    ["a missing expression", "const a = 1;\nconst b = ;", "SyntaxError: Unexpected token (line 2, column 11)"],
    ["a missing semicolon", "let xyz = 1 2;", 'SyntaxError: Unexpected token, expected ";" (line 1, column 13)'],
    ["an unterminated template", "const s = `abc", "SyntaxError: Unterminated template (line 1, column 12)"],
    ["an error at the end of input", "call(\n  1,", "SyntaxError: Unexpected token (line 2, column 5)"],
    ["an unterminated comment", "/* never closed", "SyntaxError: Unterminated comment (line 1, column 16)"],
  ])("reports %s with the user's line and column", (_label, source, message) => {
    expect(transpile(source)).toEqual({ ok: false, error: message });
  });
});

describe("describeCompileError", () => {
  it("rewrites isolated-vm's position suffix for the user's file", () => {
    const error = Object.assign(new SyntaxError("Identifier 'a' has already been declared [code.ts:2:5]"), {});
    expect(describeCompileError(error, "code.ts", "let a;\nlet a;")).toBe(
      "SyntaxError: Identifier 'a' has already been declared (line 2, column 5)",
    );
  });

  it("keeps messages without a position of the user's file as they are", () => {
    expect(describeCompileError(new SyntaxError("Something odd"), "code.ts", "")).toBe("SyntaxError: Something odd");
    expect(describeCompileError(new SyntaxError("Elsewhere [other.js:1:1]"), "code.ts", "")).toBe(
      "SyntaxError: Elsewhere [other.js:1:1]",
    );
  });
});
