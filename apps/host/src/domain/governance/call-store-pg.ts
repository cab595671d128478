/** The PostgreSQL call records store: one multi-row insert per batch. */
import { and, desc, eq, gte, lt, max, type SQL, sql } from "drizzle-orm";
import type { CallCounts } from "../../contract/governance.js";
import type { PgDb } from "../../db/client-pg.js";
import { calls, executions } from "../../db/schema-pg.js";
import type { CallFilter, CallRow, CallStore, NewCallRow } from "./call-store.js";

/** Rows per insert statement (PostgreSQL takes at most 65,535 parameters in one). */
const ROWS_PER_INSERT = 1000;

export class PgCallStore implements CallStore {
  constructor(private readonly db: PgDb) {}

  /** The identity's sequence is moved past every id written (insertMany), so it remembers pruned ones. */
  async lastId(): Promise<number> {
    const result = await this.db.execute<{ last: string | null }>(
      sql`select greatest(
        (select case when is_called then last_value else 0 end from calls_id_seq),
        (select max(id) from calls)
      )::text as last`,
    );
    return Number(result.rows[0]?.last ?? 0);
  }

  async insertMany(rows: readonly NewCallRow[]): Promise<void> {
    if (rows.length === 0) return;
    const highest = Math.max(...rows.map((row) => row.id));
    await this.db.transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        const chunk = rows.slice(start, start + ROWS_PER_INSERT);
        // `parameters` is JSON text already: stored as it is (the column is json, which keeps the text).
        // A batch written again after a storage fault (CallLog retries: the first try may have committed before its
        // answer was lost) keeps the rows that made it.
        await tx
          .insert(calls)
          .values(chunk.map((row) => ({ ...row, parameters: sql`${row.parameters}::json` })))
          .onConflictDoNothing();
      }
      await tx.execute(sql`select setval('calls_id_seq', greatest(${highest}::bigint,
        (select case when is_called then last_value else 0 end from calls_id_seq)))`);
    });
  }

  list(filter: CallFilter): Promise<CallRow[]> {
    const conditions: (SQL | undefined)[] = [
      filter.serviceId !== undefined ? eq(calls.serviceId, filter.serviceId) : undefined,
      filter.toolId !== undefined ? eq(calls.toolId, filter.toolId) : undefined,
      filter.keyId !== undefined ? eq(calls.keyId, filter.keyId) : undefined,
      filter.processId !== undefined ? eq(calls.processId, filter.processId) : undefined,
      filter.outcome !== undefined ? eq(calls.outcome, filter.outcome) : undefined,
      filter.since !== undefined ? gte(calls.startedAt, filter.since) : undefined,
      filter.before !== undefined ? lt(calls.id, filter.before) : undefined,
    ];
    return this.db
      .select()
      .from(calls)
      .where(and(...conditions))
      .orderBy(desc(calls.id))
      .limit(filter.limit + 1);
  }

  async countsOfLatestRun(processId: number): Promise<CallCounts> {
    const latestRun = this.db
      .select({ id: max(executions.id) })
      .from(executions)
      .where(eq(executions.processId, processId));
    const rows = await this.db
      .select({
        serviceId: calls.serviceId,
        toolId: calls.toolId,
        count: sql<number>`count(*)::int`,
        failed: sql<number>`count(*) filter (where ${calls.outcome} <> 'ok')::int`,
      })
      .from(calls)
      .where(and(eq(calls.processId, processId), eq(calls.executionId, latestRun)))
      .groupBy(calls.serviceId, calls.toolId)
      // In the order SQLite's grouping gives them: `byTool`'s keys come out the same.
      .orderBy(calls.serviceId, calls.toolId);
    const counts: CallCounts = { count: 0, failed: 0, byTool: {} };
    for (const row of rows) {
      counts.count += row.count;
      counts.failed += row.failed;
      counts.byTool[`${row.serviceId}.${row.toolId}`] = { count: row.count, failed: row.failed };
    }
    return counts;
  }

  async prune(startedBefore: string): Promise<number> {
    const deleted = await this.db.delete(calls).where(lt(calls.startedAt, startedBefore)).returning({ id: calls.id });
    return deleted.length;
  }
}
