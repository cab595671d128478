/**
 * The call records store, on either dialect (see dialect.ts). Records
 * arrive in batches (see `CallLog`), each written in one transaction, so
 * the audit trail costs a tool call no commit of its own; the summary of a
 * run's calls, read at every process's end, is prepared once.
 *
 * One dialect hook, `CallRowWrites`: how a batch goes in, and how the
 * highest id ever used is kept.
 */
import { and, count, desc, eq, gte, lt, max, type SQL, sql } from "drizzle-orm";
import type { CallCounts } from "../../contract/governance.js";
import type { CallFilter, CallRow, CallStore, NewCallRow } from "../../domain/governance/call-store.js";
import type { SharedDb, SqlDialect } from "../dialect.js";

/**
 * A dialect hook, not shared code. Ids are given by the host (`CallLog`),
 * and the database's own counter is kept past every one written, so that a
 * pruned id never comes back: SQLite's AUTOINCREMENT moves `sqlite_sequence`
 * by itself (call-rows-sqlite.ts), PostgreSQL's identity sequence is moved
 * in the batch's transaction (call-rows-pg.ts). And each dialect writes a
 * batch its fastest way: SQLite one prepared insert per row (no round trips
 * to save, and a multi-row insert costs drizzle more to build than SQLite
 * to run), PostgreSQL multi-row inserts (one round trip per thousand rows).
 */
export interface CallRowWrites {
  /** The highest id ever given to a call, including pruned ones. */
  lastId(): Promise<number>;
  /**
   * Writes `rows` in `tx`, keeping the highest id. A row whose id is already there is skipped: a batch written
   * again after a storage fault (CallLog retries; the first try may have committed before its answer was lost)
   * keeps the rows that made it.
   */
  insert(tx: SharedDb, rows: readonly NewCallRow[]): Promise<void>;
}

export class SqlCallStore implements CallStore {
  private readonly statements;

  constructor(
    private readonly dialect: SqlDialect,
    private readonly rows: CallRowWrites,
  ) {
    const { db, tables } = dialect;
    const { calls, executions } = tables;
    const processId = sql.placeholder("processId");
    const latestRun = db
      .select({ id: max(executions.id) })
      .from(executions)
      .where(eq(executions.processId, processId));
    this.statements = {
      countsOfLatestRun: db
        .select({
          serviceId: calls.serviceId,
          toolId: calls.toolId,
          count: count(),
          failed: sql<number>`sum(case when ${calls.outcome} <> 'ok' then 1 else 0 end)`.mapWith(Number),
        })
        .from(calls)
        .where(and(eq(calls.processId, processId), eq(calls.executionId, latestRun)))
        .groupBy(calls.serviceId, calls.toolId)
        // So that `byTool`'s keys come out in one order on both dialects.
        .orderBy(calls.serviceId, calls.toolId)
        .prepare("cyrnel_calls_of_latest_run"),
    };
  }

  lastId(): Promise<number> {
    return this.rows.lastId();
  }

  async insertMany(rows: readonly NewCallRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.dialect.transaction((tx) => this.rows.insert(tx, rows));
  }

  list(filter: CallFilter): Promise<CallRow[]> {
    const { calls } = this.dialect.tables;
    const conditions: (SQL | undefined)[] = [
      filter.serviceId !== undefined ? eq(calls.serviceId, filter.serviceId) : undefined,
      filter.toolId !== undefined ? eq(calls.toolId, filter.toolId) : undefined,
      filter.keyId !== undefined ? eq(calls.keyId, filter.keyId) : undefined,
      filter.processId !== undefined ? eq(calls.processId, filter.processId) : undefined,
      filter.outcome !== undefined ? eq(calls.outcome, filter.outcome) : undefined,
      filter.since !== undefined ? gte(calls.startedAt, filter.since) : undefined,
      filter.until !== undefined ? lt(calls.startedAt, filter.until) : undefined,
      filter.connectionId !== undefined ? eq(calls.connectionId, filter.connectionId) : undefined,
      filter.before !== undefined ? lt(calls.id, filter.before) : undefined,
    ];
    return this.dialect.db
      .select()
      .from(calls)
      .where(and(...conditions))
      .orderBy(desc(calls.id))
      .limit(filter.limit + 1);
  }

  async countsOfLatestRun(processId: number): Promise<CallCounts> {
    const counts: CallCounts = { count: 0, failed: 0, byTool: {} };
    for (const row of await this.statements.countsOfLatestRun.execute({ processId })) {
      counts.count += row.count;
      counts.failed += row.failed;
      counts.byTool[`${row.serviceId}.${row.toolId}`] = { count: row.count, failed: row.failed };
    }
    return counts;
  }

  async prune(startedBefore: string): Promise<number> {
    const { calls } = this.dialect.tables;
    const deleted = await this.dialect.db
      .delete(calls)
      .where(lt(calls.startedAt, startedBefore))
      .returning({ id: calls.id });
    return deleted.length;
  }
}
