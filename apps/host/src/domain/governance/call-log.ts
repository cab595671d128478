/**
 * The record of every tool call, allowed or refused: the gate hands each
 * call here as it ends. A record gets its id at once and goes to the
 * process's event stream at once (the `callEnded` notice of
 * `ProcessEvents`); it is written to the database in batches, so a call
 * pays for an array push, not for a commit: after
 * FLUSH_DELAY_MS, or at once when FLUSH_ROWS are waiting. Every read flushes
 * first, so a list never misses a call that ended. A host that dies loses
 * at most the last FLUSH_DELAY_MS of records.
 *
 * Storage faults (the database out of reach, the disk full): a batch that
 * fails on one is kept, in order, and written again with backoff until
 * storage is back (at most MAX_KEPT_ROWS are kept; past that the oldest are
 * dropped, logged). Writing again is safe: the stores ignore rows already
 * there. A read or a run's end that flushes meanwhile fails with the fault
 * (the request answers 503/507), so nobody reads a list that misses calls.
 *
 * Ids: one host hands them out itself (the highest ever given, read at
 * start, plus one). Hosts sharing a database must not give the same id
 * twice, so there (`ids`) each host takes blocks of ids from the database's
 * sequence ahead of need; a call recorded while a block is on its way waits
 * for it before it is published.
 *
 * Retention: records older than `CYRNEL_CALLS_RETENTION_DAYS` are deleted
 * at start and once a day.
 */
import type { CallCounts, CallRecord } from "../../contract/governance.js";
import { messageOf } from "../../errors.js";
import { type StorageHealth, storageFaultOf } from "../../lib/storage-faults.js";
import type { HostLogger } from "../../log.js";
import type { ProcessEvents } from "../processes/process-events.js";
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
  /** The connection whose access token the call carried, if any. */
  connectionId: string | null;
  /** The parameters' preview: the (masked) value and its JSON text. */
  parameters: { value: unknown; json: string };
}

export interface CallLogOptions {
  store: CallStore;
  logger: HostLogger;
  /** Where an ended call is noticed (`callEnded`, before it is written). */
  events: ProcessEvents;
  /** Takes `count` fresh ids from a source every host shares (PostgreSQL's sequence); absent: this host counts. */
  ids?(count: number): Promise<number[]>;
  /** Told of storage faults the writes meet (for `/health`). */
  storage?: StorageHealth;
}

/** Ids taken from the shared source at a time, and how few left make this host take the next block. */
const ID_BLOCK = 256;
const ID_LOW_WATER = 64;

const FLUSH_DELAY_MS = 100;
const FLUSH_ROWS = 500;
/** Records kept through a storage fault at most (about 1 KB each), and the pauses between tries to write them. */
const MAX_KEPT_ROWS = 100_000;
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Ids sent by code for services and tools that do not exist can be anything; the record keeps this much. */
const MAX_ID_CHARS = 256;

