/**
 * A run's live events, from the host that executes it to readers on any
 * host: stdout and stderr as they are written, and the other events of a
 * run (an ended call, an approval created or decided), then its end.
 *
 * **Channel and frames.** Each process has a channel, `cyrnel_run_<id>`,
 * that only its readers LISTEN on. Every notification is one JSON *frame*
 * of at most 7900 bytes (PostgreSQL refuses 8000):
 *
 * | frame | meaning |
 * |---|---|
 * | `{r, n, t: "stdout"\|"stderr", o, x}` | text `x` of the stream at offset `o` |
 * | `{r, n, e}` | a whole event `e` (`{type: "call", …}`, `{type: "approval", …}`) |
 * | `{r, n, m: [i, count], j}` | part `i` of an event too large for one frame: the parts' `j` joined are its JSON |
 * | `{r, n, end: true}` | the run ended; its final row is written |
 *
 * `r` is the execution id (readers of one run ignore frames of another),
 * `n` a per-run frame counter (PostgreSQL drops identical notifications
 * sent in one transaction; distinct `n` keeps them distinct, and orders the
 * parts of an event). Offsets and lengths are in UTF-16 code units, as
 * JavaScript strings count; a large chunk is cut into several frames, each
 * with its own offset, so every frame is usable on its own.
 *
 * **What the executing host persists.** The text so far of each stream,
 * whole, to the process row: at most every `flushIntervalMs` (default
 * 250 ms) while it grows, the first write at once, and never after the run
 * ended (then the final row is written instead). The persisted text is
 * always a prefix of the live stream — the concatenation of every chunk
 * published — because it is the publisher's own copy at the time of the
 * write. Frames are best effort (a failed NOTIFY is only logged); the row is
 * the truth.
 *
 * **How a reader splices.** It LISTENs first, then reads the row (text so
 * far, `S`, with length `L`): everything written before is in `S`, or in a
 * frame it will receive. For a frame `(o, x)`:
 * - `o + |x| <= L`: already had, dropped;
 * - `o <= L`: the part past `L` (`x.slice(L - o)`) is new, appended;
 * - `o > L`: a gap (written before it listened, not yet persisted, or lost
 *   while its connection was down): it reads the row again until the row
 *   reaches `o` (at most a flush interval later), takes the row's new text,
 *   then the frame as above.
 *
 * Text written before the reader listened but persisted only after its
 * first read reaches it through no frame at all when nothing more is
 * written (a run that prints, then waits): a reader that shows text
 * (`catchUp`) therefore reads the row again every `retryMs` until a frame of
 * each stream has reached it (from then on frames and gaps keep it whole),
 * or `CATCH_UP_READS` times: text written before it listened is persisted
 * within a flush interval, so later reads find nothing new. (Reading for
 * as long as one stream stays silent — stderr, usually — would make every
 * follower read the whole row four times a second for the whole run: with
 * 480 followers of a chatty run, `/health` took over 2 s.)
 *
 * After a dropped connection (the listener reports a gap) or on the end
 * frame it reads the row again and takes what the row has beyond its text;
 * at the end the final row is authoritative. An event frame missed while
 * disconnected is not replayed: readers get current state (pending
 * approvals, call records) from the database, as at the start.
 */
import type { Logger } from "@cyrnel/sdk";
import type pg from "pg";
import { DEFAULT_FLUSH_INTERVAL_MS } from "../contract/cluster.js";
import { storageFaultOf } from "../lib/storage-faults.js";
import type { ListenSubscription, NotificationListener } from "./notification-listener.js";
import { splitForPayload } from "./payload-split.js";
import { messageOf, NOTIFY_PAYLOAD_LIMIT, type Queryable, silentLogger } from "./sql.js";

export type StreamName = "stdout" | "stderr";

/** An event of a run other than its text (an ended call, an approval created or decided). */
export interface RunEvent {
  type: string;
  [field: string]: unknown;
}

/** What a reader receives: new text of a stream, or an event. */
export type FollowEvent = { type: StreamName; text: string } | RunEvent;

