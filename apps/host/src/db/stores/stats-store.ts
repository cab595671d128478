/**
 * The summary's counts (domain/stats/stats-store.ts), on either dialect: one
 * `COUNT … GROUP BY` per figure, each answered from an index —
 * `processes_state_idx` for the live states (looked up by value, never
 * scanning the idle ones), `processes_finished_idx` (finished_at, exit_state,
 * started_at) for the window, `approvals_state_idx` for the pending ones. The
 * services and tools tables are small (thousands of tools at most) and are
 * counted whole. The queries are not one snapshot: a process may be counted
 * live by one and ended by the next, which a summary polled every few seconds
 * can live with.
 */

import type { ExecutionExitState } from "@cyrnel/sdk";
import { count, eq, gte, inArray, sql } from "drizzle-orm";
import type { LiveProcessState, StatsStore, StoredCounts } from "../../domain/stats/stats-store.js";
import type { SqlDialect } from "../dialect.js";

const LIVE_STATES: readonly LiveProcessState[] = ["queued", "running", "suspended", "terminating"];
const EXIT_STATES: readonly ExecutionExitState[] = ["success", "failed", "timeout", "canceled"];

export class SqlStatsStore implements StatsStore {
  constructor(private readonly sql: SqlDialect) {}

  async counts(since: string): Promise<StoredCounts> {
    const { services, tools, processes, approvals } = this.sql.tables;
    const db = this.sql.db;
    const [serviceRows, toolRows, liveRows, endedRows, pendingRows] = await Promise.all([
      db.select({ enabled: services.enabled, n: count() }).from(services).groupBy(services.enabled),
      db
        .select({
          n: count(),
          callable:
            sql<number>`sum(case when ${tools.enabled} and ${services.enabled} and not ${services.stale} then 1 else 0 end)`.mapWith(
              Number,
            ),
        })
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId)),
      db
        .select({ state: processes.state, n: count() })
        .from(processes)
        .where(inArray(processes.state, [...LIVE_STATES]))
        .groupBy(processes.state),
      db
        .select({
          exitState: processes.exitState,
          unrun: sql<number>`case when ${processes.startedAt} is null then 1 else 0 end`.mapWith(Number),
          n: count(),
        })
        .from(processes)
        .where(gte(processes.finishedAt, since))
        .groupBy(processes.exitState, sql`2`),
      db.select({ n: count() }).from(approvals).where(eq(approvals.state, "pending")),
    ]);
    const live = Object.fromEntries(LIVE_STATES.map((state) => [state, 0])) as Record<LiveProcessState, number>;
    for (const row of liveRows) live[row.state as LiveProcessState] = Number(row.n);
    const ended = Object.fromEntries(EXIT_STATES.map((state) => [state, 0])) as Record<ExecutionExitState, number>;
    let queueTimeouts = 0;
    for (const row of endedRows) {
      if (row.exitState === null) continue;
      ended[row.exitState] += Number(row.n);
      if (row.exitState === "timeout" && row.unrun === 1) queueTimeouts += Number(row.n);
    }
    const enabledServices = serviceRows.filter((row) => Boolean(row.enabled)).reduce((n, row) => n + row.n, 0);
    return {
      services: { total: serviceRows.reduce((n, row) => n + Number(row.n), 0), enabled: Number(enabledServices) },
      tools: { total: Number(toolRows[0]?.n ?? 0), callable: Number(toolRows[0]?.callable ?? 0) },
      live,
      ended,
      queueTimeouts,
      pendingApprovals: Number(pendingRows[0]?.n ?? 0),
    };
  }
}
