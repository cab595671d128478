import { clampToSource } from "../source-position.js";

/**
 * The file the type checker sees: the user's code as the body of an async
 * function, the way it runs (see transpile.ts), so top-level `await` and
 * `return` are valid. The header has a line of its own, so line N of the
 * code is line N + 1 of the file and columns are the same. The file is a
 * module (`export {}`), so that several programs checked together each have
 * a scope of their own.
 */
export const CODE_FILE_NAME = "code.ts";
const HEADER = "async function __cyrnelProcess() {\n";
const FOOTER = "\n}\nexport {};\n";

export function wrapCode(code: string): string {
  return HEADER + code + FOOTER;
}

/** One error in the user's terms: 1-based line and column of the code as submitted. */
export interface TypeErrorLine {
  line: number;
  column: number;
  /** TypeScript's diagnostic number (`2322` for TS2322). */
  code: number;
  message: string;
}

/** A 0-based line and character in the wrapped file (what TypeScript reports), as the user's line and column. */
export function userPosition(code: string, fileLine: number, fileCharacter: number): { line: number; column: number } {
  return clampToSource(code, fileLine, fileCharacter + 1);
}

/** Lines listed in a process's error; the rest are counted. */
export const MAX_LISTED_ERRORS = 20;
/** A single message is cut here (a message can print large types in full). */
const MAX_MESSAGE_CHARS = 500;

/**
 * The process's `error` for code that does not type-check: a header, then
 * one line per error, `code.ts:<line>:<column> TS<code> <message>`, in the
 * order of the code, at most {@link MAX_LISTED_ERRORS}, then how many more.
 */
export function formatTypeErrors(errors: readonly TypeErrorLine[]): string {
  const sorted = [...errors].sort((a, b) => a.line - b.line || a.column - b.column);
  const lines = sorted.slice(0, MAX_LISTED_ERRORS).map((error) => {
    const message = oneLine(error.message);
    const cut = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : message;
    return `${CODE_FILE_NAME}:${error.line}:${error.column} TS${error.code} ${cut}`;
  });
  if (sorted.length > MAX_LISTED_ERRORS) lines.push(`… and ${sorted.length - MAX_LISTED_ERRORS} more`);
  if (sorted.every(readsBeyondResult)) lines.push(READ_HINT);
  const count = `${sorted.length} type error${sorted.length === 1 ? "" : "s"}`;
  return [`Type check failed with ${count}, so the code did not run:`, ...lines].join("\n");
}

/**
 * Errors of reading what a type does not have: a property it lacks (TS2339)
 * or a value typed `unknown` (TS18046). When these are all there is, the
 * program is usually right about the API and its declared result type is
 * narrower than what the API returns (API documents are often wrong about
 * results), so the message says how to go on rather than leave the agent to
 * guess.
 */
const READ_ERRORS = new Set([2339, 18046]);

/** A read error that is not about `cyrnel.services` itself (a service or tool that is not there: no cast helps). */
function readsBeyondResult(error: TypeErrorLine): boolean {
  return (
    READ_ERRORS.has(error.code) &&
    !/CyrnelServices|CyrnelTool|invoke\(params|denied by the service's policy/.test(error.message)
  );
}
const READ_HINT =
  'If the API does return what the code reads, its declared result type is incomplete: cast the result (`const r = (await …invoke(…)) as any`, or `as { name: string }`) or submit with "typecheck": false to run unchecked.';

/** TypeScript's message chains (one line per step, indented) as one line. */
function oneLine(message: string): string {
  return message
    .split("\n")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join(" ");
}
