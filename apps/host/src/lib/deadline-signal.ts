/**
 * A signal that aborts when `parent` does or `ms` after it was made,
 * whichever comes first.
 *
 * Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 the
 * combined signal holds its sources only weakly, and a timeout signal
 * nothing else refers to is garbage-collected before it fires, so the
 * deadline silently never comes (seen as a 50 s MCP wait that lasted until
 * the process ended). Here the timer holds the controller.
 */
export interface DeadlineSignal {
  signal: AbortSignal;
  /** Stops the timer and lets go of `parent`; call it when the work is done. */
  clear(): void;
}

export function deadlineSignal(parent: AbortSignal, ms: number): DeadlineSignal {
  const controller = new AbortController();
  const abort = () => controller.abort(parent.reason);
  if (parent.aborted) abort();
  else parent.addEventListener("abort", abort, { once: true });
  const timer = setTimeout(() => controller.abort(new DOMException(`deadline of ${ms} ms`, "TimeoutError")), ms);
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener("abort", abort);
    },
  };
}
