import type { ExecutionExitState, Logger } from "@cyrnel/sdk";
import type ivm from "isolated-vm";
import type { RunRequest, WorkerOptions } from "../ipc.js";
import { transpile } from "../transpile.js";
import { Execution, type ExecutionSettings, executionSettings } from "./execution.js";
import type { RunReporter } from "./host-bridge.js";
import { WarmIsolates } from "./warm-isolates.js";

/**
 * The worker's side of scheduling. The host process admits at most
 * `poolSize` runs at a time (it owns the queue); here every run that
 * arrives starts at once in a fresh isolate of its own, which is disposed
 * when the run ends.
 */
export class WorkerScheduler {
  private readonly isolates: WarmIsolates;
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
    this.isolates = new WarmIsolates(options.poolSize, options.memoryLimitMb, (isolate, message) =>
      onCatastrophe(this.byIsolate.get(isolate)?.executionId ?? null, message),
    );
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
    const fresh = this.isolates.take();
    this.byIsolate.set(fresh.isolate, execution);
    execution.start(fresh, (isolate) => {
      this.byIsolate.delete(isolate);
      this.isolates.dispose(isolate);
    });
    return execution.done;
  }

  kill(executionId: number): void {
    this.active.get(executionId)?.cancel();
  }
}
