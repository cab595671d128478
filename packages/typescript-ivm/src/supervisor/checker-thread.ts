import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { endThread, type TypesOptions } from "@cyrnel/sdk";
import type { TypeErrorLine } from "../checker/code-file.js";
import type { FromChecker, RenderedService, RenderRequest, RenderThreadData, ToChecker } from "../checker/protocol.js";

/** A thread entry of the package's build output (also when this module runs from TypeScript sources, under vitest). */
function threadEntry(name: string): string {
  const here = import.meta.url;
  return fileURLToPath(
    here.endsWith(".ts") ? new URL(`../../dist/checker/${name}.js`, here) : new URL(`../checker/${name}.js`, here),
  );
}

/** How one request to the checker thread ended. */
export type CheckerAnswer =
  /** `errors`: one list per program of a `check` (none for a `declare`). */
  | { ok: true; errors: TypeErrorLine[][] }
  | {
      ok: false;
      /**
       * `timeout`: past its budget (the thread was ended); `memory`: the
       * thread reached its heap limit; `failed`: the compiler threw;
       * `crashed`: the thread ended otherwise; `unavailable`: no thread
       * could be started.
       */
      reason: "timeout" | "memory" | "failed" | "crashed" | "unavailable";
      message: string;
    };

/** How long a new thread may take to load the compiler and the standard library. */
const START_TIMEOUT_MS = 60_000;
/** Threads that fail to start in a row before the checker is reported unavailable. */
const MAX_START_FAILURES = 3;

interface Pending {
  job: number;
  resolve(answer: CheckerAnswer): void;
  timer: NodeJS.Timeout;
}

/**
 * The type checker's thread, seen from the host process: a `worker_threads`
 * Worker with a heap limit of its own, restarted whenever it dies or is
 * ended. Requests are answered one at a time, each within a budget: past it
 * the thread is terminated (that stops the compiler wherever it is) and a
 * new one starts for the next request. What the thread has parsed is lost
 * with it, so `declared` (which service declarations it holds) is cleared.
 */
export class CheckerThread {
  /** Which declarations (by object) the current thread has parsed, by service id. */
  readonly declared = new Map<string, object>();
  private worker: Worker | null = null;
  private started: Promise<string | null> | null = null;
  private pending: Pending | null = null;
  private nextJob = 1;
  private startFailures = 0;
  private unavailable: string | null = null;
  private closed = false;

  constructor(private readonly memoryMb: number) {}

  /** Whether a thread is running or starting (not one that ended, nor never started). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Starts the thread ahead of the first request (loading the compiler takes a while); resolves once it is ready or could not start. */
  async warm(): Promise<void> {
    await this.start();
  }

  /** Sends one message and waits for its answer, at most `budgetMs`. One at a time: the caller waits for each answer. */
  async request(message: DistributiveOmit<ToChecker, "job">, budgetMs: number): Promise<CheckerAnswer> {
    const startError = await this.start();
    const worker = this.worker;
    if (startError !== null || worker === null) {
      return { ok: false, reason: "unavailable", message: startError ?? "the type checker is not running" };
    }
    const job = this.nextJob++;
    return new Promise<CheckerAnswer>((resolve) => {
      const timer = setTimeout(() => {
        this.settle({ ok: false, reason: "timeout", message: `no answer within ${budgetMs} ms` });
        this.stop(worker);
      }, budgetMs);
      this.pending = { job, resolve, timer };
      worker.postMessage({ ...message, job } as ToChecker);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.settle({ ok: false, reason: "unavailable", message: "the environment was torn down" });
    if (worker === null) return;
    this.reset();
    // Asked to close rather than terminated: a thread ended while V8 still compiles its code can abort the host.
    await endThread(worker);
  }

  /** The running thread, started if needed; resolves to why it cannot start, or null. */
  private start(): Promise<string | null> {
    if (this.closed) return Promise.resolve("the environment was torn down");
    if (this.unavailable !== null) return Promise.resolve(this.unavailable);
    if (this.started !== null) return this.started;
    const worker = new Worker(threadEntry("main"), {
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
      stdout: true,
      stderr: true,
    });
    // The host's event loop is kept alive by the executions waiting for a check, not by this thread.
    worker.unref();
    drainOutput(worker);
    this.worker = worker;
    this.declared.clear();
    let lastError: Error | null = null;
    const started = new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => {
        resolve(`the type checker did not start within ${START_TIMEOUT_MS} ms`);
        this.stop(worker);
      }, START_TIMEOUT_MS);
      worker.on("message", (message: FromChecker) => {
        if (message.type === "ready") {
          clearTimeout(timer);
          this.startFailures = 0;
          resolve(null);
          return;
        }
        if (this.pending?.job !== message.job) return;
        this.settle(
          message.type === "done"
            ? { ok: true, errors: message.errors }
            : { ok: false, reason: "failed", message: message.message },
        );
      });
      worker.on("error", (error) => {
        lastError = error;
      });
      worker.once("exit", () => {
        clearTimeout(timer);
        const outOfMemory = (lastError as { code?: string } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY";
        const why = lastError?.message ?? "the type checker thread ended";
        resolve(why);
        this.settle(
          outOfMemory ? { ok: false, reason: "memory", message: why } : { ok: false, reason: "crashed", message: why },
        );
        if (this.worker === worker) this.reset();
      });
    });
    this.started = started.then((error) => {
      if (error !== null) {
        if (this.worker === worker) this.reset();
        if (++this.startFailures >= MAX_START_FAILURES) this.unavailable = error;
      }
      return error;
    });
    return this.started;
  }

