/**
 * How the client commands print: results on stdout (aligned tables for
 * people, JSON with --json), everything else (errors, progress, hints) on
 * stderr, so `--json` output can always be piped.
 */
import { ApiError } from "../client/api-client.js";
import { UsageError } from "./args.js";
import { EXIT } from "./exit-codes.js";

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line = ""): void {
  process.stdout.write(`${line}\n`);
}

export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Columns padded to the widest cell; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => width(row[column]))));
  return [headers, ...rows]
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column]! + cell.length - width(cell)),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Cut text to one line of at most `max` characters. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Runs a command and turns usage and API errors into a message on stderr and an exit code. */
export async function reportErrors(args: string[], command: () => Promise<number>): Promise<number> {
  try {
    return await command();
  } catch (error) {
    const json = args.includes("--json");
    if (error instanceof UsageError) {
      note(`cyrnel: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof ApiError) {
      if (json) {
        const body = { error: error.message, code: error.code, status: error.status, details: error.details };
        process.stderr.write(`${JSON.stringify(body)}\n`);
      } else {
        note(`cyrnel: ${error.message} (${error.code}${error.status ? `, HTTP ${error.status}` : ""})`);
      }
      return error.status === 0 ? EXIT.unreachable : EXIT.apiError;
    }
    throw error;
  }
}

/** Display width: code points, so "Tromsø" lines up. */
function width(cell: string | undefined): number {
  return cell === undefined ? 0 : [...cell].length;
}
