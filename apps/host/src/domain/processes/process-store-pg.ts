/**
 * The PostgreSQL processes store. The statements every process runs are
 * named prepared statements (node-postgres prepares each once per
 * connection). Multi-row changes are transactions; a run's counter is
 * incremented in SQL, so two hosts starting runs cannot lose one.
 */
import { and, desc, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type pg from "pg";
import type { PgDb } from "../../db/client-pg.js";
import { executions, processes } from "../../db/schema-pg.js";
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

/** What a transaction of this store writes with: drizzle's transaction, or drizzle over the store's own client. */
type Writer = Pick<NodePgDatabase, "insert" | "update">;

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

  create(values: NewProcess, environment: string, queued?: QueuedRunOptions): Promise<RunIds> {
    const createdAt = new Date().toISOString();
    return this.transaction(queued, async (tx, client) => {
      const [process] = await tx
        .insert(processes)
        .values({ ...values, state: "queued", runs: 1, createdAt })
        .returning({ id: processes.id });
      const [execution] = await tx
        .insert(executions)
        .values({ processId: process!.id, environment, createdAt, typecheck: queued?.typecheck ?? null })
        .returning({ id: executions.id });
      const run = { processId: process!.id, executionId: execution!.id };
      if (queued && client) await queued.enqueue(run, client);
      return run;
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

  startRun(processId: number, environment: string, queued?: QueuedRunOptions): Promise<number> {
    const createdAt = new Date().toISOString();
    return this.transaction(queued, async (tx, client) => {
      // Through the queue, another host may have started a run since the caller saw the process idle: the update
      // takes the row only while it is idle, so two hosts never start two runs of one process.
      const updated = await tx
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
        .where(queued ? and(eq(processes.id, processId), eq(processes.state, "idle")) : eq(processes.id, processId))
        .returning({ state: processes.state });
      if (updated.length === 0) {
        throw new CyrnelError("conflict", `process ${processId} is running; it must be idle to run`);
      }
      const [execution] = await tx
        .insert(executions)
        .values({ processId, environment, createdAt, typecheck: queued?.typecheck ?? null })
        .returning({ id: executions.id });
      if (queued && client) await queued.enqueue({ processId, executionId: execution!.id }, client);
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

  /**
   * One transaction. A queued run's job is added by SQL on the transaction's own connection (graphile-worker's
   * `add_job`), so it runs on a client this store holds, with drizzle over that client; otherwise drizzle's own.
   */
  private async transaction<T>(
    queued: QueuedRunOptions | undefined,
    work: (tx: Writer, client: pg.PoolClient | null) => Promise<T>,
  ): Promise<T> {
    if (!queued) return this.db.transaction((tx) => work(tx, null));
    const client = await this.db.$client.connect();
    try {
      await client.query("BEGIN");
      const result = await work(drizzle(client), client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
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
