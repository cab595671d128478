/**
 * A run's journal: what makes a run durable. A host that dies, a worker
 * that is lost or a host that restarts no longer ends a run: the run is
 * resumed (run again from the start, on any host) and replayed against what
 * its earlier attempts journaled, so a call that reached its service is not
 * sent again.
 *
 * What is written, and when (each write awaited before the run goes on):
 * - a tool call, when the gate is about to hand it to its adapter (every
 *   check passed, an approval given): `started`, with the digest of its
 *   service, tool and parameters. A call that never gets that far (refused,
 *   denied, not found) is journaled once, with its error.
 * - the call's answer, before the program sees it: `ok` with the result, or
 *   `error` with the error. A call canceled because its run or host is
 *   ending keeps `started`: it may have reached the service.
 * - the environment's entries (the values the program read from the clock
 *   and random numbers, the order answers and timers reached it), with the
 *   next call's write, so what a call was decided from is durable before it
 *   is sent.
 *
 * On a resumed attempt, the program's calls are matched in issue order: a
 * call journaled with an answer is answered from it without reaching the
 * gate; a call whose digest differs ends the run `failed` with
 * `nondeterministic replay` and nothing is sent; a call journaled `started`
 * (in flight when its host died) goes to the gate again marked as such: it is
 * re-sent only if its tool is read-only or idempotent, else it waits for an
 * operator's approval of the re-send; a call past the journal is live.
 *
 * Past `limitBytes` of journal a run is no longer durable: it says so (its
 * execution's `not_durable`), stops journaling, and ends `interrupted` as
 * before if its host dies.
 */
