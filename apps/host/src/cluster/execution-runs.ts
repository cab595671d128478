/**
 * The process queue's SQL on the host's own tables (PostgreSQL): the claim
 * (`RunClaims`, run-claims.ts) on the executions table (its columns
 * `claimed_by`, `claimed_at`, `kill_requested`, `enqueued_at`, `typecheck`),
 * and every write of a run that may be on any host.
 *
 * Two rules hold every statement here:
 * - **The claim is the fence.** The executing host writes a process row
 *   only while its execution is still claimed by it and not ended: once the
 *   reaper ended the run of a host it thought lost (or a kill ended a run
 *   nobody had taken), a late write from that host changes nothing.
 * - **An ending tells the readers.** Whatever ends a run that its host will
 *   not end (a kill before any host took it, the reaper, the queue-timeout
 *   sweep) sends the run's end frame in the same transaction, so readers on
 *   every host stop waiting exactly when the final row is there.
 *
 * Times the sweeps compare are the database's (`now()`); the ISO text
 * columns the API shows (`finished_at`) are written from this host's clock
 * as everywhere else.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type pg from "pg";
import type { PgDb } from "../db/client-pg.js";
import { approvals, escapeNul, executions, processes, unescapeNul } from "../db/schema-pg.js";
import { approvalSummaryColumns } from "../db/stores/approval-store.js";
import type { ApprovalSummary } from "../domain/governance/approval-store.js";
import type { ClaimedRun } from "../domain/processes/process-runner.js";
import type { ProcessResult, ProcessState, RunIds } from "../domain/processes/process-store.js";
import { type QueuedRun, type RunClaims, toQueuedRuns, WORKER_LOST } from "./run-claims.js";
import { sendRunEnded } from "./run-events.js";
import { inTransaction, type Queryable } from "./sql.js";

/** What the executing host reads of a run it claimed (the runner's `ClaimedRun`, as stored). */
export type RunToExecute = Omit<ClaimedRun, keyof RunIds | "killRequested" | "recorder"> & { killRequested: boolean };

/** A process row as a reader of its run needs it (`RunSnapshot` of run-events.ts). */
export interface RunSnapshotRow {
  executionId: number;
  stdout: string;
  stderr: string;
  ended: boolean;
}

const WORKER_LOST_APPROVAL = "the host running the process was lost";

/** What the executing host reads of a run (`e`: its execution, `p`: its process). */
const RUN_COLUMNS = `p.code, p.timeout_ms, p.key_id, e.typecheck, e.environment, e.kill_requested, e.traceparent, e.tracestate,
  e.attempts,
  (extract(epoch FROM now() - e.enqueued_at) * 1000)::float8 AS waited_ms`;

interface RunRow {
  code: string;
  timeout_ms: number | null;
  key_id: string | null;
  typecheck: boolean | null;
  environment: string;
  kill_requested: boolean;
  traceparent: string | null;
  tracestate: string | null;
  attempts: number;
  waited_ms: number;
}

function toRun(row: RunRow): RunToExecute {
  return {
    code: unescapeNul(row.code),
    timeoutMs: row.timeout_ms,
    keyId: row.key_id === null ? null : unescapeNul(row.key_id),
    typecheck: row.typecheck,
    environmentId: unescapeNul(row.environment),
    waitedMs: Math.max(0, Number(row.waited_ms)),
    attempt: Number(row.attempts),
    killRequested: row.kill_requested,
    trace:
      row.traceparent === null
        ? null
        : { traceparent: row.traceparent, ...(row.tracestate === null ? {} : { tracestate: row.tracestate }) },
  };
}

export class ExecutionClaims implements RunClaims {
  /** What each claim just read of its run, for the handler that runs it next (`take`): one query less per run. */
  private readonly claimed = new Map<number, RunToExecute>();

  constructor(private readonly pool: pg.Pool) {}

