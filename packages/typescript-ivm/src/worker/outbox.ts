import type { FromWorker } from "../ipc.js";

type Coalescible = Extract<FromWorker, { type: "stdout" | "stderr" | "output" }>;

/** How long a coalesced message may wait: short enough for live followers, long enough to batch a tight loop. */
const FLUSH_AFTER_MS = 10;

/**
 * Messages to the host, with a run's stdout, stderr and output coalesced:
 * consecutive messages of the same kind for the same execution become one
 * (chunks joined, output patches merged — a shallow merge of merges is the
 * same merge), sent within FLUSH_AFTER_MS. Every IPC message
 * costs the host CPU, and `cyrnel.output({ n: i })` in a loop is bounded by
 * neither the output nor the log cap: one message per call let one process
 * keep the host busy for as long as it ran. Anything else flushes what is
 * pending first, so the host sees every message in the order it was sent.
 */
export class Outbox {
  private readonly pending: Coalescible[] = [];
  private flushing: NodeJS.Timeout | undefined;

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
    clearTimeout(this.flushing);
    this.flushing = undefined;
    for (const message of this.pending.splice(0)) this.deliver(message);
  }

  private queue(message: Coalescible): void {
    const last = this.pending.at(-1);
    if (last?.type === message.type && last.executionId === message.executionId) {
      if (last.type === "output") Object.assign(last.patch, (message as typeof last).patch);
      else last.chunk += (message as typeof last).chunk;
    } else {
      // A copy: merging into it later must not touch what the caller handed over.
      this.pending.push(message.type === "output" ? { ...message, patch: { ...message.patch } } : { ...message });
    }
    this.flushing ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS);
  }
}

function isCoalescible(message: FromWorker): message is Coalescible {
  return message.type === "stdout" || message.type === "stderr" || message.type === "output";
}