export class CallLog {
  private lastId = 0;
  private pending: NewCallRow[] = [];
  /** Rows a storage fault kept from being written, oldest first; written before `pending`. */
  private kept: NewCallRow[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = RETRY_FIRST_MS;
  /** The batches being written, in order: a read waits for every batch recorded before it. */
  private writing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  /** Ids taken from the shared source, not given yet (with `ids`). */
  private reserved: number[] = [];
  /** Calls that ended while no reserved id was left: numbered once the next block comes. */
  private unnumbered: EndedCall[] = [];
  private refilling: Promise<void> | null = null;

  constructor(private readonly options: CallLogOptions) {}

  /** Reads the highest id ever given (or takes the first block of ids), before the first call is recorded. */
  async start(): Promise<void> {
    if (this.options.ids) await this.refill();
    else this.lastId = await this.options.store.lastId();
  }

  record(call: EndedCall): void {
    const id = this.nextId();
    if (id === undefined) {
      this.unnumbered.push(call);
      void this.refill();
      return;
    }
    this.recordAs(id, call);
  }

  private nextId(): number | undefined {
    if (!this.options.ids) return ++this.lastId;
    if (this.unnumbered.length > 0) return undefined; // keep the order in which calls ended
    const id = this.reserved.shift();
    if (this.reserved.length < ID_LOW_WATER) void this.refill();
    return id;
  }

  /** Takes the next block of shared ids (one request at a time), then numbers the calls that waited for it. */
  private refill(): Promise<void> {
    const ids = this.options.ids;
    if (!ids) return Promise.resolve();
    this.refilling ??= ids(ID_BLOCK)
      .then(
        (block) => {
          this.reserved.push(...block);
          for (const call of this.unnumbered.splice(0)) this.recordAs(this.reserved.shift()!, call);
        },
        (error) => {
          this.options.logger.error("could not take call record ids; retried", { error: messageOf(error) });
          // The calls waiting stay queued; the next record or flush tries again.
          return new Promise<void>((resolve) => setTimeout(resolve, 100).unref());
        },
      )
      .finally(() => {
        this.refilling = null;
        if (this.unnumbered.length > 0 || this.reserved.length < ID_LOW_WATER) void this.refill();
      });
    return this.refilling;
  }

  private recordAs(id: number, call: EndedCall): void {
    const record: CallRecord = {
      id,
      processId: call.context.processId,
      keyId: call.context.caller.keyId,
      serviceId: call.serviceId.slice(0, MAX_ID_CHARS),
      toolId: call.toolId.slice(0, MAX_ID_CHARS),
      startedAt: new Date(call.startedAt).toISOString(),
      durationMs: Math.max(0, Math.round(call.durationMs)),
      outcome: call.outcome,
      status: call.status,
      connectionId: call.connectionId,
      parameters: call.parameters.value,
    };
    this.pending.push({ ...record, executionId: call.context.executionId, parameters: call.parameters.json });
    if (this.pending.length >= FLUSH_ROWS) this.flushInBackground();
    else this.flushTimer ??= setTimeout(() => this.flushInBackground(), FLUSH_DELAY_MS).unref();
    try {
      this.options.events.notice("callEnded", { record });
    } catch (error) {
      this.options.logger.warn("publishing a call record failed", { error: messageOf(error) });
    }
  }

  /** Writes what is waiting; resolves once it and every batch before it are written (or failed, which is logged). */
  async flush(): Promise<void> {
    // Calls still waiting for an id are numbered first (a block covers many), so a read finds them too.
    for (let tries = 0; this.unnumbered.length > 0 && tries < 3; tries++) await this.refill();
    return this.flushNow();
  }

  /** A flush nobody awaits: a storage fault keeps the rows for the retry, and that is all there is to do. */
  private flushInBackground(): void {
    this.flushNow().catch(() => undefined);
  }

  /**
   * Writes the kept rows and what is waiting, after every batch before. Resolves once written; rejects with the
   * fault when storage refused them (they are kept and retried); other failures are logged and the rows dropped.
   */
  private flushNow(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const attempt = this.writing.then(() => this.writeWaiting());
    this.writing = attempt.catch(() => undefined);
    return attempt;
  }

  private async writeWaiting(): Promise<void> {
    if (this.kept.length === 0 && this.pending.length === 0) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const rows = this.kept.concat(this.pending);
    this.kept = [];
    this.pending = [];
    try {
      await this.options.store.insertMany(rows);
      if (this.retryDelay !== RETRY_FIRST_MS) {
        this.options.logger.info("storage is back; kept call records were written", { count: rows.length });
        this.retryDelay = RETRY_FIRST_MS;
      }
      this.options.storage?.recovered();
    } catch (error) {
      const fault = storageFaultOf(error);
      if (!fault) {
        this.options.logger.error("call records could not be written", { count: rows.length, error: messageOf(error) });
        return;
      }
      this.options.storage?.failed(fault);
      this.keep(rows, fault.reason);
      throw error;
    }
  }

  /** Keeps rows a storage fault refused (bounded) and tries them again later, backing off. */
  private keep(rows: NewCallRow[], reason: string): void {
    if (this.retryDelay === RETRY_FIRST_MS) {
      this.options.logger.warn("call records could not be written; kept and retried until storage is back", {
        count: rows.length,
        reason,
      });
    }
    this.kept = rows.concat(this.kept, this.pending);
    this.pending = [];
    if (this.kept.length > MAX_KEPT_ROWS) {
      const dropped = this.kept.splice(0, this.kept.length - MAX_KEPT_ROWS);
      this.options.logger.error("call records were dropped: too many kept while storage was out of reach", {
        count: dropped.length,
        kept: MAX_KEPT_ROWS,
      });
    }
    this.retryTimer = setTimeout(() => this.flushInBackground(), this.retryDelay);
    this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
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

  /** Shutdown: writes what is waiting and stops the timers (what storage still refuses is lost, logged). */
  async stop(): Promise<void> {
    clearInterval(this.retentionTimer);
    try {
      await this.flush();
    } catch (error) {
      this.options.logger.error("call records were lost: storage was out of reach when the host stopped", {
        count: this.kept.length,
        error: messageOf(error),
      });
    } finally {
      clearTimeout(this.retryTimer);
    }
  }
}

/** The API shape of a stored record (`executionId` stays inside). */
export function callRecord(row: CallRow): CallRecord {
  const { executionId: _run, ...record } = row;
  return record;
}
