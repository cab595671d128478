/**
 * A 1-based line and column in the wrapped code, as a position in the
 * user's source. The runtime (transpile.ts) and the type checker both wrap
 * the code in an async function whose header sits on a line of its own, so
 * only positions in the wrapper itself need care: one before the code is
 * its start, one after it (a missing `}` is found at the wrapper's end) is
 * the end of its last line.
 */
export function clampToSource(source: string, line: number, column: number): { line: number; column: number } {
  const lines = source.split("\n");
  if (line > lines.length) return { line: lines.length, column: (lines.at(-1) ?? "").length + 1 };
  if (line < 1) return { line: 1, column: 1 };
  return { line, column };
}
