import type { ExecutionExitState, Logger } from "@cyrnel/sdk";
import type ivm from "isolated-vm";
import type { RunRequest, WorkerOptions } from "../ipc.js";
import { transpile } from "../transpile.js";
import { Execution, type ExecutionSettings, executionSettings } from "./execution.js";
import type { RunReporter } from "./host-bridge.js";
import { type CatastropheHandler, IsolatePool } from "./isolate-pool.js";

/**
 * The worker's side of scheduling. The host process admits at most
 * `poolSize` runs at a time, but a run may arrive a moment before the
 * previous one has handed its isolate back, so runs wait here for one.
 */
export class WorkerScheduler {
  private readonly pool: IsolatePool;
  private readonly waiting: Execution[] = [];
  private readonly active = new Map<number, Execution>();
  private readonly byIsolate = new Map<ivm.Isolate, Execution>();
  private readonly settings: ExecutionSettings;

  constructor(
    options: WorkerOptions,
    private readonly reporter: RunReporter,
    private readonly logger: Logger,
    onCatastrophe: (executionId: number | null, message: string) => void,
  ) {
    this.settings = executionSettings(options);
    const handler: CatastropheHandler = (isolate, message) =>
      onCatastrophe(this.byIsolate.get(isolate)?.executionId ?? null, message);
    this.pool = new IsolatePool(options.poolSize, options.memoryLimitMb, handler);
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
    if (!transpiled.ok) execution.fail(transpiled.error);
    else {
      this.waiting.push(execution);
      this.dispatch();
    }
    return execution.done;
  }

  kill(executionId: number): void {
    const execution = this.active.get(executionId);
    if (execution === undefined) return;
    const index = this.waiting.indexOf(execution);
    if (index !== -1) this.waiting.splice(index, 1);
    execution.cancel();
  }

  private dispatch(): void {
    while (this.waiting.length > 0 && this.pool.idleCount > 0) {
      const execution = this.waiting.shift() as Execution;
      const isolate = this.pool.take() as ivm.Isolate;
      this.byIsolate.set(isolate, execution);
      execution.start(isolate, (returned, reusable) => {
        this.byIsolate.delete(returned);
        this.pool.give(returned, reusable);
        this.dispatch();
      });
    }
  }
}
