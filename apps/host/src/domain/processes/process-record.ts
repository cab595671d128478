/**
 * The public shapes of a process (`contract/processes.ts`): its record, the
 * record with its results (once idle), those results sized for an LLM, and
 * each of its texts whole.
 */
import type { CallCounts } from "../../contract/governance.js";
import type { BoundedResult, ProcessRecord, ProcessResult, ProcessText } from "../../contract/processes.js";
import { boundTexts } from "./bounded-results.js";
import type { ProcessView } from "./process-runner.js";
import type { ProcessRow } from "./process-store.js";

export function processRecord(row: ProcessView): ProcessRecord {
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
    pendingApprovalIds: row.pendingApprovalIds,
  };
}

/** `calls`: the tool calls of its latest run. */
export function processResult(row: ProcessView, calls: CallCounts): ProcessResult {
  return { ...processRecord(row), output: row.output ?? {}, stdout: row.stdout, stderr: row.stderr, calls };
}

/** The text `GET /processes/{id}/text` pages: `output` as compact JSON (what `GET .../output` answers), no error as "". */
export function processText(row: ProcessRow, stream: ProcessText): string {
  if (stream === "output") return JSON.stringify(row.output ?? {});
  if (stream === "error") return row.error ?? "";
  return row[stream];
}

/** The results with stdout, stderr, the output's JSON and the error within `limit` characters in total. */
export function boundedResult(row: ProcessView, limit: number, calls: CallCounts): BoundedResult {
  const texts = {
    stdout: row.stdout,
    stderr: row.stderr,
    output: processText(row, "output"),
    error: processText(row, "error"),
  };
  const bounded = boundTexts(row.id, texts, limit);
  const outputCut = bounded.cuts.some((cut) => cut.stream === "output");
  return {
    ...processRecord(row),
    error: row.error === null ? null : bounded.texts.error,
    output: outputCut ? bounded.texts.output : (row.output ?? {}),
    stdout: bounded.texts.stdout,
    stderr: bounded.texts.stderr,
    cut: bounded.cuts,
    calls,
  };
}
