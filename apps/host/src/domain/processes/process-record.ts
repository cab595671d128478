/** The public shapes of a process: its record, and the record with its results (once idle). */
import type { ProcessRow } from "./process-store.js";

export function processRecord(row: ProcessRow) {
  return {
    id: row.id,
    ref: row.ref,
    state: row.state,
    exitState: row.exitState,
    error: row.error,
    timeoutMs: row.timeoutMs,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export function processResult(row: ProcessRow) {
  return { ...processRecord(row), output: row.output ?? {}, stdout: row.stdout, stderr: row.stderr };
}
