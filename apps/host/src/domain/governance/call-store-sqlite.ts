/** The SQLite call records store: one transaction of prepared inserts per batch. */
import { and, desc, eq, gte, lt, max, type SQL, sql } from "drizzle-orm";
import type { CallCounts } from "../../contract/governance.js";
import type { Db } from "../../db/client.js";
import { calls, executions } from "../../db/schema.js";
import type { CallFilter, CallRow, CallStore, NewCallRow } from "./call-store.js";

const param = (name: string) => sql.placeholder(name);
/** A placeholder bound as given: the JSON column takes its text. */
const raw = (name: string) => sql`${sql.placeholder(name)}`;

export class SqliteCallStore implements CallStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    const latestRun = db
      .select({ id: max(executions.id) })
      .from(executions)
      .where(eq(executions.processId, param("processId")));
    this.statements = {
      insert: db
        .insert(calls)
        .values({
          id: param("id"),
          processId: param("processId"),
          executionId: param("executionId"),
          keyId: param("keyId"),
          serviceId: param("serviceId"),
          toolId: param("toolId"),
          startedAt: param("startedAt"),
          durationMs: param("durationMs"),
          outcome: param("outcome"),
          status: param("status"),
          parameters: raw("parameters"),
        })
        // A batch written again after a storage fault (CallLog retries) keeps the rows that made it.
        .onConflictDoNothing()
        .prepare(),
      countsOfLatestRun: db
        .select({
          serviceId: calls.serviceId,
          toolId: calls.toolId,
          count: sql<number>`count(*)`,
          failed: sql<number>`sum(${calls.outcome} <> 'ok')`,
        })
        .from(calls)
        .where(and(eq(calls.processId, param("processId")), eq(calls.executionId, latestRun)))
        .groupBy(calls.serviceId, calls.toolId)
        .prepare(),
    };
  }

  /** AUTOINCREMENT keeps the highest id in sqlite_sequence after the rows are pruned. */
  async lastId(): Promise<number> {
    const row = this.db.$client.prepare("select seq from sqlite_sequence where name = 'calls'").get() as
      | { seq: number }
      | undefined;
    return row?.seq ?? 0;
  }

  async insertMany(rows: readonly NewCallRow[]): Promise<void> {
    this.db.$client.transaction(() => {
      for (const row of rows) this.statements.insert.run(row);
    })();
  }

  async list(filter: CallFilter): Promise<CallRow[]> {
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
      .limit(filter.limit + 1)
      .all();
  }

  async countsOfLatestRun(processId: number): Promise<CallCounts> {
    const counts: CallCounts = { count: 0, failed: 0, byTool: {} };
    for (const row of this.statements.countsOfLatestRun.all({ processId })) {
      counts.count += row.count;
      counts.failed += row.failed;
      counts.byTool[`${row.serviceId}.${row.toolId}`] = { count: row.count, failed: row.failed };
    }
    return counts;
  }

  async prune(startedBefore: string): Promise<number> {
    return this.db.delete(calls).where(lt(calls.startedAt, startedBefore)).run().changes;
  }
}