import { createHash } from "node:crypto";
import type { InvokeInput } from "@cyrnel/sdk";
import { CyrnelError, ERROR_STATUS, type ErrorCode, messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import type { JournalCall, JournalRecord, JournalStore } from "./journal-store.js";

/** What the gate is told of a journaled call (`CallContext.journal`). */
export interface JournaledCall {
  executionId: number;
  /** Issue order in the run, from 0. */
  index: number;
  /** It was in flight when the host that ran an earlier attempt died: it may have reached the service. */
  inFlight: boolean;
  /** Called by the gate once every check passed, right before the adapter: the call is journaled as started. */
  sending(): Promise<void>;
}

/** Error codes that mean the run or the host is ending, not an answer of the call: the call stays `started`. */
const ENDING_CODES = new Set(["call_canceled", "shutting_down"]);

/** The divergence message, also what the program's call rejects with. */
export function divergence(index: number, recorded: JournalCall, input: InvokeInput): string {
  const now = `${String(input.serviceId)}.${String(input.toolId)}`;
  const was = `${recorded.serviceId}.${recorded.toolId}`;
  const what =
    now === was
      ? `called ${now} with other parameters than the journal has`
      : `called ${now} where the journal has ${was}`;
  return `nondeterministic replay: call #${index + 1} of the resumed run ${what}; nothing was sent`;
}

/**
 * SHA-256 of a call's service, tool and parameters (and whether it asked for the whole response: its answer has
 * another shape), with object keys sorted: equal calls, equal digests.
 */
export function callDigest(input: InvokeInput): string {
  const call: unknown[] = [String(input.serviceId), String(input.toolId), input.parameters ?? {}];
  if (input.withResponse === true) call.push(true);
  return createHash("sha256").update(canonicalJson(call)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export interface RunJournalOptions {
  store: JournalStore;
  logger: HostLogger;
  executionId: number;
  /** The attempt this host runs (1: the first); writes of an attempt that is no longer the latest are refused. */
  attempt: number;
  /** What earlier attempts journaled; null: a first attempt (nothing to replay). */
  record: JournalRecord | null;
  /** `CYRNEL_JOURNAL_LIMIT_BYTES`. */
  limitBytes: number;
  /** The run must end `failed` with this message (a nondeterministic replay). */
  diverged(message: string): void;
}

export class RunJournal {
  private nextIndex = 0;
  private readonly recorded = new Map<number, JournalCall>();
  /** Entries of the environment not written yet: they go with the next write. */
  private pendingReplay: string[] = [];
  private bytes: number;
  private durable: boolean;
  /** The run's journal writes, one at a time and in order. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RunJournalOptions) {
    for (const call of options.record?.calls ?? []) this.recorded.set(call.index, call);
    this.bytes = options.record?.bytes ?? 0;
    this.durable = options.record?.notDurable == null;
  }

  /** Entries the environment recorded (`EnvironmentBindings.recordReplay`), written with the run's next write. */
  recordReplay(entries: readonly string[]): void {
    if (!this.durable) return;
    for (const entry of entries) this.pendingReplay.push(String(entry));
  }

  /** Whether the run can still be resumed from its journal. */
  get isDurable(): boolean {
    return this.durable;
  }

  /**
   * One call of the program: answered from the journal, refused as a divergence, or made through `live` (the
   * gate) with the journal told when it is about to be sent and what it answered.
   */
  async call(input: InvokeInput, live: (journal: JournaledCall) => Promise<unknown>): Promise<unknown> {
    const index = this.nextIndex++;
    const digest = callDigest(input);
    const recorded = this.recorded.get(index);
    if (recorded !== undefined) {
      if (recorded.digest !== digest) {
        const message = divergence(index, recorded, input);
        this.options.diverged(message);
        throw new CyrnelError("conflict", message);
      }
      if (recorded.state === "ok") return recorded.payload === null ? undefined : JSON.parse(recorded.payload);
      if (recorded.state === "error") throw replayedError(recorded.payload);
    }
    const entry = {
      index,
      digest,
      serviceId: String(input.serviceId),
      toolId: String(input.toolId),
    };
    let sent = recorded?.state === "started";
    let unjournaled = false;
    try {
      const result = await live({
        executionId: this.options.executionId,
        index,
        inFlight: recorded?.state === "started",
        sending: async () => {
          try {
            if (sent) await this.flushReplay();
            else await this.write({ ...entry, state: "started", payload: null });
            sent = true;
          } catch (error) {
            unjournaled = true;
            throw error;
          }
        },
      });
      // The answer is journaled before the program sees it. Were that write to fail, the call stays `started`: a
      // resumed run then treats it as in flight (re-sent only if that is safe), so the program still gets its answer.
      await this.write({ ...entry, state: "ok", payload: JSON.stringify(result ?? null) }).catch(() => {});
      return result;
    } catch (error) {
      // A call canceled because the run or the host ends may have reached its service: it stays as it was.
      if (!unjournaled && !(error instanceof CyrnelError && ENDING_CODES.has(error.code))) {
        await this.write({ ...entry, state: "error", payload: JSON.stringify(errorPayload(error)) }).catch(() => {});
      }
      throw error;
    }
  }

  /** Writes what the environment recorded so far (the run is ending: what follows is not journaled). */
  flushReplay(): Promise<void> {
    if (this.pendingReplay.length === 0) return this.writes.then(() => {});
    return this.enqueue(undefined);
  }

  private write(call: JournalCall): Promise<void> {
    return this.enqueue(call);
  }

  /** A journal write behind the earlier ones; a failure is logged and the journal stops (the run is not durable). */
  private enqueue(call: JournalCall | undefined): Promise<void> {
    const done = this.writes.then(async () => {
      if (!this.durable) return;
      const replay = this.pendingReplay;
      this.pendingReplay = [];
      const bytes = (call?.payload?.length ?? 0) + replay.reduce((total, entry) => total + entry.length + 3, 0) + 100;
      if (this.bytes + bytes > this.options.limitBytes) {
        await this.stop(
          `its journal outgrew CYRNEL_JOURNAL_LIMIT_BYTES (${this.options.limitBytes} bytes); ` +
            "if its host stops, the run ends interrupted instead of resuming",
        );
        return;
      }
      this.bytes += bytes;
      const written = await this.options.store.write(this.options.executionId, this.options.attempt, {
        ...(replay.length > 0 && { replay }),
        ...(call !== undefined && { call }),
        bytes,
      });
      if (!written) {
        // Another attempt took the run over (this host was reaped): nothing of this one may be sent any more.
        this.durable = false;
        throw new CyrnelError("conflict", "this run was resumed elsewhere (its host lost it); the call was not sent");
      }
    });
    this.writes = done.catch(() => {});
    return done.catch((error) => {
      if (error instanceof CyrnelError && error.code === "conflict") throw error;
      this.options.logger.warn("could not write a run's journal", {
        execution: this.options.executionId,
        error: messageOf(error),
      });
      // A storage fault: the call must not go out unjournaled, or a resumed run could send it twice.
      throw new CyrnelError(
        "database_unavailable",
        `could not journal the call (${messageOf(error)}); it was not sent`,
      );
    });
  }

  private async stop(reason: string): Promise<void> {
    this.durable = false;
    this.pendingReplay = [];
    this.options.logger.warn("a run is no longer durable", { execution: this.options.executionId, reason });
    await this.options.store.markNotDurable(this.options.executionId, reason).catch(() => {});
  }
}

interface ErrorPayload {
  code: string;
  message: string;
  details?: unknown;
}

function errorPayload(error: unknown): ErrorPayload {
  if (error instanceof CyrnelError) {
    return { code: error.code, message: error.message, ...(error.details !== undefined && { details: error.details }) };
  }
  return { code: "internal", message: messageOf(error) };
}

/** The error a journaled call ended with, as the gate threw it. */
function replayedError(payload: string | null): CyrnelError {
  const parsed = (payload === null ? {} : JSON.parse(payload)) as Partial<ErrorPayload>;
  const code = (typeof parsed.code === "string" && parsed.code in ERROR_STATUS ? parsed.code : "internal") as ErrorCode;
  return new CyrnelError(code, String(parsed.message ?? "the call failed"), parsed.details);
}