  private settle(answer: CheckerAnswer): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  /** Ends the thread; the next request starts a new one. */
  private stop(worker: Worker): void {
    if (this.worker === worker) this.reset();
    void worker.terminate();
  }

  private reset(): void {
    this.worker = null;
    this.started = null;
    this.declared.clear();
  }
}

/** What a thread prints is dropped rather than mixed into the host's log (the compiler prints nothing on its own). */
function drainOutput(worker: Worker): void {
  worker.stdout.resume();
  worker.stderr.resume();
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Tools JSON up to this many characters is rendered on the calling thread
 * (a few milliseconds: the demo weather API's is ~3 K, Petstore's ~40 K);
 * more goes to a render thread (loading one takes ~70 ms, Stripe's 177 MB
 * take seconds).
 */
export const MAX_INLINE_RENDER_CHARS = 256 * 1024;

/** Characters of tools' JSON, whole or in parts. */
export function jsonLength(json: string | readonly string[]): number {
  if (typeof json === "string") return json.length;
  let length = 0;
  for (const part of json) length += part.length;
  return length;
}

/** Longest a render may take (Stripe's 452 tools take a few seconds on a loaded 2-core machine). */
const RENDER_TIMEOUT_MS = 120_000;
/** Heap of a render thread: a large API's schemas parse to several hundred megabytes (Stripe's: ~300 MB). */
const RENDER_MEMORY_MB = 2048;

/**
 * One service's declarations from its tools' JSON, in a thread of its own
 * that ends with the render (see checker/render.ts). Rejects with the
 * reason when the render fails, runs out of memory or takes too long.
 */
export function renderInThread(request: RenderRequest, signal: AbortSignal): Promise<RenderedService> {
  return inRenderThread(
    request.toolsJson,
    (parts) => ({ kind: "service", serviceId: request.serviceId, parts, background: request.background }),
    signal,
  );
}

/**
 * `generateTypesFromJson`: the declaration file (or its index) of the tools
 * in the JSON, made in a render thread as {@link renderInThread} makes a
 * service's declarations. Parsing every tool of five large APIs and
 * rendering them took the host's event loop 3–5 s.
 */
export function typesInThread(
  toolsJson: string | readonly string[],
  options: TypesOptions,
  signal: AbortSignal,
): Promise<string> {
  return inRenderThread(toolsJson, (parts) => ({ kind: "types", options, parts }), signal);
}

async function inRenderThread<Answer>(
  toolsJson: string | readonly string[],
  dataOf: (parts: Uint8Array[]) => RenderThreadData,
  signal: AbortSignal,
): Promise<Answer> {
  const parts = await utf8Parts(toolsJson);
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error("the environment was torn down"));
      return;
    }
    const worker = new Worker(threadEntry("render"), {
      workerData: dataOf(parts),
      // Moved, not copied: the thread gets the bytes without the host's event loop copying them again.
      transferList: parts.map((part) => part.buffer as ArrayBuffer),
      resourceLimits: { maxOldGenerationSizeMb: RENDER_MEMORY_MB },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    drainOutput(worker);
    let failure: Error | null = null;
    // A render busy past its time, or at a teardown, can only be terminated; one that answered ends on its own.
    const timer = setTimeout(() => {
      failure = new Error(`rendering the declarations took longer than ${RENDER_TIMEOUT_MS} ms`);
      void worker.terminate();
    }, RENDER_TIMEOUT_MS);
    const abort = () => {
      failure = new Error("the environment was torn down");
      void worker.terminate();
    };
    signal.addEventListener("abort", abort, { once: true });
    worker.once("message", (answer: Answer) => resolve(answer));
    worker.on("error", (error) => {
      failure ??= error;
    });
    worker.once("exit", () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", abort);
      reject(failure ?? new Error("the render thread ended without an answer"));
    });
  });
}

/** Characters of the tools' JSON encoded per turn of the event loop (a few milliseconds each). */
export const ENCODE_CHARS = 256 * 1024;

/**
 * The tools' JSON as UTF-8, in parts encoded one per turn of the event
 * loop, to be moved to the render thread. Handed over as one string, it was
 * copied by the Worker constructor in one go: 0.8 s of the host's event loop
 * for Stripe's 177 MB, during which the host answered nothing.
 */
export async function utf8Parts(json: string | readonly string[]): Promise<Uint8Array[]> {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  /** Text not encoded yet: less than a part's worth, but for a high surrogate held back from the last part. */
  let pending = "";
  const encode = (last: boolean) => {
    let end = pending.length;
    // A surrogate pair is never split between two parts (each half alone would be encoded as U+FFFD).
    const code = pending.charCodeAt(end - 1);
    if (!last && code >= 0xd800 && code <= 0xdbff) end--;
    parts.push(encoder.encode(pending.slice(0, end)));
    pending = pending.slice(end);
  };
  for (const text of typeof json === "string" ? [json] : json) {
    for (let start = 0; start < text.length; ) {
      const end = Math.min(text.length, start + ENCODE_CHARS - pending.length);
      pending += text.slice(start, end);
      start = end;
      if (pending.length < ENCODE_CHARS) continue;
      encode(false);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (pending !== "" || parts.length === 0) encode(true);
  return parts;
}
