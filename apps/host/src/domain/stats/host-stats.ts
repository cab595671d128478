/**
 * The summary `GET /stats` answers: the store's exact counts (stats-store.ts)
 * with what only this host knows — its environment's admission and load,
 * and the depth of the queue runs wait in (PostgreSQL's process queue when
 * hosts share it, else the environment's own). Nothing here waits for the
 * sandbox: the environment's `admit()` and `stats()` read its counters.
 */
import type { EnvironmentModule, EnvironmentStats } from "@cyrnel/sdk";
import type { Stats } from "../../contract/stats.js";
import type { StatsStore } from "./stats-store.js";

/** The default window of `ended`: a day. */
export const DEFAULT_STATS_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface HostStatsOptions {
  store: StatsStore;
  /** The active environment, or null. */
  environment(): { id: string; module: EnvironmentModule } | null;
  /** PostgreSQL: how many runs wait for a host in the process queue; absent on one host (SQLite). */
  clusterQueueDepth?: () => Promise<number>;
}

export class HostStats {
  constructor(private readonly options: HostStatsOptions) {}

  async summary(since: Date = new Date(Date.now() - DEFAULT_STATS_WINDOW_MS)): Promise<Stats> {
    const at = new Date();
    const environment = this.options.environment();
    const load = environment === null ? null : environmentStats(environment.module);
    const [counts, clusterDepth] = await Promise.all([
      this.options.store.counts(since.toISOString()),
      this.options.clusterQueueDepth?.() ?? Promise.resolve(null),
    ]);
    return {
      at: at.toISOString(),
      since: since.toISOString(),
      services: counts.services,
      tools: counts.tools,
      processes: { live: counts.live, ended: counts.ended, queueTimeouts: counts.queueTimeouts },
      approvals: { pending: counts.pendingApprovals },
      capacity:
        environment === null
          ? null
          : {
              ...admission(environment.module),
              live: load?.live ?? null,
              maxLive: load?.maxLive ?? null,
              queued: load?.queued ?? null,
              maxQueued: load?.maxQueued ?? null,
            },
      queue:
        clusterDepth !== null
          ? { depth: clusterDepth, source: "cluster" }
          : load !== null
            ? { depth: load.queued, source: "environment" }
            : { depth: null, source: "none" },
    };
  }
}

/** Module code: a `stats()` that throws or answers nonsense is treated as absent. */
export function environmentStats(module: EnvironmentModule): EnvironmentStats | null {
  try {
    const stats = module.stats?.();
    if (stats === undefined || stats === null || typeof stats !== "object") return null;
    const count = (value: unknown) =>
      Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : null;
    return {
      live: count(stats.live) ?? 0,
      queued: count(stats.queued) ?? 0,
      maxLive: count(stats.maxLive),
      maxQueued: count(stats.maxQueued),
      rssBytes: count(stats.rssBytes),
    };
  } catch {
    return null;
  }
}

function admission(module: EnvironmentModule): { admitted: boolean; reason?: string; retryAfterSeconds?: number } {
  try {
    const answer = module.admit?.() ?? { admitted: true };
    if (answer.admitted) return { admitted: true };
    return {
      admitted: false,
      reason: String(answer.reason),
      retryAfterSeconds: Math.max(1, Math.ceil(Number(answer.retryAfterSeconds) || 1)),
    };
  } catch (error) {
    return { admitted: false, reason: `admit() threw: ${error instanceof Error ? error.message : String(error)}` };
  }
}
