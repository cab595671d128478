/**
 * The journal store (domain/processes/journal-store.ts), on either dialect.
 * A write first moves the run's byte count, on the condition that its
 * attempt is still the latest: that one conditional update fences a host
 * that lost the run, and orders the writes of one run (their `seq`) on
 * PostgreSQL, where the row stays locked until the transaction ends.
 */
import { and, asc, eq, inArray, isNull, max, sql } from "drizzle-orm";
import type {
  JournalCall,
  JournalRecord,
  JournalStore,
  JournalWrite,
  UnfinishedRun,
} from "../../domain/processes/journal-store.js";
import type { SqlDialect } from "../dialect.js";

const ACTIVE_STATES = ["queued", "running", "suspended", "terminating"] as const;

export class SqlJournalStore implements JournalStore {
  constructor(private readonly sql: SqlDialect) {}

  async read(executionId: number): Promise<JournalRecord> {
    const { runJournal, executions } = this.sql.tables;
    const db = this.sql.db;
    const [run] = await db
      .select({ bytes: executions.journalBytes, notDurable: executions.notDurable, attempts: executions.attempts })
      .from(executions)
      .where(eq(executions.id, executionId));
    const rows = await db
      .select()
      .from(runJournal)
      .where(eq(runJournal.executionId, executionId))
      .orderBy(asc(runJournal.seq));
    const calls: JournalCall[] = [];
    const replay: string[] = [];
    for (const row of rows) {
      if (row.kind === "replay") {
        replay.push(...(JSON.parse(row.payload ?? "[]") as string[]));
      } else if (row.callIndex !== null && row.state !== null) {
        calls.push({
          index: row.callIndex,
          digest: row.digest ?? "",
          serviceId: row.serviceId ?? "",
          toolId: row.toolId ?? "",
          state: row.state,
          payload: row.payload,
        });
      }
    }
    return {
      calls,
      replay,
      bytes: run?.bytes ?? 0,
      notDurable: run?.notDurable ?? null,
      attempts: run?.attempts ?? 1,
    };
  }

  write(executionId: number, attempt: number, write: JournalWrite): Promise<boolean> {
    const { runJournal, executions } = this.sql.tables;
    return this.sql.transaction(async (tx) => {
      const moved = await tx
        .update(executions)
        .set({ journalBytes: sql`${executions.journalBytes} + ${write.bytes}` })
        .where(and(eq(executions.id, executionId), eq(executions.attempts, attempt), isNull(executions.finishedAt)))
        .returning({ id: executions.id });
      if (moved.length === 0) return false;
      const [last] = await tx
        .select({ seq: max(runJournal.seq) })
        .from(runJournal)
        .where(eq(runJournal.executionId, executionId));
      let seq = (last?.seq ?? 0) + 1;
      if (write.replay !== undefined && write.replay.length > 0) {
        await tx
          .insert(runJournal)
          .values({ executionId, seq: seq++, kind: "replay", payload: JSON.stringify(write.replay) });
      }
      const call = write.call;
      if (call !== undefined) {
        // The entry of a call that was sent is replaced by its answer; a call refused before it was sent has none.
        await tx
          .delete(runJournal)
          .where(and(eq(runJournal.executionId, executionId), eq(runJournal.callIndex, call.index)));
        await tx.insert(runJournal).values({
          executionId,
          seq,
          kind: "call",
          callIndex: call.index,
          digest: call.digest,
          serviceId: call.serviceId,
          toolId: call.toolId,
          state: call.state,
          payload: call.payload,
        });
      }
      return true;
    });
  }

  async markNotDurable(executionId: number, reason: string): Promise<void> {
    const { executions } = this.sql.tables;
    await this.sql.db.update(executions).set({ notDurable: reason }).where(eq(executions.id, executionId));
  }

  async beginAttempt(executionId: number): Promise<number> {
    const { executions } = this.sql.tables;
    const [row] = await this.sql.db
      .update(executions)
      .set({ attempts: sql`${executions.attempts} + 1`, wakeAt: null })
      .where(eq(executions.id, executionId))
      .returning({ attempts: executions.attempts });
    return row?.attempts ?? 1;
  }

  async sleepUntil(executionId: number, wakeAt: string): Promise<void> {
    const { executions } = this.sql.tables;
    await this.sql.db
      .update(executions)
      .set({ wakeAt })
      .where(and(eq(executions.id, executionId), isNull(executions.finishedAt)));
  }

  async unfinished(processId?: number): Promise<UnfinishedRun[]> {
    const { executions, processes } = this.sql.tables;
    return this.sql.db
      .select({
        processId: executions.processId,
        executionId: executions.id,
        notDurable: executions.notDurable,
        state: processes.state,
        wakeAt: executions.wakeAt,
      })
      .from(executions)
      .innerJoin(processes, eq(processes.id, executions.processId))
      .where(
        and(
          isNull(executions.finishedAt),
          inArray(processes.state, ACTIVE_STATES),
          processId === undefined ? undefined : eq(executions.processId, processId),
        ),
      )
      .orderBy(asc(executions.id));
  }
}
