/**
 * Every environment variable the host reads, parsed once into a typed
 * object. A bad value throws a ConfigError naming the variable; the CLI
 * prints it and exits non-zero.
 */
import { resolve } from "node:path";
import { type ClusterConfig, loadClusterConfig } from "./config-cluster.js";
import { ConfigError } from "./config-error.js";
import { loadOAuthConfig, type OAuthConfig } from "./config-oauth.js";
import { loadTracesConfig, type TracesConfig } from "./config-traces.js";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface HostConfig {
  /** `CYRNEL_DATA_DIR`: holds data.db, modules/ and (without a configured key) secrets.key. */
  dataDir: string;
  /**
   * `CYRNEL_DATABASE_URL`: a `postgres://` or `postgresql://` URL puts every store in that PostgreSQL database;
   * `null` (the default) keeps them in SQLite, `<dataDir>/data.db`. It may carry a password: never log it.
   */
  databaseUrl: string | null;
  /** `CYRNEL_SECRETS_KEY`: 32-byte AES key; `null` means use or create `<dataDir>/secrets.key`. */
  secretsKey: Buffer | null;
  /** `CYRNEL_SECRETS_PREVIOUS_KEYS`: older keys that can still decrypt values (re-encrypted at startup). */
  previousSecretsKeys: Buffer[];
  host: string;
  /** `0` picks a free port (used by tests). */
  port: number;
  /**
   * `CYRNEL_API_KEY`: the bootstrap admin key (never stored). Authentication is on when it is set or any key is
   * stored (`POST /keys`); every route but `GET /health` then needs `Authorization: Bearer <key>`.
   */
  apiKey: string | null;
  /**
   * `CYRNEL_ALLOW_ANONYMOUS`: start on a non-loopback `host` even though authentication is off (no
   * `CYRNEL_API_KEY`, no stored key). Without it such a start is refused.
   */
  allowAnonymous: boolean;
  /**
   * `CYRNEL_METRICS_TOKEN`: a bearer token that reads `GET /metrics` and nothing else (a Prometheus scraper needs no
   * admin key); at least 16 characters. null: only an admin key reads it.
   */
  metricsToken: string | null;
  logLevel: LogLevel;
  invokeTimeoutMs: number;
  /** `CYRNEL_MODULE_LOAD_TIMEOUT_MS`: bound on importing a custom module, `instantiate()`, `setup()` and `teardown()`, each. */
  moduleLoadTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** Request body cap for ordinary routes. */
  bodyLimitBytes: number;
  /** Request body cap for routes that carry a service definition, and for downloaded definitions. */
  definitionLimitBytes: number;
  /** Per-process caps: submitted code, stdout and stderr each, merged output JSON. */
  processCodeLimitBytes: number;
  processStreamLimitBytes: number;
  processOutputLimitBytes: number;
  /** `CYRNEL_PROCESS_FOLLOWERS_LIMIT`: live `GET /processes/:id/events` readers per running process. */
  processFollowersLimit: number;
  /** Per-key limits: past one, `429 rate_limited` with `Retry-After` (see the README's "Per-key limits"). */
  keyLimits: {
    /** `CYRNEL_KEY_INFLIGHT_CALLS`: tool calls at adapters at once per key (the bootstrap caller is one key). */
    inFlightCalls: number;
    /** `CYRNEL_KEY_PROCESSES`: processes of one stored key queued, running or suspended at once. */
    processes: number;
    /** `CYRNEL_KEY_REQUESTS_PER_SECOND`: sustained requests a second per stored key, per host. */
    requestsPerSecond: number;
    /** `CYRNEL_KEY_REQUESTS_BURST`: requests a stored key may send at once before the rate applies. */
    requestsBurst: number;
  };
  /** Idle timeout of outbound downloads (definition URLs, registries, module archives): the longest wait for bytes. */
  downloadTimeoutMs: number;
  /** `CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS`: the bound on a whole download, however steadily it progresses. */
  downloadTotalTimeoutMs: number;
  /** `CYRNEL_DOWNLOAD_DENY_PRIVATE`: refuse downloads from loopback, private, link-local and other non-public addresses. */
  downloadDenyPrivate: boolean;
  /**
   * `CYRNEL_VALIDATE_RESPONSES`: check every JSON response against its route's declared schema and error codes,
   * and answer 500 on a mismatch (the test suites turn it on; not meant for production).
   */
  validateResponses: boolean;
  /**
   * `CYRNEL_AGENT_TEXT_LIMIT_CHARS`: the most characters one types or docs answer may have (an LLM reads
   * them); a longer one is replaced by an index or shown with less detail.
   */
  agentTextLimitChars: number;
  /**
   * `CYRNEL_TYPES_BUDGET_CHARS`: characters of JSON Schema one types answer (`GET /environment/types`, MCP
   * `get_types`) or one service's declarations for type checks may be made from; a tool may have an eighth of
   * it (see domain/services/types-budget.ts).
   */
  typesBudgetChars: number;
  /** `CYRNEL_APPROVAL_TIMEOUT_MS`: how long a call under an `ask` policy waits for a decision before it is refused. */
  approvalTimeoutMs: number;
  /** `CYRNEL_JOURNAL_LIMIT_BYTES`: the most one run may journal; past it, it is no longer durable (run-journal.ts). */
  journalLimitBytes: number;
  /** `CYRNEL_SUSPEND_EVICT_MS`: how long a run waits for an approval holding its sandbox before the host lets it go. */
  suspendEvictMs: number;
  /**
   * `CYRNEL_PENDING_APPROVALS_LIMIT`: approvals one key (the bootstrap key counting as one) may have pending at once;
   * a call past it fails `429 too_many_pending_approvals` without being made.
   */
  pendingApprovalsLimit: number;
  /** `CYRNEL_CALLS_RETENTION_DAYS`: call records older than this are deleted (at start and daily). */
  callsRetentionDays: number;
  /**
   * `CYRNEL_PROCESSES_RETENTION_DAYS`: processes that finished longer ago than this are deleted with their runs,
   * call records and approvals (at start and daily).
   */
  processesRetentionDays: number;
  /**
   * `CYRNEL_MCP_WAIT_MS`: the longest one `/mcp` call (run_code, get_process with wait) waits for a process
   * before it answers that the process is still running, so that it answers before the client gives up.
   */
  mcpWaitMs: number;
  /**
   * Signing in with OAuth 2.1 beside API keys: `CYRNEL_OAUTH_ISSUER`, `CYRNEL_OAUTH_AUDIENCE`,
   * `CYRNEL_OAUTH_SCOPES_CLAIM`, with `CYRNEL_ADVERTISE_URL` as the resource (config-oauth.ts); null when off.
   */
  oauth: OAuthConfig | null;
  /** Running many hosts on one PostgreSQL database: `CYRNEL_ROLE`, `CYRNEL_LEASE_MS`, … (config-cluster.ts). */
  cluster: ClusterConfig;
  /** OpenTelemetry traces from the standard `OTEL_*` variables (config-traces.ts); null when off. */
  traces: TracesConfig | null;
}

