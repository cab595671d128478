/**
 * Type-checks files on disk with the workspace's TypeScript 5, as a client
 * would, the way the environment's declaration file says process code
 * should be checked: strict, ES2022 library only, no Node or DOM typings.
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as TS from "typescript";
import { tempDir } from "./host.js";

export const ts = createRequire(import.meta.url)("typescript") as typeof TS;

/** One `path: message` line per diagnostic; `[]` when the files check. */
export function typeErrors(files: Record<string, string>): string[] {
  const dir = tempDir("cyrnel-types-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      lib: ["lib.es2022.d.ts"],
      types: [],
    },
  );
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}
