import { Worker } from "node:worker_threads";
import type { ServiceDefinition } from "@cyrnel/sdk";

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
 * The worker is kept between texts (loading swagger-parser and compiling
 * its schemas costs ~0.5 s), unref'd while idle so it never keeps a
 * process alive, and ended after a minute without work to return its memory.
 */

export interface DefinitionRequest {
  id: number;
  text: string;
}

export type DefinitionReply =
  | { id: number; ok: true; definition: ServiceDefinition }
  | { id: number; ok: false; message: string };

/** The host's own hook timeout defaults to 30 s; this one ends first, with the clearer error. */
export const DEFAULT_DEFINITION_TIMEOUT_MS = 25_000;
/** Old-generation heap of the worker: GitHub's REST API (13 MB of JSON) stays under 100 MB. */
export const DEFAULT_DEFINITION_HEAP_MB = 1024;
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
  private readonly queue: Job[] = [];
  private running: (Job & { timer: NodeJS.Timeout }) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 1;

  constructor(
    private readonly timeoutMs: number = DEFAULT_DEFINITION_TIMEOUT_MS,
    private readonly heapMb: number = DEFAULT_DEFINITION_HEAP_MB,
  ) {}

  generate(text: string): Promise<ServiceDefinition> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, text, resolve, reject });
      this.pump();
    });
  }

  /** Ends the worker; texts still waiting or running fail. */
  async stop(): Promise<void> {
    const pending: Job[] = this.queue.splice(0);
    if (this.running) {
      clearTimeout(this.running.timer);
      pending.unshift(this.running);
      this.running = null;
    }
    await this.discard();
    for (const job of pending)
      job.reject(new Error("the definition was not processed: the openapi adapter was stopped"));
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    const worker = this.ensureWorker();
    const timer = setTimeout(() => {
      void this.discard();
      this.finish(job.id);
      job.reject(
        new Error(
          `Invalid OpenAPI document: it took longer than ${this.timeoutMs} ms to process (the limit); ` +
            "split it into smaller documents",
        ),
      );
    }, this.timeoutMs);
    this.running = { ...job, timer };
    worker.ref();
    worker.postMessage({ id: job.id, text: job.text } satisfies DefinitionRequest);
  }

  private ensureWorker(): Worker {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.worker) return this.worker;
    const worker = new Worker(workerEntry(), {
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
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
    return worker;
  }

  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const job = this.running;
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
    if (this.queue.length > 0) {
      this.pump();
    } else if (this.worker) {
      this.worker.unref();
      this.idleTimer = setTimeout(() => void this.discard(), IDLE_MS);
      this.idleTimer.unref();
    }
    return job;
  }

  private async discard(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    await worker?.terminate();
  }
}