/** MCP clients commonly give up on a call after 60 s; a call that waits answers before that. */
export const DEFAULT_MCP_WAIT_MS = 50_000;

export { ConfigError };

type Env = Record<string, string | undefined>;

const MiB = 1024 * 1024;
/** Node timers fire at once for delays above 2^31 − 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function loadConfig(env: Env = process.env): HostConfig {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };

  return {
    dataDir: resolve(read("CYRNEL_DATA_DIR") ?? ".cyrnel"),
    databaseUrl: databaseUrl("CYRNEL_DATABASE_URL", read("CYRNEL_DATABASE_URL")),
    secretsKey: parseKey("CYRNEL_SECRETS_KEY", read("CYRNEL_SECRETS_KEY")),
    previousSecretsKeys: (read("CYRNEL_SECRETS_PREVIOUS_KEYS") ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "")
      .map((part, index) => parseKey(`CYRNEL_SECRETS_PREVIOUS_KEYS[${index}]`, part) as Buffer),
    host: read("CYRNEL_HOST") ?? "127.0.0.1",
    port: integer("CYRNEL_PORT", read("CYRNEL_PORT"), 9371, 0, 65535),
    apiKey: read("CYRNEL_API_KEY") ?? null,
    metricsToken: metricsToken(read("CYRNEL_METRICS_TOKEN")),
    allowAnonymous: flag("CYRNEL_ALLOW_ANONYMOUS", read("CYRNEL_ALLOW_ANONYMOUS")),
    logLevel: oneOf("CYRNEL_LOG_LEVEL", read("CYRNEL_LOG_LEVEL"), LOG_LEVELS, "info"),
    invokeTimeoutMs: integer("CYRNEL_INVOKE_TIMEOUT_MS", read("CYRNEL_INVOKE_TIMEOUT_MS"), 30_000, 1),
    moduleLoadTimeoutMs: integer(
      "CYRNEL_MODULE_LOAD_TIMEOUT_MS",
      read("CYRNEL_MODULE_LOAD_TIMEOUT_MS"),
      30_000,
      1,
      MAX_TIMER_MS,
    ),
    shutdownTimeoutMs: integer("CYRNEL_SHUTDOWN_TIMEOUT_MS", read("CYRNEL_SHUTDOWN_TIMEOUT_MS"), 10_000, 0),
    bodyLimitBytes: integer("CYRNEL_BODY_LIMIT_BYTES", read("CYRNEL_BODY_LIMIT_BYTES"), MiB, 1024),
    definitionLimitBytes: integer(
      "CYRNEL_DEFINITION_LIMIT_BYTES",
      read("CYRNEL_DEFINITION_LIMIT_BYTES"),
      32 * MiB,
      1024,
    ),
    processCodeLimitBytes: integer(
      "CYRNEL_PROCESS_CODE_LIMIT_BYTES",
      read("CYRNEL_PROCESS_CODE_LIMIT_BYTES"),
      100 * 1024,
      1,
    ),
    processStreamLimitBytes: integer(
      "CYRNEL_PROCESS_STREAM_LIMIT_BYTES",
      read("CYRNEL_PROCESS_STREAM_LIMIT_BYTES"),
      MiB,
      1024,
    ),
    processOutputLimitBytes: integer(
      "CYRNEL_PROCESS_OUTPUT_LIMIT_BYTES",
      read("CYRNEL_PROCESS_OUTPUT_LIMIT_BYTES"),
      MiB,
      1024,
    ),
    processFollowersLimit: integer("CYRNEL_PROCESS_FOLLOWERS_LIMIT", read("CYRNEL_PROCESS_FOLLOWERS_LIMIT"), 32, 1),
    keyLimits: {
      inFlightCalls: integer("CYRNEL_KEY_INFLIGHT_CALLS", read("CYRNEL_KEY_INFLIGHT_CALLS"), 256, 1),
      processes: integer("CYRNEL_KEY_PROCESSES", read("CYRNEL_KEY_PROCESSES"), 100, 1),
      requestsPerSecond: integer("CYRNEL_KEY_REQUESTS_PER_SECOND", read("CYRNEL_KEY_REQUESTS_PER_SECOND"), 50, 1),
      requestsBurst: integer("CYRNEL_KEY_REQUESTS_BURST", read("CYRNEL_KEY_REQUESTS_BURST"), 500, 1),
    },
    downloadTimeoutMs: integer("CYRNEL_DOWNLOAD_TIMEOUT_MS", read("CYRNEL_DOWNLOAD_TIMEOUT_MS"), 10_000, 1),
    downloadTotalTimeoutMs: integer(
      "CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS",
      read("CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS"),
      300_000,
      1,
    ),
    downloadDenyPrivate: flag("CYRNEL_DOWNLOAD_DENY_PRIVATE", read("CYRNEL_DOWNLOAD_DENY_PRIVATE")),
    validateResponses: flag("CYRNEL_VALIDATE_RESPONSES", read("CYRNEL_VALIDATE_RESPONSES")),
    agentTextLimitChars: integer("CYRNEL_AGENT_TEXT_LIMIT_CHARS", read("CYRNEL_AGENT_TEXT_LIMIT_CHARS"), 60_000, 1_000),
    typesBudgetChars: integer("CYRNEL_TYPES_BUDGET_CHARS", read("CYRNEL_TYPES_BUDGET_CHARS"), 256 * MiB, 1024),
    approvalTimeoutMs: integer(
      "CYRNEL_APPROVAL_TIMEOUT_MS",
      read("CYRNEL_APPROVAL_TIMEOUT_MS"),
      600_000,
      1,
      MAX_TIMER_MS,
    ),
    journalLimitBytes: integer("CYRNEL_JOURNAL_LIMIT_BYTES", read("CYRNEL_JOURNAL_LIMIT_BYTES"), 16 * MiB, 0),
    suspendEvictMs: integer("CYRNEL_SUSPEND_EVICT_MS", read("CYRNEL_SUSPEND_EVICT_MS"), 30_000, 0, MAX_TIMER_MS),
    pendingApprovalsLimit: integer("CYRNEL_PENDING_APPROVALS_LIMIT", read("CYRNEL_PENDING_APPROVALS_LIMIT"), 100, 1),
    callsRetentionDays: integer("CYRNEL_CALLS_RETENTION_DAYS", read("CYRNEL_CALLS_RETENTION_DAYS"), 30, 1, 36_500),
    processesRetentionDays: integer(
      "CYRNEL_PROCESSES_RETENTION_DAYS",
      read("CYRNEL_PROCESSES_RETENTION_DAYS"),
      30,
      1,
      36_500,
    ),
    mcpWaitMs: mcpWaitMs(read("CYRNEL_MCP_WAIT_MS")),
    oauth: loadOAuthConfig(env),
    cluster: loadClusterConfig(env),
    traces: loadTracesConfig(env),
  };
}

/** `CYRNEL_MCP_WAIT_MS`, read here for the host and by `cyrnel mcp` for itself. */
export function mcpWaitMs(value: string | undefined, variable = "CYRNEL_MCP_WAIT_MS"): number {
  return integer(variable, value, DEFAULT_MCP_WAIT_MS, 0, MAX_TIMER_MS);
}

