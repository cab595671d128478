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
 * `RunClaims` is what the queue needs; `TableRunClaims` implements it on
 * `cluster_run_claims`, which the tests use and the wiring maps column by
 * column onto the executions table (new columns `claimed_by`, `claimed_at`,
 * `kill_requested`; the end and exit state it already has): the SQL here is
 * the SQL the wiring runs there.
 */
import type { Queryable } from "./sql.js";

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

/** An execution's claim row as the tests read it. */
export interface ClaimRow {
  executionId: number;
  processId: number;
  claimedBy: string | null;
  canceled: boolean;
  outcome: string | null;
}

/** The lost-worker outcome (the wiring ends such processes `failed` with this error). */
export const WORKER_LOST = "interrupted: worker lost";

export class TableRunClaims implements RunClaims {
  constructor(private readonly db: Queryable) {}

  /** The execution's row, written with the process (pass the same transaction as `ProcessQueue.enqueue`). */
  async record(run: QueuedRun, tx?: Queryable): Promise<void> {
    await (tx ?? this.db).query("INSERT INTO cluster_run_claims (execution_id, process_id) VALUES ($1, $2)", [
      run.executionId,
      run.processId,
    ]);
  }

  async claim(run: QueuedRun, hostId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE cluster_run_claims SET claimed_by = $2, claimed_at = now()
       WHERE execution_id = $1 AND claimed_by IS NULL AND NOT canceled AND ended_at IS NULL
         AND EXISTS (SELECT 1 FROM cluster_hosts WHERE id = $2 AND lease_expires_at > now())`,
      [run.executionId, hostId],
    );
    return rowCount === 1;
  }

  async unclaimed(executionIds: readonly number[]): Promise<number[]> {
    if (executionIds.length === 0) return [];
    const { rows } = await this.db.query(
      `SELECT execution_id AS id FROM cluster_run_claims
       WHERE execution_id = ANY($1) AND claimed_by IS NULL AND NOT canceled AND ended_at IS NULL`,
      [executionIds],
    );
    return rows.map((row: { id: string }) => Number(row.id));
  }

  async waiting(olderThanMs: number): Promise<QueuedRun[]> {
    const { rows } = await this.db.query(
      `SELECT execution_id AS "executionId", process_id AS "processId" FROM cluster_run_claims
       WHERE claimed_by IS NULL AND NOT canceled AND ended_at IS NULL
         AND created_at < now() - $1 * interval '1 millisecond'
       ORDER BY execution_id LIMIT 1000`,
      [olderThanMs],
    );
    return toQueuedRuns(rows);
  }

  async claimedBy(executionId: number): Promise<string | null> {
    const { rows } = await this.db.query("SELECT claimed_by FROM cluster_run_claims WHERE execution_id = $1", [
      executionId,
    ]);
    return rows[0]?.claimed_by ?? null;
  }

  /**
   * Records a kill, the first step of killing a run from any host. A run
   * nobody claimed yet is canceled here, and no host will ever claim it
   * (`"canceled"`). A claimed run is marked, and the caller then signals the
   * host that runs it (`"signal"`: `ProcessSignals.kill`); that host also
   * reads the mark when it attaches the run and after a gap in its
   * notifications, so a kill is never lost with a notification. An ended run
   * has nothing to kill (`"ended"`).
   */
  async requestKill(executionId: number, tx?: Queryable): Promise<"canceled" | "signal" | "ended"> {
    const { rows } = await (tx ?? this.db).query(
      `UPDATE cluster_run_claims SET kill_requested = true,
         canceled = canceled OR claimed_by IS NULL,
         ended_at = CASE WHEN claimed_by IS NULL THEN now() ELSE ended_at END,
         outcome = CASE WHEN claimed_by IS NULL THEN 'canceled' ELSE outcome END
       WHERE execution_id = $1 AND ended_at IS NULL
       RETURNING claimed_by AS "claimedBy"`,
      [executionId],
    );
    const row = rows[0] as { claimedBy: string | null } | undefined;
    if (!row) return "ended";
    return row.claimedBy === null ? "canceled" : "signal";
  }

  /** Whether a kill was recorded for the run (the executing host asks when it attaches it, and after a gap). */
  async killRequested(executionId: number): Promise<boolean> {
    const { rows } = await this.db.query("SELECT kill_requested FROM cluster_run_claims WHERE execution_id = $1", [
      executionId,
    ]);
    return rows[0]?.kill_requested === true;
  }

  /** The claiming host records the end; refused (false) when the run was already ended for it (it was lost). */
  async finish(executionId: number, hostId: string, outcome: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE cluster_run_claims SET ended_at = now(), outcome = $3
       WHERE execution_id = $1 AND claimed_by = $2 AND ended_at IS NULL`,
      [executionId, hostId, outcome],
    );
    return rowCount === 1;
  }

  /** The reaper's callback: ends every run the lost hosts had, in the reaper's transaction. */
  async endRunsOfLostHosts(hostIds: readonly string[], tx: Queryable): Promise<QueuedRun[]> {
    const { rows } = await tx.query(
      `UPDATE cluster_run_claims SET ended_at = now(), outcome = $2
       WHERE claimed_by = ANY($1) AND ended_at IS NULL
       RETURNING execution_id AS "executionId", process_id AS "processId"`,
      [hostIds, `failed: ${WORKER_LOST}`],
    );
    return toQueuedRuns(rows);
  }

  async get(executionId: number): Promise<ClaimRow | null> {
    const { rows } = await this.db.query(
      `SELECT execution_id AS "executionId", process_id AS "processId", claimed_by AS "claimedBy", canceled, outcome
       FROM cluster_run_claims WHERE execution_id = $1`,
      [executionId],
    );
    const row = rows[0] as (Omit<ClaimRow, "executionId" | "processId"> & Record<string, unknown>) | undefined;
    return row ? { ...row, executionId: Number(row.executionId), processId: Number(row.processId) } : null;
  }
}