type Frame =
  | { r: number; n: number; t: StreamName; o: number; x: string }
  | { r: number; n: number; e: RunEvent }
  | { r: number; n: number; m: [number, number]; j: string }
  | { r: number; n: number; end: true };

/** Room left in a frame for its text after the envelope (`{"r":…,"n":…,"t":"stdout","o":…,"x":""}` and the like). */
const TEXT_BUDGET = NOTIFY_PAYLOAD_LIMIT - 120;

export function runChannel(processId: number): string {
  return `cyrnel_run_${processId}`;
}

/**
 * Every run's end, on one channel every host LISTENs on once (`{p: processId,
 * r: executionId}`), beside the end frame on the run's own channel: a reader
 * that only waits for the end (`block`, MCP waits) needs no LISTEN of its own
 * per process (see `RunEnds`).
 */
export const RUN_ENDS_CHANNEL = "cyrnel_run_ends";

export interface RunPublisherOptions {
  pool: pg.Pool;
  processId: number;
  executionId: number;
  /** Writes the text so far to the process row (see the file comment); failures are logged, the next write retries. */
  persist(text: { stdout: string; stderr: string }): Promise<void>;
  flushIntervalMs?: number;
  logger?: Logger;
  /** Called once `end` has sent the end frame. */
  onEnded?(): void;
}

/** The executing host's side of a run: keeps its text, persists it, and sends its frames in order. */
export class RunPublisher {
  private readonly text = { stdout: "", stderr: "" };
  private seq = 0;
  /** Notifications to send, in order: `[channel, payload]`. */
  private pending: [string, string][] = [];
  private sending: Promise<void> = Promise.resolve();
  private sendScheduled = false;
  private persistTimer: NodeJS.Timeout | undefined;
  private persisting: Promise<void> | null = null;
  private lastPersistAt = Number.NEGATIVE_INFINITY;
  private dirty = false;
  private ended = false;
  private endSent = false;
  private readonly channel: string;
  private readonly logger: Logger;

  constructor(private readonly options: RunPublisherOptions) {
    this.channel = runChannel(options.processId);
    this.logger = options.logger ?? silentLogger;
  }

  /** Appends text to a stream (pass exactly what the run's capped stream kept) and sends it to readers. */
  write(stream: StreamName, text: string): void {
    if (this.ended || text === "") return;
    let offset = this.text[stream].length;
    this.text[stream] += text;
    for (const piece of splitForPayload(text, TEXT_BUDGET)) {
      this.queue({ r: this.options.executionId, n: this.seq++, t: stream, o: offset, x: piece });
      offset += piece.length;
    }
    this.schedulePersist();
  }

  /** Sends an event to readers: in one frame if it fits, else in parts. */
  publish(event: RunEvent): void {
    if (this.ended) return;
    const r = this.options.executionId;
    const whole = JSON.stringify({ r, n: this.seq, e: event });
    if (Buffer.byteLength(whole) <= NOTIFY_PAYLOAD_LIMIT) {
      this.seq++;
      this.pending.push([this.channel, whole]);
      this.scheduleSend();
      return;
    }
    const pieces = splitForPayload(JSON.stringify(event), TEXT_BUDGET);
    pieces.forEach((j, i) => {
      this.queue({ r, n: this.seq++, m: [i, pieces.length], j });
    });
  }

  /** The text so far. */
  get stdout(): string {
    return this.text.stdout;
  }

  get stderr(): string {
    return this.text.stderr;
  }

  /**
   * Ends the run's stream: no more persisting (a late write must not
   * overwrite the final row), `finalize` writes the final row, then the end
   * frame goes out, after every frame before it. When `finalize` fails on a
   * storage fault nothing is sent and the end may be tried again (the runner
   * retries until the row is written): readers told of an end would read a
   * row that is not final. Any other failure still ends the stream.
   */
  async end(finalize?: () => Promise<void>): Promise<void> {
    if (this.endSent) return;
    this.ended = true;
    clearTimeout(this.persistTimer);
    await this.persisting;
    try {
      await finalize?.();
    } catch (error) {
      if (!storageFaultOf(error)) await this.sendEnd();
      throw error;
    }
    await this.sendEnd();
  }