/** A guessable token would open the metrics to anyone; the message never repeats it. */
function metricsToken(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value.length < 16) {
    throw new ConfigError("CYRNEL_METRICS_TOKEN", `must be at least 16 characters (e.g. \`openssl rand -hex 32\`)`);
  }
  return value;
}

/** The message never repeats the value: it may hold the database password. */
function databaseUrl(variable: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, "is not a URL; expected postgres://user:password@host:port/database");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      variable,
      `must be a postgres:// or postgresql:// URL (got ${url.protocol}//…); leave it unset to use SQLite`,
    );
  }
  return value;
}

function parseKey(variable: string, value: string | undefined): Buffer | null {
  if (value === undefined) return null;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
    throw new ConfigError(variable, "must be base64 of exactly 32 random bytes (e.g. `openssl rand -base64 32`)");
  }
  const key = Buffer.from(value, "base64");
  if (key.length !== 32) {
    throw new ConfigError(
      variable,
      `must decode to exactly 32 bytes, got ${key.length} (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return key;
}

function integer(
  variable: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
) {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(variable, `must be an integer, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(variable, `must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}

function flag(variable: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower === "1" || lower === "true") return true;
  if (lower === "0" || lower === "false") return false;
  throw new ConfigError(variable, `must be 1 or 0 (true or false), got "${value}"`);
}

function oneOf<T extends string>(variable: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) {
    throw new ConfigError(variable, `must be one of ${allowed.join(", ")}, got "${value}"`);
  }
  return lower as T;
}
