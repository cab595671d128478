/**
 * Run claims on a table of their own, `cluster_run_claims`, for the tests of
 * the cluster blocks (src/cluster/*.test.ts, cluster-worker.ts): they run the
 * queue, leases and signals without writing the host's processes and
 * executions. The host claims runs on its executions table instead
 * (`ExecutionClaims`, src/cluster/execution-runs.ts), by the same rules: a
 * claim takes only a run nobody took that is still wanted (no kill, not
 * ended), and only while the claiming host's lease is current.
 *
 * The table is the test's own: `createRunClaimsTable` makes it in the test's
 * database, beside the host's schema (the claim reads `cluster_hosts`).
 */
import { type QueuedRun, type RunClaims, toQueuedRuns, WORKER_LOST } from "../../src/cluster/run-claims.js";
import type { Queryable } from "../../src/cluster/sql.js";

/** One row per execution: which host claimed it, whether it was canceled or a kill asked for, and how it ended. */
export const RUN_CLAIMS_TABLE_SQL = `
CREATE TABLE cluster_run_claims (
  execution_id bigint PRIMARY KEY,
  process_id bigint NOT NULL,
  claimed_by text,
  claimed_at timestamptz,
  canceled boolean NOT NULL DEFAULT false,
  kill_requested boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  outcome text
);
CREATE INDEX cluster_run_claims_claimed_by ON cluster_run_claims (claimed_by) WHERE ended_at IS NULL;
`;

/** Creates `cluster_run_claims` in the test's database. */
export async function createRunClaimsTable(db: Queryable): Promise<void> {
  await db.query(RUN_CLAIMS_TABLE_SQL);
}

/** An execution's claim row as the tests read it. */
export interface ClaimRow {
  executionId: number;
  processId: number;
  claimedBy: string | null;
  canceled: boolean;
  outcome: string | null;
}

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
