/**
 * The process store's hook on PostgreSQL (`QueuedRunWrites`, see
 * process-store.ts): a run that goes through the process queue is written
 * in one statement, its process and execution rows and its job, so they
 * commit together (or not at all), in one round trip. Data-modifying CTEs
 * around the queue's SQL expression (`addJob`), which SQLite has no form of.
 */

import type { NewProcess, ProcessRow, QueuedRunOptions, RunIds } from "../../domain/processes/process-store.js";
import { CyrnelError } from "../../errors.js";
import type { PgDb } from "../client-pg.js";
import { escapeNul, unescapeNul } from "../schema-pg.js";
import type { QueuedRunWrites } from "./process-store.js";

export class PgQueuedRunWrites implements QueuedRunWrites {
  constructor(private readonly db: PgDb) {}

  async create(
    values: NewProcess,
    environment: string,
    createdAt: string,
    queued: QueuedRunOptions,
  ): Promise<RunIds & { row: ProcessRow }> {
    const { rows } = await this.db.$client.query(
      `WITH p AS (
         INSERT INTO processes (code, ref, timeout_ms, key_id, state, runs, created_at)
         VALUES ($1, $2, $3, $4, 'queued', 1, $5) RETURNING *
       ), e AS (
         INSERT INTO executions (process_id, environment, created_at, typecheck, traceparent, tracestate)
         SELECT id, $6, $5, $7, $8, $9 FROM p RETURNING id, process_id
       ), j AS (SELECT ${queued.addJob("e.process_id", "e.id")} FROM e)
       SELECT p.*, e.id AS execution_id FROM p, e, j`,
      [
        escapeNul(values.code),
        values.ref === null ? null : escapeNul(values.ref),
        values.timeoutMs,
        values.keyId === null ? null : escapeNul(values.keyId),
        createdAt,
        escapeNul(environment),
        queued.typecheck ?? null,
        queued.trace?.traceparent ?? null,
        queued.trace?.tracestate ?? null,
      ],
    );
    const row = rows[0] as Record<string, unknown>;
    return { processId: Number(row.id), executionId: Number(row.execution_id), row: processRowOf(row) };
  }

  /** The process is taken only while it is idle: two hosts never start two runs of it. */
  async startRun(processId: number, environment: string, createdAt: string, queued: QueuedRunOptions): Promise<number> {
    const { rows } = await this.db.$client.query(
      `WITH p AS (
         UPDATE processes SET state = 'queued', exit_state = NULL, error = NULL, output = NULL, stdout = '',
           stderr = '', started_at = NULL, finished_at = NULL, runs = runs + 1
         WHERE id = $1 AND state = 'idle' RETURNING id
       ), e AS (
         INSERT INTO executions (process_id, environment, created_at, typecheck, traceparent, tracestate)
         SELECT id, $2, $3, $4, $5, $6 FROM p RETURNING id, process_id
       ), j AS (SELECT ${queued.addJob("e.process_id", "e.id")} FROM e)
       SELECT e.id AS execution_id FROM e, j`,
      [
        processId,
        escapeNul(environment),
        createdAt,
        queued.typecheck ?? null,
        queued.trace?.traceparent ?? null,
        queued.trace?.tracestate ?? null,
      ],
    );
    if (rows.length === 0) throw new CyrnelError("conflict", `process ${processId} is running; it must be idle to run`);
    return Number((rows[0] as { execution_id: number }).execution_id);
  }
}

/** A process row as `SELECT *` of raw SQL gives it (snake case, text escaped: see escapeNul). */
function processRowOf(row: Record<string, unknown>): ProcessRow {
  const text = (value: unknown) => (value === null ? null : unescapeNul(value as string));
  return {
    id: Number(row.id),
    ref: text(row.ref),
    state: row.state as ProcessRow["state"],
    exitState: row.exit_state as ProcessRow["exitState"],
    error: text(row.error),
    timeoutMs: row.timeout_ms as number | null,
    code: unescapeNul(row.code as string),
    output: row.output as ProcessRow["output"],
    stdout: unescapeNul(row.stdout as string),
    stderr: unescapeNul(row.stderr as string),
    runs: Number(row.runs),
    keyId: text(row.key_id),
    createdAt: row.created_at as string,
    startedAt: row.started_at as string | null,
    finishedAt: row.finished_at as string | null,
  };
}
