/**
 * The PostgreSQL processes store. The statements every process runs are
 * named prepared statements (node-postgres prepares each once per
 * connection). Multi-row changes are transactions; a run's counter is
 * incremented in SQL, so two hosts starting runs cannot lose one.
 */
import type { ExecutionExitState } from "@cyrnel/sdk";
import { and, desc, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { PgDb } from "../../db/client-pg.js";
import { approvals, calls, escapeNul, executions, processes, unescapeNul } from "../../db/schema-pg.js";
import { CyrnelError } from "../../errors.js";
import type {
  NewProcess,
  ProcessFilter,
  ProcessResult,
  ProcessRow,
  ProcessState,
  ProcessStore,
  QueuedRunOptions,
  RunIds,
} from "./process-store.js";

const param = (name: string) => sql.placeholder(name);
/** A placeholder where drizzle's types want SQL (`set`). */
const raw = (name: string) => sql`${sql.placeholder(name)}`;

/** Every state but idle: a process in one of them counts against its key (`countActive`). */
const ACTIVE_STATES = ["queued", "running", "suspended", "terminating"] as const;

export class PgProcessStore implements ProcessStore {
  private readonly statements;

  constructor(private readonly db: PgDb) {
    this.statements = {
      get: db
        .select()
        .from(processes)
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_get"),
      setState: db
        .update(processes)
        .set({ state: raw("state") })
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_set_state"),
      setRunning: db
        .update(processes)
        .set({ state: "running", startedAt: raw("startedAt") })
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_set_running"),
    };
  }

  async create(
    values: NewProcess,
    environment: string,
    queued?: QueuedRunOptions,
  ): Promise<RunIds & { row?: ProcessRow }> {
    const createdAt = new Date().toISOString();
    if (queued) {
      // One statement: the process, its first run and the run's job, committed together.
      const { rows } = await this.db.$client.query(
        `WITH p AS (
           INSERT INTO processes (code, ref, timeout_ms, key_id, state, runs, created_at)
           VALUES ($1, $2, $3, $4, 'queued', 1, $5) RETURNING *
         ), e AS (
           INSERT INTO executions (process_id, environment, created_at, typecheck)
           SELECT id, $6, $5, $7 FROM p RETURNING id, process_id
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
        ],
      );
      const row = rows[0] as Record<string, unknown>;
      return { processId: Number(row.id), executionId: Number(row.execution_id), row: processRowOf(row) };
    }
    return this.db.transaction(async (tx) => {
      const [process] = await tx
        .insert(processes)
        .values({ ...values, state: "queued", runs: 1, createdAt })
        .returning({ id: processes.id });
      const [execution] = await tx
        .insert(executions)
        .values({ processId: process!.id, environment, createdAt })
        .returning({ id: executions.id });
      return { processId: process!.id, executionId: execution!.id };
    });
  }

  async get(id: number): Promise<ProcessRow | undefined> {
    return (await this.statements.get.execute({ id }))[0];
  }

  list(filter: ProcessFilter): Promise<ProcessRow[]> {
    const conditions: (SQL | undefined)[] = [
      filter.keyId !== undefined ? eq(processes.keyId, filter.keyId) : undefined,
      filter.state && eq(processes.state, filter.state),
      filter.exitState && eq(processes.exitState, filter.exitState),
      filter.ref !== undefined ? eq(processes.ref, filter.ref) : undefined,
      filter.before !== undefined ? lt(processes.id, filter.before) : undefined,
    ];
    return this.db
      .select()
      .from(processes)
      .where(and(...conditions))
      .orderBy(desc(processes.id))
      .limit(filter.limit + 1);
  }

  async startRun(processId: number, environment: string, queued?: QueuedRunOptions): Promise<number> {
    const createdAt = new Date().toISOString();
    if (queued) {
      // One statement: the process is taken only while it is idle (two hosts never start two runs of it), its run
      // and the run's job are written with it.
      const { rows } = await this.db.$client.query(
        `WITH p AS (
           UPDATE processes SET state = 'queued', exit_state = NULL, error = NULL, output = NULL, stdout = '',
             stderr = '', started_at = NULL, finished_at = NULL, runs = runs + 1
           WHERE id = $1 AND state = 'idle' RETURNING id
         ), e AS (
           INSERT INTO executions (process_id, environment, created_at, typecheck)
           SELECT id, $2, $3, $4 FROM p RETURNING id, process_id
         ), j AS (SELECT ${queued.addJob("e.process_id", "e.id")} FROM e)
         SELECT e.id AS execution_id FROM e, j`,
        [processId, escapeNul(environment), createdAt, queued.typecheck ?? null],
      );
      if (rows.length === 0)
        throw new CyrnelError("conflict", `process ${processId} is running; it must be idle to run`);
      return Number((rows[0] as { execution_id: number }).execution_id);
    }
    return this.db.transaction(async (tx) => {
      const [execution] = await tx
        .insert(executions)
        .values({ processId, environment, createdAt })
        .returning({ id: executions.id });
      await tx
        .update(processes)
        .set({
          state: "queued",
          exitState: null,
          error: null,
          output: null,
          stdout: "",
          stderr: "",
          startedAt: null,
          finishedAt: null,
          runs: sql`${processes.runs} + 1`,
        })
        .where(eq(processes.id, processId));
      return execution!.id;
    });
  }

  async setState(processId: number, state: ProcessState): Promise<void> {
    await this.statements.setState.execute({ id: processId, state });
  }

  async setRunning(processId: number, startedAt: string): Promise<void> {
    await this.statements.setRunning.execute({ id: processId, startedAt });
  }

  async finish(processId: number, executionId: number, result: ProcessResult): Promise<void> {
    const finishedAt = new Date().toISOString();
    await this.db.transaction(async (tx) => {
      await tx
        .update(processes)
        .set({ state: "idle", ...result, finishedAt })
        .where(eq(processes.id, processId));
      await tx
        .update(executions)
        .set({ exitState: result.exitState, finishedAt })
        .where(eq(executions.id, executionId));
    });
  }

  async countActive(keyId: string): Promise<number> {
    const [row] = await this.db
      .select({ count: sql<number>`count(*)::int` })
      .from(processes)
      .where(and(inArray(processes.state, ACTIVE_STATES), eq(processes.keyId, keyId)));
    return Number(row?.count ?? 0);
  }

  async delete(id: number): Promise<void> {
    await this.db.delete(processes).where(eq(processes.id, id));
  }

  prune(finishedBefore: string, exitState?: ExecutionExitState): Promise<number> {
    const old = and(
      eq(processes.state, "idle"),
      lt(processes.finishedAt, finishedBefore),
      exitState === undefined ? undefined : eq(processes.exitState, exitState),
    );
    return this.db.transaction(async (tx) => {
      const ids = tx.select({ id: processes.id }).from(processes).where(old);
      await tx.delete(calls).where(inArray(calls.processId, ids));
      await tx.delete(approvals).where(inArray(approvals.processId, ids));
      return (await tx.delete(processes).where(old)).rowCount ?? 0;
    });
  }

  markInterrupted(): Promise<number> {
    const finishedAt = new Date().toISOString();
    return this.db.transaction(async (tx) => {
      const interrupted = await tx
        .update(processes)
        .set({ state: "idle", exitState: "failed", error: "interrupted: host restarted", finishedAt })
        .where(inArray(processes.state, ["queued", "running", "suspended", "terminating"]))
        .returning({ id: processes.id });
      if (interrupted.length > 0) {
        await tx
          .update(executions)
          .set({ exitState: "failed", finishedAt })
          .where(
            and(
              inArray(
                executions.processId,
                interrupted.map((row) => row.id),
              ),
              isNull(executions.exitState),
            ),
          );
      }
      return interrupted.length;
    });
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
