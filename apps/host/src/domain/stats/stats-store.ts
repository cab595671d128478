/**
 * The counts `GET /stats` answers with, each exact and each from an index (the
 * summary is polled by the console, so it must stay a few milliseconds at
 * 100,000 processes): services and tools, processes live now and those whose
 * run ended in a window, pending approvals.
 */
import type { ExecutionExitState } from "@cyrnel/sdk";

export type LiveProcessState = "queued" | "running" | "suspended" | "terminating";

export interface StoredCounts {
  services: { total: number; enabled: number };
  /** `callable`: enabled tools of enabled services that are not stale. */
  tools: { total: number; callable: number };
  /** Processes in each state but `idle`, on every host (the rows'), whenever they started. */
  live: Record<LiveProcessState, number>;
  /** Processes whose latest run ended at or after `since`, by exit state. */
  ended: Record<ExecutionExitState, number>;
  /** Of `ended.timeout`, those whose code never started: the run timed out waiting in a queue (or its type check). */
  queueTimeouts: number;
  pendingApprovals: number;
}

export interface StatsStore {
  /** `since`: an ISO timestamp; processes are compared by `finished_at` as stored (ISO text on both dialects). */
  counts(since: string): Promise<StoredCounts>;
}
