/** All SQL about processes and their executions (runs). */
import type { ExecutionExitState } from "@cyrnel/sdk";
import { and, desc, eq, inArray, isNull, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { executions, processes } from "../../db/schema.js";

export type ProcessRow = typeof processes.$inferSelect;
export type ProcessState = ProcessRow["state"];

export interface ProcessFilter {
  state?: ProcessState;
  exitState?: ExecutionExitState;
  ref?: string;
  before?: number;
  limit: number;
}

export class ProcessStore {
  constructor(private readonly db: Db) {}

  create(values: { code: string; ref: string | null; timeoutMs: number | null }): ProcessRow {
    return this.db
      .insert(processes)
      .values({ ...values, state: "queued", createdAt: new Date().toISOString() })
      .returning()
      .get();
  }

  get(id: number): ProcessRow | undefined {
    return this.db.select().from(processes).where(eq(processes.id, id)).get();
  }

  list(filter: ProcessFilter): ProcessRow[] {
    const conditions: (SQL | undefined)[] = [
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

  /** Starts a new run: a new execution id, previous results cleared. */
  startRun(processId: number, environment: string): number {
    return this.db.transaction((tx) => {
      const execution = tx
        .insert(executions)
        .values({ processId, environment, createdAt: new Date().toISOString() })
        .returning({ id: executions.id })
        .get();
      const current = tx.select({ runs: processes.runs }).from(processes).where(eq(processes.id, processId)).get();
      tx.update(processes)
        .set({
          state: "queued",
          exitState: null,
          error: null,
          output: null,
          stdout: "",
          stderr: "",
          startedAt: null,
          finishedAt: null,
          runs: (current?.runs ?? 0) + 1,
        })
        .where(eq(processes.id, processId))
        .run();
      return execution.id;
    });
  }

  setState(processId: number, state: ProcessState, startedAt?: string): void {
    this.db
      .update(processes)
      .set({ state, ...(startedAt && { startedAt }) })
      .where(eq(processes.id, processId))
      .run();
  }

  finish(
    processId: number,
    executionId: number,
    result: {
      exitState: ExecutionExitState;
      error: string | null;
      output: Record<string, unknown>;
      stdout: string;
      stderr: string;
    },
  ): void {
    const finishedAt = new Date().toISOString();
    this.db.transaction((tx) => {
      tx.update(processes)
        .set({ state: "idle", ...result, finishedAt })
        .where(eq(processes.id, processId))
        .run();
      tx.update(executions)
        .set({ exitState: result.exitState, finishedAt })
        .where(eq(executions.id, executionId))
        .run();
    });
  }

  delete(id: number): void {
    this.db.delete(processes).where(eq(processes.id, id)).run();
  }

  /** Startup: anything that was queued or running when the host stopped did not finish. */
  markInterrupted(): number {
    const finishedAt = new Date().toISOString();
    return this.db.transaction((tx) => {
      const interrupted = tx
        .update(processes)
        .set({ state: "idle", exitState: "failed", error: "interrupted: host restarted", finishedAt })
        .where(inArray(processes.state, ["queued", "running", "terminating"]))
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
