/**
 * The processes store, on either dialect (see dialect.ts): processes and
 * their executions (runs). The statements of a process's life (create,
 * state changes, finish, read by id) run for every process, so they are
 * prepared once (prepared.ts); the rest are built per call. Ids of
 * processes and executions are never reused: both are identities
 * (PostgreSQL) or AUTOINCREMENT keys (SQLite). A run's counter is
 * incremented in SQL, so two hosts starting runs cannot lose one.
 *
 * One dialect hook: the writes of a run that goes through the process queue
 * (`QueuedRunWrites`, PostgreSQL only).
 */
import type { ExecutionExitState } from "@cyrnel/sdk";
import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, notInArray, type SQL, sql } from "drizzle-orm";
import type {
  NewProcess,
  ProcessFilter,
  ProcessResult,
  ProcessRow,
  ProcessState,
  ProcessStore,
  QueuedRunOptions,
  RunIds,
} from "../../domain/processes/process-store.js";
import type { SharedDb, SqlDialect } from "../dialect.js";
import { perRunner, placeholderOf } from "../prepared.js";

/**
 * A dialect hook, not shared code: a run that goes through the process queue
 * (cluster/process-cluster.ts) has its rows and its job written in one
 * statement, data-modifying CTEs around the queue's own SQL expression
 * (`addJob`). The queue exists only on PostgreSQL (queued-runs-pg.ts), and
 * SQLite has no such statement; a SQLite host runs its processes itself and
 * has no hook.
 */
export interface QueuedRunWrites {
  create(
    values: NewProcess,
    environment: string,
    createdAt: string,
    queued: QueuedRunOptions,
  ): Promise<RunIds & { row: ProcessRow }>;
  /** A new run of the process, only while it is idle (else `conflict`). */
  startRun(processId: number, environment: string, createdAt: string, queued: QueuedRunOptions): Promise<number>;
}

/** The value of a prepared statement's placeholder, in `where` (ids only: nothing to map). */
const param = (name: string) => sql.placeholder(name);

/** Every state but idle: a process in one of them counts against its key (`countActive`). */
const ACTIVE_STATES = ["queued", "running", "suspended", "terminating"] as const;

export class SqlProcessStore implements ProcessStore {
  /** Statements run outside transactions: prepared on `db`, once. */
  private readonly statements;
  /** Statements run inside the transactions of `create`, `startRun` and `finish`: prepared per runner. */
  private readonly runStatements;
  private readonly finishStatements;

  /** `queuedRuns`: PostgreSQL's hook (queued-runs-pg.ts); none on SQLite. */
  constructor(
    private readonly dialect: SqlDialect,
    private readonly queuedRuns?: QueuedRunWrites,
  ) {
    const { db, tables } = dialect;
    const { processes, executions } = tables;
    this.statements = {
      get: db
        .select()
        .from(processes)
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_get"),
      setState: db
        .update(processes)
        .set({ state: placeholderOf(processes.state, "state") })
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_set_state"),
      setRunning: db
        .update(processes)
        .set({ state: "running", startedAt: placeholderOf(processes.startedAt, "startedAt") })
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_set_running"),
    };
    const insertExecution = (db: SharedDb) =>
      db
        .insert(executions)
        .values({
          processId: placeholderOf(executions.processId, "processId"),
          environment: placeholderOf(executions.environment, "environment"),
          createdAt: placeholderOf(executions.createdAt, "createdAt"),
        })
        .returning({ id: executions.id })
        .prepare("cyrnel_execution_insert");
    this.runStatements = perRunner((db) => ({
      insertProcess: db
        .insert(processes)
        .values({
          code: placeholderOf(processes.code, "code"),
          ref: placeholderOf(processes.ref, "ref"),
          timeoutMs: placeholderOf(processes.timeoutMs, "timeoutMs"),
          keyId: placeholderOf(processes.keyId, "keyId"),
          state: "queued",
          runs: 1,
          createdAt: placeholderOf(processes.createdAt, "createdAt"),
        })
        .returning({ id: processes.id })
        .prepare("cyrnel_process_insert"),
      insertExecution: insertExecution(db),
      resetForRun: db
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
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_reset_for_run"),
    }));
    this.finishStatements = perRunner((db) => ({
      finishProcess: db
        .update(processes)
        .set({
          state: "idle",
          exitState: placeholderOf(processes.exitState, "exitState"),
          error: placeholderOf(processes.error, "error"),
          output: placeholderOf(processes.output, "output"),
          stdout: placeholderOf(processes.stdout, "stdout"),
          stderr: placeholderOf(processes.stderr, "stderr"),
          finishedAt: placeholderOf(processes.finishedAt, "finishedAt"),
        })
        .where(eq(processes.id, param("id")))
        .prepare("cyrnel_process_finish"),
      finishExecution: db
        .update(executions)
        .set({
          exitState: placeholderOf(executions.exitState, "exitState"),
          finishedAt: placeholderOf(executions.finishedAt, "finishedAt"),
        })
        .where(eq(executions.id, param("id")))
        .prepare("cyrnel_execution_finish"),
    }));
  }