  async claim(run: QueuedRun, hostId: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      `UPDATE executions e SET claimed_by = $2, claimed_at = now(), wake_at = NULL
       FROM processes p
       WHERE e.id = $1 AND e.process_id = $3 AND p.id = e.process_id
         AND e.claimed_by IS NULL AND NOT e.kill_requested AND e.finished_at IS NULL
         AND EXISTS (SELECT 1 FROM cluster_hosts WHERE id = $2 AND lease_expires_at > now())
       RETURNING ${RUN_COLUMNS}`,
      [run.executionId, hostId, run.processId],
    );
    if (rows.length !== 1) return false;
    this.claimed.set(run.executionId, toRun(rows[0] as RunRow));
    return true;
  }

  /** The run as its claim read it (once), or undefined (the claim's answer was lost: read it again). */
  take(executionId: number): RunToExecute | undefined {
    const run = this.claimed.get(executionId);
    this.claimed.delete(executionId);
    return run;
  }

  async unclaimed(executionIds: readonly number[]): Promise<number[]> {
    if (executionIds.length === 0) return [];
    const { rows } = await this.pool.query(
      `SELECT id FROM executions
       WHERE id = ANY($1) AND claimed_by IS NULL AND NOT kill_requested AND finished_at IS NULL`,
      [executionIds],
    );
    return rows.map((row: { id: number }) => Number(row.id));
  }

  async claimedBy(executionId: number): Promise<string | null> {
    const { rows } = await this.pool.query("SELECT claimed_by FROM executions WHERE id = $1", [executionId]);
    return rows[0]?.claimed_by ?? null;
  }

  async waiting(olderThanMs: number): Promise<QueuedRun[]> {
    const { rows } = await this.pool.query(
      `SELECT id AS "executionId", process_id AS "processId" FROM executions
       WHERE claimed_by IS NULL AND finished_at IS NULL AND NOT kill_requested
         AND enqueued_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM processes p WHERE p.id = process_id AND p.state = 'suspended')
       ORDER BY id LIMIT 1000`,
      [olderThanMs],
    );
    return toQueuedRuns(rows);
  }
}

export class ExecutionRuns {
  private readonly pool: pg.Pool;

  constructor(private readonly db: PgDb) {
    this.pool = db.$client;
  }

  // ---- any host ----------------------------------------------------------------------

