/**
 * The record of every tool call, allowed or refused: the gate hands each
 * call here as it ends. A record gets its id at once and goes to the
 * process's event stream at once (`onCall`); it is written to the database
 * in batches, so a call pays for an array push, not for a commit: after
 * FLUSH_DELAY_MS, or at once when FLUSH_ROWS are waiting. Every read flushes
 * first, so a list never misses a call that ended. A host that dies loses
 * at most the last FLUSH_DELAY_MS of records.
 *
 * Retention: records older than `CYRNEL_CALLS_RETENTION_DAYS` are deleted
 * at start and once a day.
 */
import type { CallCounts, CallRecord } from "../../contract/governance.js";
import { messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import type { CallFilter, CallRow, CallStore, NewCallRow } from "./call-store.js";
import type { CallContext } from "./caller.js";

/** A call as the gate saw it end. */
export interface EndedCall {
  /** Who made it, from which run of a process (none: a direct invoke). */
  context: CallContext;
  serviceId: string;
  toolId: string;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  /** `ok`, or the code of the error the caller got. */
  outcome: string;
  status: number | null;
  /** The parameters' preview: the (masked) value and its JSON text. */
  parameters: { value: unknown; json: string };
}

export interface CallLogOptions {
  store: CallStore;
  logger: HostLogger;
  /** A call ended (published before it is written). */
  onCall(record: CallRecord): void;
}

const FLUSH_DELAY_MS = 100;
const FLUSH_ROWS = 500;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Ids sent by code for services and tools that do not exist can be anything; the record keeps this much. */
const MAX_ID_CHARS = 256;

export class CallLog {
  private lastId = 0;
  private pending: NewCallRow[] = [];
  /** The batches being written, in order: a read waits for every batch recorded before it. */
  private writing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: CallLogOptions) {}

  /** Reads the highest id ever given, before the first call is recorded. */
  async start(): Promise<void> {
    this.lastId = await this.options.store.lastId();
  }

  record(call: EndedCall): void {
    const record: CallRecord = {
      id: ++this.lastId,
      processId: call.context.processId,
      keyId: call.context.caller.keyId,
      serviceId: call.serviceId.slice(0, MAX_ID_CHARS),
      toolId: call.toolId.slice(0, MAX_ID_CHARS),
      startedAt: new Date(call.startedAt).toISOString(),
      durationMs: Math.max(0, Math.round(call.durationMs)),
      outcome: call.outcome,
      status: call.status,
      parameters: call.parameters.value,
    };
    this.pending.push({ ...record, executionId: call.context.executionId, parameters: call.parameters.json });
    if (this.pending.length >= FLUSH_ROWS) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
    try {
      this.options.onCall(record);
    } catch (error) {
      this.options.logger.warn("publishing a call record failed", { error: messageOf(error) });
    }
  }

  /** Writes what is waiting; resolves once it and every batch before it are written (or failed, which is logged). */
  flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length > 0) {
      const rows = this.pending;
      this.pending = [];
      this.writing = this.writing.then(() =>
        this.options.store.insertMany(rows).catch((error) => {
          this.options.logger.error("call records could not be written", {
            count: rows.length,
            error: messageOf(error),
          });
        }),
      );
    }
    return this.writing;
  }

  async list(filter: CallFilter): Promise<CallRow[]> {
    await this.flush();
    return this.options.store.list(filter);
  }

  /** The calls of a process's latest run. */
  async countsOfLatestRun(processId: number): Promise<CallCounts> {
    await this.flush();
    return this.options.store.countsOfLatestRun(processId);
  }

  /** Prunes now and then once a day. */
  keepFor(days: number): void {
    const prune = async () => {
      try {
        await this.flush();
        const deleted = await this.options.store.prune(new Date(Date.now() - days * DAY_MS).toISOString());
        if (deleted > 0) this.options.logger.info("deleted old call records", { count: deleted, days });
      } catch (error) {
        this.options.logger.warn("pruning call records failed; retried tomorrow", { error: messageOf(error) });
      }
    };
    void prune();
    clearInterval(this.retentionTimer);
    this.retentionTimer = setInterval(() => void prune(), DAY_MS).unref();
  }

  /** Shutdown: writes what is waiting and stops the timers. */
  stop(): Promise<void> {
    clearInterval(this.retentionTimer);
    return this.flush();
  }
}

/** The API shape of a stored record (`executionId` stays inside). */
export function callRecord(row: CallRow): CallRecord {
  const { executionId: _run, ...record } = row;
  return record;
}