  async create(
    values: NewProcess,
    environment: string,
    queued?: QueuedRunOptions,
  ): Promise<RunIds & { row?: ProcessRow }> {
    const createdAt = new Date().toISOString();
    if (queued) return this.queue().create(values, environment, createdAt, queued);
    return this.dialect.transaction(async (tx) => {
      const statements = this.runStatements(tx);
      const [process] = await statements.insertProcess.execute({ ...values, createdAt });
      const processId = process!.id;
      const [execution] = await statements.insertExecution.execute({ processId, environment, createdAt });
      return { processId, executionId: execution!.id };
    });
  }

  async get(id: number): Promise<ProcessRow | undefined> {
    const [row] = await this.statements.get.execute({ id });
    return row;
  }

  list(filter: ProcessFilter): Promise<ProcessRow[]> {
    const { processes } = this.dialect.tables;
    const conditions: (SQL | undefined)[] = [
      filter.keyId !== undefined ? eq(processes.keyId, filter.keyId) : undefined,
      filter.state && eq(processes.state, filter.state),
      filter.exitState && eq(processes.exitState, filter.exitState),
      filter.ref !== undefined ? eq(processes.ref, filter.ref) : undefined,
      filter.refPrefix !== undefined ? this.dialect.startsWith(processes.ref, filter.refPrefix) : undefined,
      // Ids grow with creation times (both are set at insert), so a time range and an id cursor agree.
      filter.since !== undefined ? gte(processes.createdAt, filter.since) : undefined,
      filter.until !== undefined ? lt(processes.createdAt, filter.until) : undefined,
      filter.before !== undefined ? lt(processes.id, filter.before) : undefined,
      filter.after !== undefined ? gt(processes.id, filter.after) : undefined,
    ];
    return this.dialect.db
      .select()
      .from(processes)
      .where(and(...conditions))
      .orderBy(filter.order === "oldest" ? asc(processes.id) : desc(processes.id))
      .limit(filter.limit + 1);
  }

  async startRun(processId: number, environment: string, queued?: QueuedRunOptions): Promise<number> {
    const createdAt = new Date().toISOString();
    if (queued) return this.queue().startRun(processId, environment, createdAt, queued);
    return this.dialect.transaction(async (tx) => {
      const statements = this.runStatements(tx);
      const [execution] = await statements.insertExecution.execute({ processId, environment, createdAt });
      await statements.resetForRun.execute({ id: processId });
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
    await this.dialect.transaction(async (tx) => {
      const statements = this.finishStatements(tx);
      await statements.finishProcess.execute({ id: processId, ...result, finishedAt });
      await statements.finishExecution.execute({ id: executionId, exitState: result.exitState, finishedAt });
    });
  }

  async countActive(keyId: string): Promise<number> {
    const { processes } = this.dialect.tables;
    const [row] = await this.dialect.db
      .select({ count: count() })
      .from(processes)
      .where(and(inArray(processes.state, ACTIVE_STATES), eq(processes.keyId, keyId)));
    return row?.count ?? 0;
  }

  async delete(id: number): Promise<void> {
    const { processes } = this.dialect.tables;
    await this.dialect.db.delete(processes).where(eq(processes.id, id));
  }

  prune(finishedBefore: string, exitState?: ExecutionExitState): Promise<number> {
    const { processes, calls, approvals } = this.dialect.tables;
    const old = and(
      eq(processes.state, "idle"),
      lt(processes.finishedAt, finishedBefore),
      exitState === undefined ? undefined : eq(processes.exitState, exitState),
    );
    return this.dialect.transaction(async (tx) => {
      const ids = tx.select({ id: processes.id }).from(processes).where(old);
      await tx.delete(calls).where(inArray(calls.processId, ids));
      await tx.delete(approvals).where(inArray(approvals.processId, ids));
      // Their executions go with them (ON DELETE CASCADE).
      return (await tx.delete(processes).where(old).returning({ id: processes.id })).length;
    });
  }

  markInterrupted(
    error: string,
    except: readonly number[] = [],
    exitState: "failed" | "canceled" = "failed",
  ): Promise<number> {
    const { processes, executions } = this.dialect.tables;
    const finishedAt = new Date().toISOString();
    return this.dialect.transaction(async (tx) => {
      const interrupted = await tx
        .update(processes)
        .set({ state: "idle", exitState, error, finishedAt })
        .where(
          and(
            inArray(processes.state, exitState === "canceled" ? ["terminating"] : ACTIVE_STATES),
            except.length === 0 ? undefined : notInArray(processes.id, [...except]),
          ),
        )
        .returning({ id: processes.id });
      if (interrupted.length > 0) {
        await tx
          .update(executions)
          .set({ exitState, finishedAt })
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

  private queue(): QueuedRunWrites {
    if (this.queuedRuns === undefined) throw new Error("the process queue runs on PostgreSQL only");
    return this.queuedRuns;
  }
}
