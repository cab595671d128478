/** The public shapes of a process (`contract/processes.ts`): its record, and the record with its results (once idle). */
import type { ProcessRecord, ProcessResult } from "../../contract/processes.js";
import type { ProcessRow } from "./process-store.js";

export function processRecord(row: ProcessRow): ProcessRecord {
  return {
    id: row.id,
    ref: row.ref,
    state: row.state,
    exitState: row.exitState,
    error: row.error,
    timeoutMs: row.timeoutMs,
    keyId: row.keyId,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export function processResult(row: ProcessRow): ProcessResult {
  return { ...processRecord(row), output: row.output ?? {}, stdout: row.stdout, stderr: row.stderr };
}
