import type { ExecutionExitState, Logger } from "@cyrnel/sdk";
import type ivm from "isolated-vm";
import type { RunRequest, WorkerOptions } from "../ipc.js";
import { isolateFailed, memoryCatastrophe } from "../messages.js";
import { transpile } from "../transpile.js";
import { Execution, type ExecutionSettings, executionSettings } from "./execution.js";
import type { RunReporter } from "./host-bridge.js";
import { type FreshIsolate, WarmIsolates } from "./warm-isolates.js";

/**
 * The worker's side of scheduling. The host process decides how many
 * executions the sandbox holds (it owns admission and the queue); here
 * every run that arrives starts at once in a fresh isolate of its own,
 * which is disposed when the run ends.
 */
export class WorkerScheduler {
  private readonly isolates: WarmIsolates;
  private readonly active = new Map<number, Execution>();
  private readonly byIsolate = new Map<ivm.Isolate, Execution>();
  /**
   * Isolates V8 lost control of. Their thread is parked for good inside
   * isolated-vm, so they are never disposed (that would wait on them) but
   * kept until the process ends.
   */
  private readonly lost = new Set<ivm.Isolate>();
  private readonly settings: ExecutionSettings;

  constructor(
    options: WorkerOptions,
    private readonly reporter: RunReporter,
    private readonly logger: Logger,
    private readonly reportCatastrophe: (executionId: number | null, message: string) => void,
  ) {
    this.settings = executionSettings(options);
    this.isolates = new WarmIsolates(
      options.warmIsolates,
      options.memoryLimitMb,
      this.settings.preludeLimitsJson,
      (isolate, message) => this.onCatastrophe(isolate, message),
    );
  }

  /** Executions that have not ended yet. */
  get live(): number {
    return this.active.size;
  }

  /** Runs one execution; the promise resolves with its exit state after any `setError`. */
  run(request: RunRequest): Promise<ExecutionExitState> {
    const transpiled = transpile(request.source);
    const execution = new Execution(
      { ...request, code: transpiled.ok ? transpiled.code : "" },
      this.settings,
      this.reporter,
      this.logger,
    );
    this.active.set(request.executionId, execution);
    void execution.done.then(() => this.active.delete(request.executionId));
    if (!transpiled.ok) {
      execution.fail(transpiled.error);
      return execution.done;
    }
    let fresh: FreshIsolate;
    try {
      fresh = this.isolates.take();
    } catch (error) {
      execution.fail(isolateFailed(error instanceof Error ? error.message : String(error)));
      return execution.done;
    }
    this.byIsolate.set(fresh.isolate, execution);
    execution.start(fresh, (isolate) => {
      this.byIsolate.delete(isolate);
      if (!this.lost.has(isolate)) this.isolates.dispose(isolate);
    });
    return execution.done;
  }

  kill(executionId: number): void {
    this.active.get(executionId)?.cancel();
  }

  /** Stops or restarts the clock of a running execution's deadline (no-op for one that is not running). */
  deadline(executionId: number, change: "pause" | "resume"): void {
    const execution = this.active.get(executionId);
    if (change === "pause") execution?.pauseDeadline();
    else execution?.resumeDeadline();
  }

  /**
   * V8 lost control of `isolate` (an allocation past its heap limit that
   * isolated-vm could not turn into a memory-limit error). Its execution
   * fails; every other one goes on. The host is told first, so it sends
   * new executions to a new sandbox process and ends this one once its
   * executions are over; no more spares are made here meanwhile.
   */
  private onCatastrophe(isolate: ivm.Isolate, message: string): void {
    this.lost.add(isolate);
    this.isolates.close();
    const execution = this.byIsolate.get(isolate);
    this.reportCatastrophe(execution?.executionId ?? null, message);
    execution?.fail(memoryCatastrophe(this.settings.memoryLimitMb));
  }

  /**
   * The running execution whose isolate has the largest heap (V8 heap plus
   * memory allocated outside it, such as array buffers), among the isolates
   * that answer within `waitMs`.
   */
  async largestHeap(waitMs: number): Promise<{ execution: Execution; bytes: number } | null> {
    const deadline = new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs));
    const sizes = await Promise.all(
      [...this.byIsolate].map(async ([isolate, execution]) => {
        const heap = await Promise.race([isolate.getHeapStatistics().catch(() => null), deadline]);
        return heap === null ? null : { execution, bytes: heap.total_heap_size + heap.externally_allocated_size };
      }),
    );
    let largest: { execution: Execution; bytes: number } | null = null;
    for (const size of sizes) {
      if (size?.execution.isRunning() && size.bytes > (largest?.bytes ?? -1)) largest = size;
    }
    return largest;
  }
}
