/**
 * The PostgreSQL processes store. The statements every process runs are
 * named prepared statements (node-postgres prepares each once per
 * connection). Multi-row changes are transactions; a run's counter is
 * incremented in SQL, so two hosts starting runs cannot lose one.
 */
import { and, desc, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { PgDb } from "../../db/client-pg.js";
import { executions, processes } from "../../db/schema-pg.js";
import type {
  NewProcess,
  ProcessFilter,
  ProcessResult,
  ProcessRow,
  ProcessState,
  ProcessStore,
} from "./process-store.js";

const param = (name: string) => sql.placeholder(name);
/** A placeholder where drizzle's types want SQL (`set`). */
const raw = (name: string) => sql`${sql.placeholder(name)}`;

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

  create(values: NewProcess, environment: string): Promise<{ processId: number; executionId: number }> {
    const createdAt = new Date().toISOString();
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

  startRun(processId: number, environment: string): Promise<number> {
    const createdAt = new Date().toISOString();
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

  async delete(id: number): Promise<void> {
    await this.db.delete(processes).where(eq(processes.id, id));
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
