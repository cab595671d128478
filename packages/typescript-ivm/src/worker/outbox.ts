import type { FromWorker } from "../ipc.js";

type Coalescible = Extract<FromWorker, { type: "stdout" | "stderr" | "output" | "replay" }>;
type Replay = Extract<FromWorker, { type: "replay" }>;

/** How long a coalesced message may wait: short enough for live followers, long enough to batch a tight loop. */
const FLUSH_AFTER_MS = 10;

/**
 * Messages to the host, with floods of stdout, stderr and output coalesced.
 * Every IPC message costs the host CPU, and `cyrnel.output({ n: i })` in a
 * loop is bounded by neither the output nor the log cap: one message per
 * call let one process keep the host busy for as long as it ran.
 *
 * The first such message goes out at once and opens a window of
 * FLUSH_AFTER_MS; what arrives during the window waits, consecutive messages
 * of the same kind for the same execution merged into one (chunks joined,
 * output patches merged — a shallow merge of merges is the same merge), and
 * is sent when it closes. A lone `console.log` or `cyrnel.output` is thus
 * never delayed (a kill right after it must not lose it), a flood costs the
 * host one message per window. Any other message flushes what is pending
 * first, so the host sees everything in the order it was sent.
 *
 * Replay entries (durable runs) are coalesced too, and further: into the
 * execution's replay message already waiting, wherever it is. Entries may
 * reach the host earlier than they were sent, never later, and that is
 * all their rule asks (recorded before what the program did after reading
 * them); a loop of `console.log(Date.now())` then still costs a message or
 * two per window rather than two per line.
 */
export class Outbox {
  private readonly pending: Coalescible[] = [];
  /** The replay message of each execution among `pending`, which later entries join. */
  private readonly pendingReplays = new Map<number, Replay>();
  /** Set while a window is open: coalescible messages wait for it to close. */
  private window: NodeJS.Timeout | undefined;

  constructor(private readonly deliver: (message: FromWorker, afterSent?: () => void) => void) {}

  send(message: FromWorker, afterSent?: () => void): void {
    if (afterSent === undefined && isCoalescible(message)) {
      this.queue(message);
      return;
    }
    this.flush();
    this.deliver(message, afterSent);
  }

  /** Sends everything pending now, in order. */
  flush(): void {
    this.pendingReplays.clear();
    for (const message of this.pending.splice(0)) this.deliver(message);
  }

  private queue(message: Coalescible): void {
    if (this.window === undefined) {
      this.deliver(message);
      this.openWindow();
      return;
    }
    if (message.type === "replay") {
      const waiting = this.pendingReplays.get(message.executionId);
      if (waiting !== undefined) {
        for (const entry of message.entries) waiting.entries.push(entry);
        return;
      }
      const copy = { ...message, entries: [...message.entries] };
      this.pendingReplays.set(message.executionId, copy);
      this.pending.push(copy);
      return;
    }
    const last = this.pending.at(-1);
    if (last?.type === message.type && last.executionId === message.executionId) {
      if (last.type === "output") Object.assign(last.patch, (message as typeof last).patch);
      else last.chunk += (message as typeof last).chunk;
    } else {
      // A copy: merging into it later must not touch what the caller handed over.
      this.pending.push(message.type === "output" ? { ...message, patch: { ...message.patch } } : { ...message });
    }
  }

  /** At its end, sends what waited and keeps throttling while messages keep coming. */
  private openWindow(): void {
    this.window = setTimeout(() => {
      this.window = undefined;
      if (this.pending.length === 0) return;
      this.flush();
      this.openWindow();
    }, FLUSH_AFTER_MS);
  }
}

function isCoalescible(message: FromWorker): message is Coalescible {
  return (
    message.type === "stdout" || message.type === "stderr" || message.type === "output" || message.type === "replay"
  );
}
