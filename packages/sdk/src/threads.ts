/**
 * Ending a module's worker threads without risking the host. `worker.terminate()`
 * stops a thread wherever it is, and Node can then abort the whole process
 * (`NodePlatform::ForIsolate` assertion) when V8 was still compiling the
 * thread's code in the background: a thread that has just done work is the
 * one exposed. A thread that ends on its own, its event loop empty, first
 * waits for those background tasks. So an idle thread is asked to close its
 * port (`THREAD_CLOSE`, handled by `isThreadClose` in the thread), and only a
 * thread that does not end within the grace period (it is busy: a
 * synchronous task past its budget) is terminated.
 */

/**
 * What `endThread` uses of a `worker_threads` Worker (declared here so that the published types need no Node
 * typings).
 */
export interface EndableThread {
  readonly threadId: number;
  postMessage(value: unknown): void;
  terminate(): Promise<number>;
  once(event: "exit", listener: (exitCode: number) => void): unknown;
}

/** What `isThreadClose` uses of the thread's `parentPort`. */
export interface ClosablePort {
  close(): void;
}

/** The message a thread is asked to close with (see `endThread`). */
export const THREAD_CLOSE = Object.freeze({ type: "cyrnel.thread.close" });

/** How long `endThread` waits for a thread to end on its own before it terminates it. */
export const THREAD_CLOSE_GRACE_MS = 2_000;

/**
 * In the thread's message handler, before anything else: when `message` is
 * `THREAD_CLOSE`, closes `port` (the thread then ends once nothing else keeps
 * its event loop alive) and answers true.
 */
export function isThreadClose(message: unknown, port: ClosablePort): boolean {
  if ((message as { type?: unknown } | null)?.type !== THREAD_CLOSE.type) return false;
  port.close();
  return true;
}

/**
 * Ends `worker`: asks it to close (`THREAD_CLOSE`) and waits for it to end,
 * terminating it if it has not within `graceMs`. Resolves with its exit code
 * (0 when it ended on its own, 1 when it was terminated) once it has ended.
 */
export function endThread(worker: EndableThread, graceMs = THREAD_CLOSE_GRACE_MS): Promise<number> {
  return new Promise((resolve) => {
    // `threadId` is -1 once the thread has ended (or never started).
    if (worker.threadId === -1) {
      resolve(1);
      return;
    }
    const timer = setTimeout(() => void worker.terminate(), graceMs);
    worker.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    try {
      worker.postMessage(THREAD_CLOSE);
    } catch {
      void worker.terminate();
    }
  });
}
