/**
 * The cluster's vocabulary and defaults that configuration needs before any
 * cluster code loads (config.ts reads them; cluster/ implements them).
 */

/** `all`: serves the API and runs processes; `api`: serves the API and only enqueues; `worker`: runs processes. */
export type HostRole = "all" | "api" | "worker";

/** A host that has not renewed its lease for this long is lost (`CYRNEL_LEASE_MS`). */
export const DEFAULT_LEASE_MS = 15_000;

/** At most this often a running process's text so far is written to its row (`CYRNEL_PROCESS_FLUSH_MS`). */
export const DEFAULT_FLUSH_INTERVAL_MS = 250;
