import { Worker } from "node:worker_threads";
import { endThread, type ServiceDefinition } from "@cyrnel/sdk";
import { MAX_VALUES } from "./limits.js";

/**
 * `generateDefinition` off the caller's thread. Parsing and validating a
 * large document is seconds of synchronous work (GitHub's REST API: ~2 s),
 * and a hostile one is bounded only by the limits of `limits.ts`: on the
 * host's event loop either would stall every other request, `/health`
 * included. So the pure pipeline runs in a worker thread, one text at a
 * time, under a deadline: a text still running at its deadline has its
 * worker terminated (that is the only way to stop synchronous code) and
 * fails with an error naming the limit; the next text gets a new worker.
 *
 * Starting a worker means loading swagger-parser and ajv into a new
 * isolate (~0.4 s of CPU), so one is kept: between texts, and — while the
 * adapter is set up — as a standby, started ahead of the first text. A
 * worker that processed texts holds their garbage, so after a minute
 * without work it is replaced by a fresh one (or just ended when the
 * adapter is not set up). Idle workers are unref'd: they never keep a
 * process alive.
 */

export interface DefinitionRequest {
  id: number;
  /**
   * The text as UTF-8, its buffer transferred rather than copied: cloning a
   * 13 MB string into the worker costs the caller's thread ~10× more than
   * encoding it.
   */
  bytes: Uint8Array;
  /** See {@link DefinitionOptions.maxValues}. */
  maxValues: number;
}

export type DefinitionReply =
  | { id: number; ok: true; definition: ServiceDefinition }
  | { id: number; ok: false; message: string };

/** The host's own hook timeout defaults to 30 s; this one ends first, with the clearer error. */
export const DEFAULT_DEFINITION_TIMEOUT_MS = 25_000;
/** Old-generation heap of the worker: GitHub's REST API (13 MB of JSON) stays under 100 MB. */
export const DEFAULT_DEFINITION_HEAP_MB = 1024;

/** Bounds on processing one definition text; every one can be raised in the module's config. */
export interface DefinitionOptions {
  /** Deadline for one text, default {@link DEFAULT_DEFINITION_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Old-generation heap of the worker, default {@link DEFAULT_DEFINITION_HEAP_MB}. */
  heapMb?: number;
  /** Most values once YAML aliases and `$ref`s are expanded, default `MAX_VALUES` of `limits.ts`. */
  maxValues?: number;
}
const IDLE_MS = 60_000;

interface Job {
  id: number;
  text: string;
  resolve(definition: ServiceDefinition): void;
  reject(error: Error): void;
}

/** The compiled worker entry; under vitest this module runs from TypeScript, the worker from the build output. */
function workerEntry(): URL {
  const here = import.meta.url;
  return here.endsWith(".ts") ? new URL("../dist/definition-worker.js", here) : new URL("./definition-worker.js", here);
}

export class DefinitionThread {
  private worker: Worker | null = null;
  /** Whether the current worker has processed a text (and holds its garbage). */
  private used = false;
  private readonly queue: Job[] = [];
  private running: (Job & { timer: NodeJS.Timeout }) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private standby = false;
  private nextId = 1;

  private readonly timeoutMs: number;
  private readonly heapMb: number;
  private readonly maxValues: number;

  constructor(options: DefinitionOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DEFINITION_TIMEOUT_MS;
    this.heapMb = options.heapMb ?? DEFAULT_DEFINITION_HEAP_MB;
    this.maxValues = options.maxValues ?? MAX_VALUES;
  }

  generate(text: string): Promise<ServiceDefinition> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, text, resolve, reject });
      this.pump();
    });
  }

  /** Keeps a started worker ready for the next text, until {@link stop}. */
  start(): void {
    this.standby = true;
    if (!this.worker) this.spawn();
  }

  /** Ends the worker and the standby; texts still waiting or running fail. */
  async stop(): Promise<void> {
    this.standby = false;
    const pending: Job[] = this.queue.splice(0);
    const busy = this.running !== null;
    if (this.running) {
      clearTimeout(this.running.timer);
      pending.unshift(this.running);
      this.running = null;
    }
    await this.discard(busy ? "terminate" : "close");
    for (const job of pending)
      job.reject(new Error("the definition was not processed: the openapi adapter was stopped"));
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    this.clearIdleTimer();
    const worker = this.worker ?? this.spawn();
    const timer = setTimeout(() => {
      void this.discard("terminate");
      this.finish(job.id);
      job.reject(
        new Error(
          `Invalid OpenAPI document: it took longer than ${this.timeoutMs} ms to process (the limit); ` +
            "split it into smaller documents",
        ),
      );
    }, this.timeoutMs);
    this.running = { ...job, timer };
    this.used = true;
    worker.ref();
    const bytes = new TextEncoder().encode(job.text);
    worker.postMessage({ id: job.id, bytes, maxValues: this.maxValues } satisfies DefinitionRequest, [bytes.buffer]);
  }

  private spawn(): Worker {
    // No inherited execArgv: the process's flags (`--input-type`, `--no-node-snapshot`, …) are not the worker's business.
    const worker = new Worker(workerEntry(), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
    worker.unref();
    worker.on("message", (reply: DefinitionReply) => {
      const job = this.finish(reply.id);
      if (!job) return;
      if (reply.ok) job.resolve(reply.definition);
      else job.reject(new Error(reply.message));
    });
    // A worker that dies (out of memory, a crash) fails the text it was running.
    worker.on("error", (error) => this.lost(worker, error));
    worker.on("exit", (code) => this.lost(worker, new Error(`the worker exited with code ${code}`)));
    this.worker = worker;
    this.used = false;
    return worker;
  }

  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const job = this.running;
    // An idle worker that died is not replaced here (one that cannot start would be restarted forever); the next text starts one.
    if (!job) return;
    this.finish(job.id);
    const reason =
      (error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY"
        ? `it needs more than ${this.heapMb} MB of memory to process (the limit)`
        : `processing it failed: ${error.message}`;
    job.reject(new Error(`Invalid OpenAPI document: ${reason}`));
  }

  /** Clears the running job `id` and starts the next one; returns the job, or null if `id` is not running. */
  private finish(id: number): Job | null {
    const job = this.running;
    if (!job || job.id !== id) return null;
    clearTimeout(job.timer);
    this.running = null;
    if (this.queue.length > 0) this.pump();
    else this.afterIdle();
    return job;
  }

  /** Nothing to do: unref the worker, recycle a used one after a while, keep (or restart) the standby. */
  private afterIdle(): void {
    if (this.running) return;
    if (!this.worker) {
      if (this.standby) this.spawn();
      return;
    }
    this.worker.unref();
    if (!this.used) return;
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => {
      void this.discard("close").then(() => this.afterIdle());
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /**
   * Drops the worker. An idle one is asked to close (`endThread`): terminating a thread while V8 still compiles its
   * code in the background can abort the host, and a thread that has just processed a text is the one exposed. A
   * busy one (a text past its time limit, a stop mid-text) can only be terminated.
   */
  private async discard(how: "close" | "terminate"): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.clearIdleTimer();
    if (worker === null) return;
    if (how === "close") await endThread(worker);
    else await worker.terminate();
  }
}