  private async sendEnd(): Promise<void> {
    if (this.endSent) return;
    this.endSent = true;
    this.queue({ r: this.options.executionId, n: this.seq++, end: true });
    this.pending.push([RUN_ENDS_CHANNEL, runEnd(this.options.processId, this.options.executionId)]);
    await this.drain();
    this.options.onEnded?.();
  }

  // ---- internals ------------------------------------------------------------------

  private queue(frame: Frame): void {
    this.pending.push([this.channel, JSON.stringify(frame)]);
    this.scheduleSend();
  }

  /** Frames written in one turn of the event loop go out in one query, in order. */
  private scheduleSend(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(() => {
      this.sendScheduled = false;
      const payloads = this.pending;
      this.pending = [];
      if (payloads.length === 0) return;
      this.sending = this.sending.then(() =>
        sendFrames(this.options.pool, payloads).catch((error) =>
          this.logger.warn("sending a run's live events failed; readers catch up from the database", {
            process: this.options.processId,
            error: messageOf(error),
          }),
        ),
      );
    });
  }

  private async drain(): Promise<void> {
    while (this.sendScheduled || this.pending.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.sending;
  }

  /** At most one write in flight, and at most one per `flushIntervalMs`; the first write of a quiet period at once. */
  private schedulePersist(): void {
    this.dirty = true;
    if (this.persistTimer !== undefined || this.persisting !== null) return;
    const interval = this.options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    const wait = Math.max(0, this.lastPersistAt + interval - performance.now());
    this.persistTimer = setTimeout(() => this.persistNow(), wait);
  }

  private persistNow(): void {
    this.persistTimer = undefined;
    if (this.ended) return;
    this.dirty = false;
    this.lastPersistAt = performance.now();
    this.persisting = this.options
      .persist({ stdout: this.text.stdout, stderr: this.text.stderr })
      .catch((error) => {
        this.dirty = true;
        this.logger.warn("writing a run's text so far failed; retried", {
          process: this.options.processId,
          error: messageOf(error),
        });
      })
      .finally(() => {
        this.persisting = null;
        if (this.dirty && !this.ended) this.schedulePersist();
      });
  }
}

/** Sends notifications in order, in one statement (one transaction: delivered together and in this order). */
async function sendFrames(db: Queryable, notifications: [string, string][]): Promise<void> {
  await db.query(
    "SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS f(c, p, i) ORDER BY i",
    [notifications.map(([channel]) => channel), notifications.map(([, payload]) => payload)],
  );
}

function runEnd(processId: number, executionId: number): string {
  return JSON.stringify({ p: processId, r: executionId });
}

/**
 * The end frame of a run whose host is gone, sent by whoever ended it (the
 * lease reaper, in its transaction), so that readers stop waiting. The
 * frame counter is out of the publisher's range, so it is never a duplicate.
 */
export async function sendRunEnded(db: Queryable, processId: number, executionId: number): Promise<void> {
  await sendFrames(db, [
    [runChannel(processId), JSON.stringify({ r: executionId, n: -1, end: true })],
    [RUN_ENDS_CHANNEL, runEnd(processId, executionId)],
  ]);
}

/** A process row as a reader needs it. */
export interface RunSnapshot {
  /** The process's current (latest) execution. */
  executionId: number;
  stdout: string;
  stderr: string;
  /** Whether that execution has ended (its final text is in the row). */
  ended: boolean;
}

export interface FollowRunOptions {
  listener: NotificationListener;
  processId: number;
  /** Reads the process row (see the file comment for what the executing host keeps there). */
  read(): Promise<RunSnapshot>;
  /** New text of a stream, in order and exactly once, and the run's events. */
  onEvent(event: FollowEvent): void;
  /** How long to wait before reading again a row that is behind a frame (the writer's flush interval). */
  retryMs?: number;
  /**
   * Read the row again every `retryMs` until a frame of each stream came (see the file comment): for readers that
   * show the text; one that only waits for the end needs none.
   */
  catchUp?: boolean;
  logger?: Logger;
}

export interface FollowedRun {
  /** The row's text when following started; `onEvent` delivers what comes after. */
  stdout: string;
  stderr: string;
  /** The final row, once the run has ended (at once if it already had). */
  done: Promise<RunSnapshot>;
  /** Stops following (the reader went away). */
  close(): Promise<void>;
}

type Work = { frame: Frame } | { gap: true };

/** Most catch-up reads of a reader: four flush intervals, twice what text written before it listened needs. */
const CATCH_UP_READS = 4;

/** Follows the process's current run from any host (see the file comment for the splice). */
export async function followRun(options: FollowRunOptions): Promise<FollowedRun> {
  const logger = options.logger ?? silentLogger;
  const retryMs = options.retryMs ?? DEFAULT_FLUSH_INTERVAL_MS;
  const backlog: Work[] = [];
  let closed = false;
  let snapshotRead = false;
  const text = { stdout: "", stderr: "" };
  let executionId = -1;
  const parts = new Map<number, string[]>();
  let resolveDone!: (snapshot: RunSnapshot) => void;
  const done = new Promise<RunSnapshot>((resolve) => {
    resolveDone = resolve;
  });

  const enqueue = (work: Work) => {
    if (closed) return;
    backlog.push(work);
    if (snapshotRead) pump();
  };
  let pumping = false;
  /** Handles the backlog in order, one frame at a time (a gap waits for the row before later frames apply). */
  const pump = () => {
    if (pumping) return;
    pumping = true;
    void (async () => {
      try {
        while (backlog.length > 0 && !closed) {
          const work = backlog.shift()!;
          try {
            await handle(work);
          } catch (error) {
            logger.warn("following a run failed on a frame; reading the database again", { error: messageOf(error) });
            await options
              .read()
              .then(adopt)
              .catch(() => undefined);
          }
        }
      } finally {
        pumping = false;
      }
    })();
  };

  const subscription: ListenSubscription = await options.listener.listen(runChannel(options.processId), (payload) => {
    try {
      enqueue({ frame: JSON.parse(payload) as Frame });
    } catch {
      logger.warn("an unreadable run frame was dropped", { process: options.processId });
    }
  });
  const offGap = options.listener.onGap(() => enqueue({ gap: true }));
  const framed = new Set<StreamName>();
  let catchUpTimer: NodeJS.Timeout | undefined;

  const close = async () => {
    if (closed) return;
    closed = true;
    clearInterval(catchUpTimer);
    offGap();
    await subscription.close();
  };

  const finish = async (snapshot: RunSnapshot) => {
    await close();
    resolveDone(snapshot);
  };

  /** Takes what the row has beyond the text so far (the row is a prefix of the stream, or the final text). */
  const adopt = async (snapshot: RunSnapshot): Promise<boolean> => {
    for (const stream of ["stdout", "stderr"] as const) {
      const row = snapshot[stream];
      if (row.length > text[stream].length && row.startsWith(text[stream])) {
        const added = row.slice(text[stream].length);
        text[stream] = row;
        options.onEvent({ type: stream, text: added });
      }
    }
    const ended = snapshot.ended || snapshot.executionId !== executionId;
    if (ended) await finish(snapshot);
    return ended;
  };

  const handle = async (work: Work) => {
    if ("gap" in work) {
      await adopt(await options.read());
      return;
    }
    const { frame } = work;
    if (frame.r !== executionId) return;
    if ("end" in frame) {
      await adopt(await options.read());
      return;
    }
    if ("e" in frame) {
      options.onEvent(frame.e);
      return;
    }
    if ("m" in frame) {
      const [index, count] = frame.m;
      const first = frame.n - index;
      const collected = parts.get(first) ?? [];
      // Parts arrive in order; a missing first part (joined mid-event, or lost) drops the event.
      if (collected.length !== index) {
        parts.delete(first);
        return;
      }
      collected.push(frame.j);
      if (collected.length < count) parts.set(first, collected);
      else {
        parts.delete(first);
        options.onEvent(JSON.parse(collected.join("")) as RunEvent);
      }
      return;
    }
    const stream = frame.t;
    framed.add(stream);
    if (framed.size === 2) clearInterval(catchUpTimer);
    while (frame.o > text[stream].length) {
      // A gap: the row will have it within a flush interval.
      if (await adopt(await options.read())) return;
      if (frame.o > text[stream].length) await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
    const have = text[stream].length;
    if (frame.o + frame.x.length <= have) return;
    const added = frame.x.slice(have - frame.o);
    text[stream] += added;
    options.onEvent({ type: stream, text: added });
  };

  let first: RunSnapshot;
  try {
    first = await options.read();
  } catch (error) {
    await close();
    throw error;
  }
  executionId = first.executionId;
  text.stdout = first.stdout;
  text.stderr = first.stderr;
  snapshotRead = true;
  if (first.ended) await finish(first);
  else {
    pump();
    if (options.catchUp) {
      let reads = 0;
      catchUpTimer = setInterval(() => {
        if (++reads >= CATCH_UP_READS) clearInterval(catchUpTimer);
        if (backlog.length === 0) enqueue({ gap: true });
      }, retryMs);
      catchUpTimer.unref();
    }
  }
  return { stdout: first.stdout, stderr: first.stderr, done, close };
}

/**
 * Waiting for runs to end without following them: one LISTEN per host on
 * `RUN_ENDS_CHANNEL`, and per waiter one read of the row (after listening,
 * so an end in between is not missed). After a gap in the listener's
 * connection every waiter reads its row again.
 */
export class RunEnds {
  private readonly waiters = new Map<number, Set<EndWaiter>>();
  private subscription: ListenSubscription | null = null;
  private offGap: (() => void) | null = null;

  constructor(
    private readonly listener: NotificationListener,
    /** The process's current run and whether it ended. */
    private readonly read: (processId: number) => Promise<{ executionId: number; ended: boolean }>,
    private readonly logger: Logger = silentLogger,
  ) {}

  async start(): Promise<void> {
    if (this.subscription) return;
    this.offGap = this.listener.onGap(() => {
      for (const [processId, waiters] of this.waiters) for (const waiter of waiters) void this.check(processId, waiter);
    });
    this.subscription = await this.listener.listen(RUN_ENDS_CHANNEL, (payload) => this.receive(payload));
  }

  async stop(): Promise<void> {
    this.offGap?.();
    this.offGap = null;
    await this.subscription?.close();
    this.subscription = null;
    // Whoever still waits is answered: the host is stopping, and the row says what there is.
    for (const waiters of this.waiters.values()) for (const waiter of waiters) waiter.resolve();
    this.waiters.clear();
  }

  /** Resolves once the process's current run has ended (at once if it has), or when `signal` aborts. */
  async wait(processId: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    let resolve!: () => void;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    const waiter: EndWaiter = { executionId: null, endedUpTo: -1, resolve };
    const set = this.waiters.get(processId) ?? new Set();
    this.waiters.set(processId, set.add(waiter));
    const onAbort = () => resolve();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await this.check(processId, waiter);
      await done;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(processId) === set) this.waiters.delete(processId);
    }
  }

  private async check(processId: number, waiter: EndWaiter): Promise<void> {
    try {
      const snapshot = await this.read(processId);
      waiter.executionId = snapshot.executionId;
      if (snapshot.ended || waiter.endedUpTo >= snapshot.executionId) waiter.resolve();
    } catch (error) {
      this.logger.warn("reading a run's end failed; its waiter stops waiting", {
        process: processId,
        error: messageOf(error),
      });
      waiter.resolve();
    }
  }

  private receive(payload: string): void {
    let end: { p: number; r: number };
    try {
      end = JSON.parse(payload) as { p: number; r: number };
    } catch {
      return;
    }
    for (const waiter of this.waiters.get(end.p) ?? []) {
      waiter.endedUpTo = Math.max(waiter.endedUpTo, end.r);
      if (waiter.executionId !== null && end.r >= waiter.executionId) waiter.resolve();
    }
  }
}

interface EndWaiter {
  /** The run it waits for, once its row was read. */
  executionId: number | null;
  /** The latest run whose end arrived (before the row was read, it is compared once the row is). */
  endedUpTo: number;
  resolve(): void;
}
