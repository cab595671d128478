/**
 * Storage faults: the errors that say the database (or the disk under it) is
 * out of reach for now, not that a request or the code is wrong. They are
 * told apart by the drivers' codes, so every floor can act on them without
 * importing a driver:
 *
 * - `unavailable` — PostgreSQL cannot be reached or dropped the connection
 *   (a restart, a failover, `pg_terminate_backend`, a pooler): answered
 *   `503 database_unavailable` with `Retry-After`; writes the host must not
 *   lose are retried (`retryStorage`).
 * - `full` — no space left (SQLite's `SQLITE_FULL`, `ENOSPC`, PostgreSQL's
 *   `disk_full`): answered `507 insufficient_storage`, retried likewise.
 * - `unwritable` — the data directory's device refuses writes (read-only,
 *   I/O errors): `503 database_unavailable`, retried likewise.
 *
 * Drivers wrap errors (drizzle's query error keeps the driver's as `cause`),
 * so the whole `cause` chain is read.
 */
import { CyrnelError } from "../errors.js";

export type StorageFaultKind = "unavailable" | "full" | "unwritable";

export interface StorageFault {
  kind: StorageFaultKind;
  /** What an operator reads: the cause, never a query or its parameters. */
  reason: string;
}

/** Node's and libpq-style socket errors of a connection that is gone or refused. */
const CONNECTION_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
]);

/** node-postgres's own messages for a connection that ended or never came (they carry no code). */
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Connection ended unexpectedly/i,
  /Cannot use a pool after calling end/i,
];

function classify(error: { code?: unknown; message?: unknown }): StorageFault | undefined {
  const code = typeof error.code === "string" ? error.code : "";
  const message = typeof error.message === "string" ? error.message : "";
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT") {
    return { kind: "full", reason: "no space left on the data directory's device" };
  }
  // PostgreSQL's SQLSTATE class 53 (insufficient resources): 53100 disk_full, 53200 out_of_memory.
  if (code === "53100") return { kind: "full", reason: "the database server's disk is full" };
  if (code.startsWith("SQLITE_READONLY") || code === "EROFS") {
    return { kind: "unwritable", reason: "the data directory's device is read-only" };
  }
  if (code.startsWith("SQLITE_IOERR") || code === "EIO") {
    return { kind: "unwritable", reason: `the data directory's device failed a write (${code})` };
  }
  // SQLSTATE class 08 (connection exception), 57P01–57P03 (the server shuts down or is starting), 53300 (too many
  // connections): all end once the server is back.
  if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === "53300") {
    return { kind: "unavailable", reason: `the database is unavailable (${code}: ${message})` };
  }
  if (CONNECTION_ERRNOS.has(code) || CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) {
    return { kind: "unavailable", reason: `the database is unavailable (${code || message})` };
  }
  return undefined;
}

/** The storage fault behind `error` (or anything in its `cause` chain), if it is one. */
export function storageFaultOf(error: unknown): StorageFault | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth++) {
    if (current instanceof CyrnelError) {
      if (current.code === "insufficient_storage") return { kind: "full", reason: current.message };
      if (current.code === "database_unavailable") return { kind: "unavailable", reason: current.message };
      return undefined;
    }
    const fault = classify(current as { code?: unknown; message?: unknown });
    if (fault) return fault;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Seconds a client should wait before trying again, in `Retry-After`. */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/** The API's error for a storage fault. */
export function storageError(fault: StorageFault): CyrnelError {
  return fault.kind === "full"
    ? new CyrnelError("insufficient_storage", `${fault.reason}; nothing was changed, try again once there is space`, {
        retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
      })
    : new CyrnelError("database_unavailable", `${fault.reason}; try again shortly`, {
        retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
      });
}

/**
 * What the host saw of its storage lately, for `/health`: the last fault,
 * until a write succeeds again or nothing has failed for a while (whatever
 * still fails reports again: retried writes do at least every few seconds).
 */
export class StorageHealth {
  private last: { fault: StorageFault; at: number } | null = null;

  constructor(private readonly forgetAfterMs = 10_000) {}

  failed(fault: StorageFault): void {
    this.last = { fault, at: performance.now() };
  }

  recovered(): void {
    this.last = null;
  }

  /** Why storage is degraded now, or null. */
  reason(): string | null {
    if (this.last === null) return null;
    if (performance.now() - this.last.at > this.forgetAfterMs) {
      this.last = null;
      return null;
    }
    return this.last.fault.reason;
  }
}

export interface RetryOptions {
  /** What is being written, for the log ("the end of process 12"). */
  what: string;
  logger: {
    warn(message: string, fields?: Record<string, unknown>): void;
    info(message: string, fields?: Record<string, unknown>): void;
  };
  health?: StorageHealth;
  /** Aborted: stop retrying and throw the last fault (the host is stopping and its time is up). */
  giveUp?: AbortSignal;
  /** First pause and longest pause between tries. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs `write` until it succeeds: a storage fault is waited out (with
 * backoff, logged once when it starts and once when it ends), any other error
 * is thrown at once. For writes whose loss would strand a run or drop what
 * it did; `write` must be safe to repeat (an UPDATE to a final value, an
 * insert that ignores rows already there).
 */
export async function retryStorage<T>(write: () => Promise<T>, options: RetryOptions): Promise<T> {
  let delay = options.firstDelayMs ?? 100;
  const maxDelay = options.maxDelayMs ?? 2_000;
  let tries = 0;
  for (;;) {
    try {
      const result = await write();
      if (tries > 0) options.logger.info("storage is back; a kept write was made", { what: options.what, tries });
      options.health?.recovered();
      return result;
    } catch (error) {
      const fault = storageFaultOf(error);
      if (!fault) throw error;
      options.health?.failed(fault);
      if (options.giveUp?.aborted) throw error;
      if (tries === 0) {
        options.logger.warn("a write failed on a storage fault; kept and retried until storage is back", {
          what: options.what,
          reason: fault.reason,
        });
      }
      tries++;
      await pause(delay, options.giveUp);
      delay = Math.min(maxDelay, delay * 2);
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
