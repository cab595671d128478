import { describe, expect, it } from "vitest";
import { formatTypeErrors, MAX_LISTED_ERRORS, userPosition, wrapCode } from "./code-file.js";

describe("wrapCode and userPosition", () => {
  const code = "const a = 1;\n\tconst b: string = a;\nreturn b;";
  const wrapped = wrapCode(code);
  /** Where `needle` is in the wrapped file, as TypeScript reports it: 0-based line and character. */
  const at = (needle: string) => {
    const offset = wrapped.indexOf(needle);
    const before = wrapped.slice(0, offset).split("\n");
    return { line: before.length - 1, character: (before.at(-1) ?? "").length };
  };

  it("makes the code the body of an async function, header and footer on lines of their own", () => {
    expect(wrapped.split("\n")).toEqual([
      "async function __cyrnelProcess() {",
      "const a = 1;",
      "\tconst b: string = a;",
      "return b;",
      "}",
      "export {};",
      "",
    ]);
  });

  it.each([
    ["the first line", "const a", { line: 1, column: 1 }],
    [
      "a column after a tab (one character, as editors count columns in TypeScript's terms)",
      "b: string",
      { line: 2, column: 8 },
    ],
    ["the last line", "b;", { line: 3, column: 8 }],
  ])("maps %s back to the user's 1-based line and column", (_label, needle, expected) => {
    const { line, character } = at(needle);
    expect(userPosition(code, line, character)).toEqual(expected);
  });

  it("clamps positions in the wrapper: its header to the start, its end to the end of the last line", () => {
    expect(userPosition(code, 0, 20)).toEqual({ line: 1, column: 1 });
    expect(userPosition(code, 4, 0)).toEqual({ line: 3, column: 10 });
    expect(userPosition(code, 5, 0)).toEqual({ line: 3, column: 10 });
  });

  it("handles empty code and CRLF line ends", () => {
    expect(userPosition("", 2, 0)).toEqual({ line: 1, column: 1 });
    expect(userPosition("a;\r\nb;", 2, 1)).toEqual({ line: 2, column: 2 });
  });
});

describe("formatTypeErrors", () => {
  const error = (line: number, column: number, message = "Type 'string' is not assignable to type 'number'.") => ({
    line,
    column,
    code: 2322,
    message,
  });

  it("lists one line per error as code.ts:line:col TSnnnn message, sorted by position", () => {
    expect(formatTypeErrors([error(3, 1), error(1, 9, "Cannot find name 'x'."), error(1, 2)])).toBe(
      [
        "Type check failed with 3 type errors, so the code did not run:",
        "code.ts:1:2 TS2322 Type 'string' is not assignable to type 'number'.",
        "code.ts:1:9 TS2322 Cannot find name 'x'.",
        "code.ts:3:1 TS2322 Type 'string' is not assignable to type 'number'.",
      ].join("\n"),
    );
  });

  it("puts a message chain on one line", () => {
    const chained =
      "Argument of type '{ a: string; }' is not assignable.\n  Types of property 'a' are incompatible.\n    Type 'string' is not assignable to type 'number'.";
    expect(formatTypeErrors([error(1, 1, chained)]).split("\n")[1]).toBe(
      "code.ts:1:1 TS2322 Argument of type '{ a: string; }' is not assignable. Types of property 'a' are incompatible. Type 'string' is not assignable to type 'number'.",
    );
  });

  it(`lists at most ${MAX_LISTED_ERRORS} errors, then how many more`, () => {
    const lines = formatTypeErrors(Array.from({ length: 23 }, (_, i) => error(i + 1, 1))).split("\n");
    expect(lines).toHaveLength(1 + MAX_LISTED_ERRORS + 1);
    expect(lines[0]).toBe("Type check failed with 23 type errors, so the code did not run:");
    expect(lines[MAX_LISTED_ERRORS]).toMatch(/^code\.ts:20:1 /);
    expect(lines.at(-1)).toBe("… and 3 more");
  });

  it("cuts a very long message (one that prints a large type in full)", () => {
    const line = formatTypeErrors([error(1, 1, `Type '{ ${"a: string; ".repeat(200)}}' is wrong.`)]).split("\n")[1]!;
    expect(line.length).toBeLessThanOrEqual(520);
    expect(line.endsWith("…")).toBe(true);
  });

  it("says how to go on when the code only reads what the declared types lack (a result type narrower than the API's)", () => {
    const missing = { line: 2, column: 20, code: 2339, message: "Property 'name' does not exist on type 'Objs'." };
    const unknown = { line: 3, column: 1, code: 18046, message: "'r' is of type 'unknown'." };
    const lines = formatTypeErrors([missing, unknown]).split("\n");
    expect(lines.at(-1)).toMatch(
      /^If the API does return what the code reads, .* cast the result .* "typecheck": false/,
    );
    expect(
      formatTypeErrors([missing, error(4, 1)])
        .split("\n")
        .at(-1),
    ).toMatch(/^code\.ts:4:1 TS2322 /);
    // A tool or service that is not there: no cast helps.
    const noTool = {
      ...missing,
      message: "Property 'getItems' does not exist on type '{ readonly getItem: { invoke(params: …) } }'.",
    };
    expect(formatTypeErrors([noTool]).split("\n")).toHaveLength(2);
  });

  it("says 1 type error in the singular", () => {
    expect(formatTypeErrors([error(1, 1)]).split("\n")[0]).toBe(
      "Type check failed with 1 type error, so the code did not run:",
    );
  });
});
