/**
 * The environment variables of running many hosts, parsed like the rest of
 * the host's configuration (a bad value is a ConfigError naming the
 * variable) and merged into `HostConfig` (its `cluster`). It imports only
 * leaves (the defaults are in contract/cluster.ts), so config.ts stays a leaf.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `CYRNEL_ROLE` | `all` | `all`: serves the API and runs processes; `api`: serves the API and only enqueues; `worker`: runs processes, serves only `GET /health` |
 * | `CYRNEL_LEASE_MS` | 15000 | a host that has not renewed its lease for this long is lost: its runs end `failed`, `interrupted: worker lost` |
 * | `CYRNEL_WORKER_CONCURRENCY` | 500 | runs one host executes at once (the environment's `admit()` can refuse sooner) |
 * | `CYRNEL_PROCESS_FLUSH_MS` | 250 | at most this often a running process's stdout/stderr so far is written to its row, for readers on other hosts |
 * | `CYRNEL_QUEUE_POLL_MS` | 60000 | how often idle workers look for runs they were not notified of (pickup is by NOTIFY; this is a backstop) |
 * | `CYRNEL_ADVERTISE_URL` | none | how operators and clients reach this host, shown in the hosts list; with `CYRNEL_OAUTH_ISSUER`, the resource tokens are for (config-oauth.ts) |
 * | `CYRNEL_QUEUE_LIMIT` | 10000 | runs that may wait for a host; past it `POST /processes` answers 429 `at_capacity` |
 *
 * `api` and `worker` only make sense with a shared PostgreSQL database
 * (`CYRNEL_DATABASE_URL=postgres://…`): they are refused without one.
 */
import { ConfigError } from "./config-error.js";
import { DEFAULT_FLUSH_INTERVAL_MS, DEFAULT_LEASE_MS, type HostRole } from "./contract/cluster.js";

export interface ClusterConfig {
  role: HostRole;
  leaseMs: number;
  workerConcurrency: number;
  processFlushMs: number;
  queuePollMs: number;
  advertiseUrl: string | null;
  queueLimit: number;
}

export const HOST_ROLES: readonly HostRole[] = ["all", "api", "worker"];
/**
 * Runs one host takes at once: typescript-ivm's default `maxExecutions`, so that a host takes as many runs as its
 * sandbox runs at once (most of them awaiting tool calls) and leaves the rest in the queue for other hosts.
 */
export const DEFAULT_WORKER_CONCURRENCY = 500;
export const DEFAULT_QUEUE_LIMIT = 10_000;
/**
 * The queue's polling backstop (ProcessQueue's own default too). Not imported from process-queue.ts: every host
 * reads this file at start, and that one loads graphile-worker, which a host on SQLite never needs.
 */
const DEFAULT_POLL_INTERVAL_MS = 60_000;

type Env = Record<string, string | undefined>;

export function loadClusterConfig(env: Env = process.env): ClusterConfig {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const roleText = (read("CYRNEL_ROLE") ?? "all").toLowerCase();
  if (!HOST_ROLES.includes(roleText as HostRole)) {
    throw new ConfigError("CYRNEL_ROLE", `must be one of ${HOST_ROLES.join(", ")}, got "${read("CYRNEL_ROLE")}"`);
  }
  const role = roleText as HostRole;
  const databaseUrl = read("CYRNEL_DATABASE_URL");
  if (role !== "all" && !/^postgres(ql)?:\/\//i.test(databaseUrl ?? "")) {
    throw new ConfigError(
      "CYRNEL_ROLE",
      `"${role}" needs a shared PostgreSQL database: set CYRNEL_DATABASE_URL=postgres://… (every host the same)`,
    );
  }
  const leaseMs = integer("CYRNEL_LEASE_MS", read("CYRNEL_LEASE_MS"), DEFAULT_LEASE_MS, 1_000, 10 * 60_000);
  return {
    role,
    leaseMs,
    workerConcurrency: integer(
      "CYRNEL_WORKER_CONCURRENCY",
      read("CYRNEL_WORKER_CONCURRENCY"),
      DEFAULT_WORKER_CONCURRENCY,
      1,
      10_000,
    ),
    processFlushMs: integer(
      "CYRNEL_PROCESS_FLUSH_MS",
      read("CYRNEL_PROCESS_FLUSH_MS"),
      DEFAULT_FLUSH_INTERVAL_MS,
      10,
      leaseMs,
    ),
    queuePollMs: integer(
      "CYRNEL_QUEUE_POLL_MS",
      read("CYRNEL_QUEUE_POLL_MS"),
      DEFAULT_POLL_INTERVAL_MS,
      1_000,
      3_600_000,
    ),
    advertiseUrl: read("CYRNEL_ADVERTISE_URL") ?? null,
    queueLimit: integer("CYRNEL_QUEUE_LIMIT", read("CYRNEL_QUEUE_LIMIT"), DEFAULT_QUEUE_LIMIT, 1, 10_000_000),
  };
}

function integer(variable: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(variable, `must be an integer, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(variable, `must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}
