/**
 * All SQL about call records. Records arrive in batches (see `CallLog`): one
 * transaction of prepared inserts per batch, so the audit trail costs a tool
 * call no statement preparation and no commit of its own.
 */
import { and, desc, eq, gte, lt, max, type SQL, sql } from "drizzle-orm";
import type { CallCounts } from "../../contract/governance.js";
import type { Db } from "../../db/client.js";
import { calls, executions } from "../../db/schema.js";

export type CallRow = typeof calls.$inferSelect;
/** A row as it is written: `parameters` is already JSON text. */
export type NewCallRow = Omit<CallRow, "parameters"> & { parameters: string };

export interface CallFilter {
  serviceId?: string;
  toolId?: string;
  keyId?: string;
  processId?: number;
  outcome?: string;
  /** ISO-8601 (UTC, as the host writes it): calls that started at or after it. */
  since?: string;
  before?: number;
  limit: number;
}

const param = (name: string) => sql.placeholder(name);
/** A placeholder bound as given: the JSON column takes its text. */
const raw = (name: string) => sql`${sql.placeholder(name)}`;

export class CallStore {
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

  /** The highest id ever given to a call (AUTOINCREMENT keeps it after the rows are pruned). */
  lastId(): number {
    const row = this.db.$client.prepare("select seq from sqlite_sequence where name = 'calls'").get() as
      | { seq: number }
      | undefined;
    return row?.seq ?? 0;
  }

  insertMany(rows: readonly NewCallRow[]): void {
    this.db.$client.transaction(() => {
      for (const row of rows) this.statements.insert.run(row);
    })();
  }

  list(filter: CallFilter): CallRow[] {
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

  /** The calls of the process's latest run. */
  countsOfLatestRun(processId: number): CallCounts {
    const counts: CallCounts = { count: 0, failed: 0, byTool: {} };
    for (const row of this.statements.countsOfLatestRun.all({ processId })) {
      counts.count += row.count;
      counts.failed += row.failed;
      counts.byTool[`${row.serviceId}.${row.toolId}`] = { count: row.count, failed: row.failed };
    }
    return counts;
  }

  /** Deletes the calls that started before `startedBefore` (ISO-8601); how many. */
  prune(startedBefore: string): number {
    return this.db.delete(calls).where(lt(calls.startedAt, startedBefore)).run().changes;
  }
}
