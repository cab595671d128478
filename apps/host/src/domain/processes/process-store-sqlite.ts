/**
 * The SQLite processes store. The statements of a process's life (create,
 * state changes, finish, read by id) run for every process, so they are
 * built and prepared once: drizzle's query building and SQLite's statement
 * preparation used to cost more than the writes.
 */
import type { ExecutionExitState } from "@cyrnel/sdk";
import { and, desc, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { approvals, calls, executions, processes } from "../../db/schema.js";
import type {
  NewProcess,
  ProcessFilter,
  ProcessResult,
  ProcessRow,
  ProcessState,
  ProcessStore,
} from "./process-store.js";

const param = (name: string) => sql.placeholder(name);
/** A placeholder where drizzle's types want SQL (`set`). Bound as given: JSON columns take their text. */
const raw = (name: string) => sql`${sql.placeholder(name)}`;

/** Every state but idle: a process in one of them counts against its key (`countActive`). */
const ACTIVE_STATES = ["queued", "running", "suspended", "terminating"] as const;

export class SqliteProcessStore implements ProcessStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    this.statements = {
      insertProcess: db
        .insert(processes)
        .values({
          code: param("code"),
          ref: param("ref"),
          timeoutMs: param("timeoutMs"),
          keyId: param("keyId"),
          state: "queued",
          runs: 1,
          createdAt: param("createdAt"),
        })
        .returning({ id: processes.id })
        .prepare(),
      insertExecution: db
        .insert(executions)
        .values({ processId: param("processId"), environment: param("environment"), createdAt: param("createdAt") })
        .returning({ id: executions.id })
        .prepare(),
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
        .prepare(),
      get: db
        .select()
        .from(processes)
        .where(eq(processes.id, param("id")))
        .prepare(),
      setState: db
        .update(processes)
        .set({ state: raw("state") })
        .where(eq(processes.id, param("id")))
        .prepare(),
      setRunning: db
        .update(processes)
        .set({ state: "running", startedAt: raw("startedAt") })
        .where(eq(processes.id, param("id")))
        .prepare(),
      finishProcess: db
        .update(processes)
        .set({
          state: "idle",
          exitState: raw("exitState"),
          error: raw("error"),
          output: raw("output"),
          stdout: raw("stdout"),
          stderr: raw("stderr"),
          finishedAt: raw("finishedAt"),
        })
        .where(eq(processes.id, param("id")))
        .prepare(),
      finishExecution: db
        .update(executions)
        .set({ exitState: raw("exitState"), finishedAt: raw("finishedAt") })
        .where(eq(executions.id, param("id")))
        .prepare(),
    };
  }

  async create(values: NewProcess, environment: string): Promise<{ processId: number; executionId: number }> {
    const createdAt = new Date().toISOString();
    return this.db.$client.transaction(() => {
      const processId = this.statements.insertProcess.get({ ...values, createdAt }).id;
      const executionId = this.statements.insertExecution.get({ processId, environment, createdAt }).id;
      return { processId, executionId };
    })();
  }

  async get(id: number): Promise<ProcessRow | undefined> {
    return this.statements.get.get({ id });
  }

  async list(filter: ProcessFilter): Promise<ProcessRow[]> {
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
      .limit(filter.limit + 1)
      .all();
  }

  async startRun(processId: number, environment: string): Promise<number> {
    const createdAt = new Date().toISOString();
    return this.db.$client.transaction(() => {
      const executionId = this.statements.insertExecution.get({ processId, environment, createdAt }).id;
      this.statements.resetForRun.run({ id: processId });
      return executionId;
    })();
  }

  async setState(processId: number, state: ProcessState): Promise<void> {
    this.statements.setState.run({ id: processId, state });
  }

  async setRunning(processId: number, startedAt: string): Promise<void> {
    this.statements.setRunning.run({ id: processId, startedAt });
  }

  async finish(processId: number, executionId: number, result: ProcessResult): Promise<void> {
    const finishedAt = new Date().toISOString();
    this.db.$client.transaction(() => {
      this.statements.finishProcess.run({
        id: processId,
        ...result,
        output: JSON.stringify(result.output),
        finishedAt,
      });
      this.statements.finishExecution.run({ id: executionId, exitState: result.exitState, finishedAt });
    })();
  }

  async countActive(keyId: string): Promise<number> {
    const row = this.db
      .select({ count: sql<number>`count(*)` })
      .from(processes)
      .where(and(inArray(processes.state, ACTIVE_STATES), eq(processes.keyId, keyId)))
      .get();
    return Number(row?.count ?? 0);
  }

  async delete(id: number): Promise<void> {
    this.db.delete(processes).where(eq(processes.id, id)).run();
  }

  async prune(finishedBefore: string, exitState?: ExecutionExitState): Promise<number> {
    const old = and(
      eq(processes.state, "idle"),
      lt(processes.finishedAt, finishedBefore),
      exitState === undefined ? undefined : eq(processes.exitState, exitState),
    );
    return this.db.transaction((tx) => {
      const ids = tx.select({ id: processes.id }).from(processes).where(old);
      tx.delete(calls).where(inArray(calls.processId, ids)).run();
      tx.delete(approvals).where(inArray(approvals.processId, ids)).run();
      return tx.delete(processes).where(old).run().changes;
    });
  }

  async markInterrupted(): Promise<number> {
    const finishedAt = new Date().toISOString();
    return this.db.transaction((tx) => {
      const interrupted = tx
        .update(processes)
        .set({ state: "idle", exitState: "failed", error: "interrupted: host restarted", finishedAt })
        .where(inArray(processes.state, ["queued", "running", "suspended", "terminating"]))
        .returning({ id: processes.id })
        .all();
      if (interrupted.length > 0) {
        tx.update(executions)
          .set({ exitState: "failed", finishedAt })
          .where(
            and(
              inArray(
                executions.processId,
                interrupted.map((row) => row.id),
              ),
              isNull(executions.exitState),
            ),
          )
          .run();
      }
      return interrupted.length;
    });
  }
}