  /** How many runs wait for a host, counted up to `limit` (the count stops there: it is asked per submission). */
  async waitingCount(limit: number): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM executions e WHERE e.claimed_by IS NULL AND e.finished_at IS NULL
           AND e.enqueued_at <= now()
           AND NOT EXISTS (SELECT 1 FROM processes p WHERE p.id = e.process_id AND p.state = 'suspended')
         LIMIT $1
       ) AS waiting`,
      [limit],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The pending approvals of these processes, oldest first, by process. */
  async pendingApprovals(processIds: readonly number[]): Promise<Map<number, ApprovalSummary[]>> {
    const byProcess = new Map<number, ApprovalSummary[]>();
    if (processIds.length === 0) return byProcess;
    const rows = await this.db
      .select(approvalSummaryColumns(approvals))
      .from(approvals)
      .where(and(inArray(approvals.processId, [...processIds]), eq(approvals.state, "pending")))
      .orderBy(asc(approvals.id));
    for (const row of rows) {
      const list = byProcess.get(row.processId) ?? [];
      list.push(row);
      byProcess.set(row.processId, list);
    }
    return byProcess;
  }

  /** The process's text so far and its current run, for a reader on any host. */
  async snapshot(processId: number): Promise<RunSnapshotRow> {
    const { rows } = await this.pool.query(
      `SELECT p.stdout, p.stderr, p.state, e.id AS execution_id, e.finished_at
       FROM processes p
       LEFT JOIN LATERAL (SELECT id, finished_at FROM executions WHERE process_id = p.id ORDER BY id DESC LIMIT 1) e
         ON true
       WHERE p.id = $1`,
      [processId],
    );
    const row = rows[0] as
      | { stdout: string; stderr: string; state: string; execution_id: number | null; finished_at: string | null }
      | undefined;
    // A deleted process has nothing more to follow: an ended, empty run.
    if (!row) return { executionId: -1, stdout: "", stderr: "", ended: true };
    return {
      executionId: row.execution_id === null ? -1 : Number(row.execution_id),
      stdout: unescapeNul(row.stdout),
      stderr: unescapeNul(row.stderr),
      ended: row.state === "idle" || row.finished_at !== null,
    };
  }

  /**
   * Records a kill of the process's current run (see `RunQueue.kill`). A run
   * no host took is ended `canceled` here — the claim refuses an ended run,
   * so no host ever runs it — and its readers are told in this transaction.
   * A taken run is marked; `signal(tx)` then tells its host on commit.
   */
  requestKill(processId: number, signal: (tx: Queryable) => Promise<void>): Promise<"canceled" | "signal" | "ended"> {
    return inTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query(
        `SELECT id, claimed_by, finished_at FROM executions WHERE process_id = $1 ORDER BY id DESC LIMIT 1 FOR UPDATE`,
        [processId],
      );
      const run = rows[0] as { id: number; claimed_by: string | null; finished_at: string | null } | undefined;
      if (!run || run.finished_at !== null) return "ended";
      const executionId = Number(run.id);
      if (run.claimed_by !== null) {
        await tx.query("UPDATE executions SET kill_requested = true WHERE id = $1", [executionId]);
        await signal(tx);
        return "signal";
      }
      const finishedAt = new Date().toISOString();
      await tx.query(
        `UPDATE executions SET kill_requested = true, exit_state = 'canceled', finished_at = $2 WHERE id = $1`,
        [executionId, finishedAt],
      );
      await tx.query(
        `UPDATE processes SET state = 'idle', exit_state = 'canceled', error = 'canceled', finished_at = $2
         WHERE id = $1`,
        [processId, finishedAt],
      );
      // A run evicted while it waited has its approvals as rows only: nothing will wait for them any more.
      await tx.query(
        `UPDATE approvals SET state = 'expired', reason = 'the process was canceled', decided_at = $2, decided_by = NULL
         WHERE execution_id = $1 AND state = 'pending'`,
        [executionId, finishedAt],
      );
      await sendRunEnded(tx, processId, executionId);
      return "canceled";
    });
  }

  /**
   * Ends `canceled` every run of `environment` that no host took yet (the
   * environment was disabled, deleted or restarted: on one host its queued
   * processes are canceled then too). Conditional like a kill, so it races
   * safely with claims. Resolves how many it ended.
   */
  cancelWaiting(environment: string, reason: string): Promise<number> {
    return inTransaction(this.pool, async (tx) => {
      const finishedAt = new Date().toISOString();
      const { rows } = await tx.query(
        `UPDATE executions SET kill_requested = true, exit_state = 'canceled', finished_at = $2
         WHERE claimed_by IS NULL AND finished_at IS NULL AND environment = $1
         RETURNING id AS "executionId", process_id AS "processId"`,
        [escapeNul(environment), finishedAt],
      );
      const ended = rows.map((row: { executionId: number; processId: number }) => ({
        executionId: Number(row.executionId),
        processId: Number(row.processId),
      }));
      if (ended.length === 0) return 0;
      await tx.query(
        `UPDATE processes SET state = 'idle', exit_state = 'canceled', error = $2, finished_at = $3 WHERE id = ANY($1)`,
        [ended.map((run) => run.processId), escapeNul(reason), finishedAt],
      );
      for (const run of ended) await sendRunEnded(tx, run.processId, run.executionId);
      return ended.length;
    });
  }

  /**
   * Ends the runs nobody took before their `timeoutMs` ran out (the sweep
   * every host runs): a run may wait for a host at most its timeout, as it
   * may wait in an environment's queue. Conditional, so it races safely with
   * a claim: whichever commits first wins. Resolves the runs it ended (and
   * only it: the metrics of the host that swept count them).
   */
  endTimedOutWaiting(): Promise<QueuedRun[]> {
    return this.endTimedOut(
      `e.claimed_by IS NULL AND p.state <> 'suspended'
       AND e.enqueued_at + p.timeout_ms * interval '1 millisecond' < now()`,
      [],
      "ms waiting in the queue; the code never ran",
    );
  }

  /**
   * Ends the runs a live host claimed but never ended, long past their
   * `timeoutMs` (the same sweep): the executing host ends its runs itself at
   * their deadline and keeps retrying the final row through storage faults,
   * so such a run means the host lost track of it (a claim whose answer was
   * lost, a final write it gave up). A run that waited for an approval since
   * it was claimed is left to its host: approval waits stop its clock. Ends
   * them `timeout`, tells the readers; resolves the runs it ended.
   */
  endOverdueClaimed(graceMs: number): Promise<QueuedRun[]> {
    return this.endTimedOut(
      `e.claimed_by IS NOT NULL AND p.state <> 'suspended'
       AND e.claimed_at + (p.timeout_ms + $2::bigint) * interval '1 millisecond' < now()
       AND NOT EXISTS (
         SELECT 1 FROM approvals a WHERE a.process_id = p.id
           AND a.created_at >= to_char(e.claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
       )`,
      [graceMs],
      "ms; the host running it did not record its end",
    );
  }

  /**
   * The sweeps' one statement pair: the unended runs with a timeout that match `condition` (over `e`, the
   * execution, and `p`, its process; its parameters from `$2`) end `timeout`, their processes say
   * `timed out after <timeoutMs> <why>`, and their readers are told, in one transaction.
   */
  private endTimedOut(condition: string, params: unknown[], why: string): Promise<QueuedRun[]> {
    return inTransaction(this.pool, async (tx) => {
      const finishedAt = new Date().toISOString();
      const { rows } = await tx.query(
        `UPDATE executions e SET exit_state = 'timeout', finished_at = $1
         FROM processes p
         WHERE p.id = e.process_id AND e.finished_at IS NULL AND p.timeout_ms IS NOT NULL AND ${condition}
         RETURNING e.id AS "executionId", e.process_id AS "processId"`,
        [finishedAt, ...params],
      );
      const ended = toQueuedRuns(rows);
      if (ended.length === 0) return ended;
      await tx.query(
        `UPDATE processes SET state = 'idle', exit_state = 'timeout', finished_at = $2,
           error = 'timed out after ' || timeout_ms || $3
         WHERE id = ANY($1)`,
        [ended.map((run) => run.processId), finishedAt, ` ${why}`],
      );
      for (const run of ended) await sendRunEnded(tx, run.processId, run.executionId);
      return ended;
    });
  }

  /**
   * The reaper's work (`HostLeases.onHostsLost`, in its transaction): every
   * run the lost hosts had ends `failed` with `interrupted: worker lost`,
   * keeping the text its host had written so far; the approvals those runs
   * waited for expire; readers are told. Resolves the runs it ended.
   */
  async endRunsOfLostHosts(hostIds: readonly string[], tx: Queryable): Promise<QueuedRun[]> {
    const finishedAt = new Date().toISOString();
    const { rows } = await tx.query(
      `UPDATE executions SET exit_state = 'failed', finished_at = $2
       WHERE claimed_by = ANY($1) AND finished_at IS NULL AND (not_durable IS NOT NULL OR kill_requested)
       RETURNING id AS "executionId", process_id AS "processId"`,
      [hostIds, finishedAt],
    );
    const ended = toQueuedRuns(rows);
    if (ended.length === 0) return ended;
    const processIds = ended.map((run) => run.processId);
    await tx.query(
      `UPDATE processes SET state = 'idle', exit_state = 'failed', error = $2, finished_at = $3 WHERE id = ANY($1)`,
      [processIds, WORKER_LOST, finishedAt],
    );
    await tx.query(
      `UPDATE approvals SET state = 'expired', reason = $2, decided_at = $3, decided_by = NULL
       WHERE process_id = ANY($1) AND state = 'pending'`,
      [processIds, WORKER_LOST_APPROVAL, finishedAt],
    );
    for (const run of ended) await sendRunEnded(tx, run.processId, run.executionId);
    return ended;
  }

  /**
   * Durable runs (domain/processes/run-journal.ts) of hosts that are gone, or of this host as it stops
   * (`hostIds`; `executionId`: only that run), are put back in the queue instead of ended: unclaimed, waiting again,
   * their process `queued`, and a new attempt begun, so the host that had them can journal nothing more. The host
   * that takes one resumes it from its journal; the approvals its calls wait for stay pending for it. Resolves the
   * runs to queue again (their jobs are the caller's, in the same transaction).
   */
  async requeueDurable(hostIds: readonly string[], tx: Queryable, executionId?: number): Promise<QueuedRun[]> {
    // A run that waits for an approval stays unqueued (evicted) until its approvals are decided (`wakeEvicted`).
    const { rows } = await tx.query(
      `WITH freed AS (
         UPDATE executions SET claimed_by = NULL, claimed_at = NULL, enqueued_at = now(), attempts = attempts + 1
         WHERE claimed_by = ANY($1) AND finished_at IS NULL AND not_durable IS NULL AND NOT kill_requested
           AND ($2::int IS NULL OR id = $2)
         RETURNING id, process_id
       )
       SELECT f.id AS "executionId", f.process_id AS "processId" FROM freed f JOIN processes p ON p.id = f.process_id
       WHERE NOT (p.state = 'suspended'
         AND EXISTS (SELECT 1 FROM approvals a WHERE a.execution_id = f.id AND a.state = 'pending'))`,
      [hostIds, executionId ?? null],
    );
    const requeued = toQueuedRuns(rows);
    if (requeued.length > 0) {
      await tx.query("UPDATE processes SET state = 'queued' WHERE id = ANY($1) AND state <> 'idle'", [
        requeued.map((run) => run.processId),
      ]);
    }
    return requeued;
  }

  /**
   * This host evicts a run that waits for an approval (it holds no sandbox while it waits): the run is let go of
   * without a job, its process stays `suspended`, and a new attempt is begun. It is queued again once no approval
   * of it is pending (`wakeEvicted`), at once if one was decided while it was being let go of. Resolves the run
   * when it must be queued now (its job is the caller's, in the same transaction).
   */
  async evict(run: QueuedRun, hostId: string, tx: Queryable): Promise<QueuedRun[]> {
    const { rows } = await tx.query(
      `UPDATE executions SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1
       WHERE id = $1 AND claimed_by = $2 AND finished_at IS NULL AND not_durable IS NULL AND NOT kill_requested
       RETURNING id`,
      [run.executionId, hostId],
    );
    if (rows.length === 0) return [];
    return this.wakeEvicted(run.executionId, tx);
  }

  /**
   * This host lets go of a run while it sleeps (it waits for nothing but a timer, due at `wakeAt`, ISO): unclaimed,
   * a new attempt begun, its process left as it is, and queued for then — `enqueued_at` is its wake-up, so no sweep
   * takes it for a run waiting for a host before it is due. Resolves the run (its job, due at `wakeAt`, is the
   * caller's, in the same transaction); none when it was not this host's to let go of any more.
   */
  async sleep(run: QueuedRun, hostId: string, wakeAt: string, tx: Queryable): Promise<QueuedRun[]> {
    const { rows } = await tx.query(
      `UPDATE executions SET claimed_by = NULL, claimed_at = NULL, attempts = attempts + 1, wake_at = $3::text,
         enqueued_at = $3::timestamptz
       WHERE id = $1 AND claimed_by = $2 AND finished_at IS NULL AND not_durable IS NULL AND NOT kill_requested
       RETURNING id AS "executionId", process_id AS "processId"`,
      [run.executionId, hostId, wakeAt],
    );
    return toQueuedRuns(rows);
  }

  /**
   * An evicted run (unclaimed, its process `suspended`) whose approvals are all decided goes back in the queue,
   * to be resumed from its journal; resolves it then (its job is the caller's).
   */
  async wakeEvicted(executionId: number, tx: Queryable): Promise<QueuedRun[]> {
    const { rows } = await tx.query(
      `UPDATE executions e SET enqueued_at = now()
       FROM processes p
       WHERE e.id = $1 AND p.id = e.process_id AND e.claimed_by IS NULL AND e.finished_at IS NULL
         AND p.state = 'suspended'
         AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.execution_id = e.id AND a.state = 'pending')
       RETURNING e.id AS "executionId", e.process_id AS "processId"`,
      [executionId],
    );
    const woken = toQueuedRuns(rows);
    if (woken.length > 0) {
      await tx.query("UPDATE processes SET state = 'queued' WHERE id = ANY($1)", [woken.map((w) => w.processId)]);
    }
    return woken;
  }

  // ---- the executing host ------------------------------------------------------------

  /** The run this host claimed, with what it needs to run it; undefined if its process is gone. */
  async read(executionId: number): Promise<RunToExecute | undefined> {
    const { rows } = await this.pool.query(
      `SELECT ${RUN_COLUMNS} FROM executions e JOIN processes p ON p.id = e.process_id WHERE e.id = $1`,
      [executionId],
    );
    return rows[0] === undefined ? undefined : toRun(rows[0] as RunRow);
  }

  async killRequested(executionId: number): Promise<boolean> {
    const { rows } = await this.pool.query("SELECT kill_requested FROM executions WHERE id = $1", [executionId]);
    return rows[0]?.kill_requested === true;
  }

  async setState(run: QueuedRun, hostId: string, state: ProcessState): Promise<void> {
    await this.db
      .update(processes)
      .set({ state })
      .where(and(eq(processes.id, run.processId), this.stillClaimed(run, hostId)));
  }

  async setRunning(run: QueuedRun, hostId: string, startedAt: string): Promise<void> {
    await this.db
      .update(processes)
      .set({ state: "running", startedAt })
      .where(and(eq(processes.id, run.processId), this.stillClaimed(run, hostId)));
  }

  /** The text so far, for readers on other hosts (run-events.ts); never over an ended run's final row. */
  async persistText(run: QueuedRun, hostId: string, text: { stdout: string; stderr: string }): Promise<void> {
    await this.pool.query(
      `UPDATE processes SET stdout = $3, stderr = $4
       WHERE id = $1 AND state <> 'idle'
         AND EXISTS (SELECT 1 FROM executions WHERE id = $2 AND claimed_by = $5 AND finished_at IS NULL)`,
      [run.processId, run.executionId, escapeNul(text.stdout), escapeNul(text.stderr), hostId],
    );
  }

  /**
   * The final row, written only while this host still has the run (a run
   * the reaper or a kill already ended keeps what they wrote). Resolves
   * whether it was written.
   */
  async finish(run: QueuedRun, hostId: string, result: ProcessResult): Promise<boolean> {
    // One statement (one round trip, atomic): the execution ends only if this host still has it, and the process
    // row takes the results only if it did.
    const { rows } = await this.pool.query(
      `WITH ended AS (
         UPDATE executions SET exit_state = $3, finished_at = $4
         WHERE id = $2 AND claimed_by = $5 AND finished_at IS NULL
         RETURNING id
       )
       UPDATE processes SET state = 'idle', exit_state = $3, finished_at = $4, error = $6, output = $7::json,
         stdout = $8, stderr = $9
       WHERE id = $1 AND EXISTS (SELECT 1 FROM ended)
       RETURNING id`,
      [
        run.processId,
        run.executionId,
        result.exitState,
        new Date().toISOString(),
        hostId,
        result.error === null ? null : escapeNul(result.error),
        JSON.stringify(result.output),
        escapeNul(result.stdout),
        escapeNul(result.stderr),
      ],
    );
    return rows.length === 1;
  }

  private stillClaimed(run: QueuedRun, hostId: string) {
    return sql`exists (select 1 from ${executions} where ${executions.id} = ${run.executionId}
      and ${executions.claimedBy} = ${hostId} and ${executions.finishedAt} is null)`;
  }
}
