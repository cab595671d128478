import { transform } from "sucrase";
import { clampToSource } from "./source-position.js";

/**
 * The user's code becomes the body of an async function (so top-level
 * `await` and `return` work). The header sits on its own line and the script
 * is compiled with `lineOffset: -1` (see {@link USER_LINE_OFFSET}), so line
 * N of the user's source is line N in compiler errors and stack traces.
 * Sucrase keeps every line where it was, which is what makes this work
 * without source maps.
 */
const HEADER = "(async function () {\n";
const FOOTER = "\n})";

/** `lineOffset` to compile {@link TranspileResult.code} with. */
export const USER_LINE_OFFSET = -1;

export type TranspileResult = { ok: true; code: string } | { ok: false; error: string };

/** Strips TypeScript syntax (no type-check) and wraps the code; syntax errors come back as a message. */
export function transpile(source: string): TranspileResult {
  try {
    const { code } = transform(HEADER + source + FOOTER, { transforms: ["typescript"], disableESTransforms: true });
    return { ok: true, code };
  } catch (error) {
    return { ok: false, error: describeTranspileError(error, source) };
  }
}

/** Sucrase reports `message (line:column)` with 1-based positions in the wrapped text. */
function describeTranspileError(error: unknown, source: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const loc = (error as { loc?: { line?: unknown; column?: unknown } }).loc;
  const text = message.replace(/\s*\(\d+:\d+\)$/, "");
  if (typeof loc?.line !== "number" || typeof loc.column !== "number") return `SyntaxError: ${text}`;
  return formatSyntaxError(text, loc.line + USER_LINE_OFFSET, loc.column, source);
}

/**
 * V8 compile errors (what Sucrase does not check, such as duplicate
 * declarations) arrive from isolated-vm as `message [file:line:column]`,
 * already in the user's line numbers.
 */
export function describeCompileError(error: unknown, filename: string, source: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const match = /^(.*) \[(.+):(\d+):(\d+)\]$/s.exec(message);
  if (match === null || match[2] !== filename) return `SyntaxError: ${message}`;
  return formatSyntaxError(match[1] as string, Number(match[3]), Number(match[4]), source);
}

/** `SyntaxError: <message> (line L, column C)`, in the user's lines (see {@link clampToSource}). */
function formatSyntaxError(message: string, line: number, column: number, source: string): string {
  const at = clampToSource(source, line, column);
  return `SyntaxError: ${message} (line ${at.line}, column ${at.column})`;
}
