/** The public shapes of a process (`contract/processes.ts`): its record, and the record with its results (once idle). */
import type { ProcessRecord, ProcessResult } from "../../contract/processes.js";
import type { CallCounts } from "../governance/call-store.js";
import type { ProcessView } from "./process-runner.js";

export function processRecord(row: ProcessView): ProcessRecord {
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
    pendingApprovalIds: row.pendingApprovalIds,
  };
}

/** `calls`: the tool calls of its latest run. */
export function processResult(row: ProcessView, calls: CallCounts): ProcessResult {
  return { ...processRecord(row), output: row.output ?? {}, stdout: row.stdout, stderr: row.stderr, calls };
}
