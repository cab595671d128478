/**
 * At most once: before a host runs an execution it *claims* it with one
 * conditional UPDATE, and only the host whose UPDATE changed the row runs
 * it. Whatever the queue does — deliver a job twice, hand a job back after
 * a crash, or a sweep re-enqueue a job that looked stranded — a second claim
 * finds the row taken and does nothing, so no tool call ever happens twice.
 *
 * The claim is also fenced by the lease: it succeeds only while the
 * claiming host's lease in `cluster_hosts` is current (by the database's
 * clock), so a host that stood still and was reaped cannot take new work
 * when it wakes up.
 *
 * `RunClaims` is what the queue needs of the claims. The host's
 * implementation is `ExecutionClaims` (execution-runs.ts), on the columns
 * `claimed_by`, `claimed_at` and `kill_requested` of its executions table;
 * the blocks' tests use one on a table of their own
 * (test/support/table-run-claims.ts).
 */

/** One execution of a process, as the queue carries it. */
export interface QueuedRun {
  processId: number;
  executionId: number;
}

/** Rows of `executionId` and `processId` (PostgreSQL's bigints come back as text) as runs. */
export function toQueuedRuns(
  rows: readonly { executionId: number | string; processId: number | string }[],
): QueuedRun[] {
  return rows.map((row) => ({ executionId: Number(row.executionId), processId: Number(row.processId) }));
}

export interface RunClaims {
  /** Takes the execution for `hostId` if nobody has, it is still wanted, and the host's lease is current. */
  claim(run: QueuedRun, hostId: string): Promise<boolean>;
  /** Of these executions, the ones nobody claimed that are still wanted (neither canceled nor ended). */
  unclaimed(executionIds: readonly number[]): Promise<number[]>;
  /** The host that claimed the execution, or null (asked when a claim's answer was lost). */
  claimedBy(executionId: number): Promise<string | null>;
  /** Runs nobody claimed, still wanted, created more than `olderThanMs` ago (the sweep checks they have a job). */
  waiting(olderThanMs: number): Promise<QueuedRun[]>;
}

/** The error of a run whose host was lost: the reaper ends it `failed` with this (`ExecutionRuns.endRunsOfLostHosts`). */
export const WORKER_LOST = "interrupted: worker lost";
