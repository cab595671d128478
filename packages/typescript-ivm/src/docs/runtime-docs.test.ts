import { describe, expect, it } from "vitest";
import { parseConfig } from "../config.js";
import { renderRuntimeDocs } from "./runtime-docs.js";

describe("renderRuntimeDocs", () => {
  const docs = renderRuntimeDocs(parseConfig({ memoryLimitMb: 64, maxExecutions: 3 }));

  it("documents the surface, what is missing, limits and the error shape", () => {
    for (const text of [
      "cyrnel.services.<service>.tools.<tool>.invoke(params)",
      "Object.keys(cyrnel.services)",
      "cyrnel.output(patch)",
      "console.warn/error",
      "setTimeout(callback, ms, ...args)",
      "No `require`, `import`",
      "`fetch`",
      "64 MB of heap",
      "up to 3 processes at a time",
      "`429 at_capacity`",
      "| 404 | `not_found` |",
      "`status`, `code`",
      "SyntaxError: <message> (line L, column C)",
      "at code.ts:<line>:<column>",
      "| 403 | `tool_denied` |",
      "| 403 | `approval_denied` |",
      "| 403 | `approval_expired` |",
      "the clock stops while the process is suspended",
      "Before it runs, the code is **type-checked**",
      "code.ts:<line>:<column> TS<code> <message>",
      "typecheck: false",
      "[cyrnel] unhandled rejection of a tool call",
    ]) {
      expect(docs).toContain(text);
    }
  });

  it("says when checks are off by default", () => {
    expect(renderRuntimeDocs(parseConfig({ typecheck: false }))).toContain("off by default here");
  });
});
