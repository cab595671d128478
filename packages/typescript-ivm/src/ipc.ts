import type { ExecutionExitState, InvokeInput } from "@cyrnel/sdk";

/**
 * Messages between the host process (supervisor/) and the sandbox process
 * (worker/) over Node's IPC channel (JSON serialisation). Tool results and
 * the service catalog cross as ready-made JSON strings, so nothing the host
 * cannot serialise ever reaches `process.send`, and the worker hands them
 * into the isolate without parsing them again.
 */

/** What the worker needs to build its isolates and enforce per-run limits. */
export interface WorkerOptions {
  /** Fresh isolates the worker keeps ready for executions to come. */
  warmIsolates: number;
  memoryLimitMb: number;
  /** Resident memory the worker may grow to; past it and still growing, it fails its largest isolate. */
  memoryBudgetMb: number;
  maxTimers: number;
  maxPendingToolCalls: number;
  maxLogBytes: number;
  maxOutputBytes: number;
}

/** One execution as the host hands it to the sandbox process. */
export interface RunRequest {
  executionId: number;
  /** The user's TypeScript; the worker transpiles it. */
  source: string;
  /** JSON of the sanitised ServiceCatalog: serialised once by the host, it crosses into the isolate as is. */
  servicesJson: string;
  timeoutMs: number | null;
  /** A resumed durable run: the entries its earlier attempts recorded, in order (see `ExecutionInput.replay`). */
  replay?: string[];
}

/**
 * The options travel as the worker's first command-line argument (JSON), so
 * they are there before any message could be missed.
 */
export type ToWorker =
  | ({ type: "run" } & RunRequest)
  | { type: "kill"; executionId: number }
  /**
   * Stop (`pause`) or restart (`resume`) the clock of a running execution's
   * deadline: the host suspends a run while one of its tool calls waits for
   * an operator's approval.
   */
  | { type: "pauseDeadline" | "resumeDeadline"; executionId: number }
  /** `callId` is unique within the worker; `outcome`: JSON ToolOutcome (see tool-outcome.ts). */
  | { type: "toolResult"; callId: number; outcome: string }
  /** The supervisor's heartbeat: answered with `pong` by a worker whose event loop is turning. */
  | { type: "ping" };

export type FromWorker =
  | { type: "ready" }
  | { type: "pong" }
  | { type: "stdout"; executionId: number; chunk: string }
  | { type: "stderr"; executionId: number; chunk: string }
  | { type: "output"; executionId: number; patch: Record<string, unknown> }
  | { type: "error"; executionId: number; message: string }
  | { type: "invoke"; executionId: number; callId: number; input: InvokeInput }
  /** Entries of the run's replay record; always before the messages of what the program did after them. */
  | { type: "replay"; executionId: number; entries: string[] }
  /**
   * The run waits for nothing but its timers, the first due at `wakeAt` (ms since the epoch): no tool call in
   * flight, nothing running in its isolate (see `EnvironmentBindings.sleeping`). After its replay entries.
   */
  | { type: "sleeping"; executionId: number; wakeAt: number }
  /**
   * The worker cut a stream at `maxLogBytes` and dropped `bytes` of it past that so far (a total: sent when it
   * cuts, and once more before `done` if it dropped more since).
   */
  | { type: "dropped"; executionId: number; stream: "stdout" | "stderr"; bytes: number }
  /** Always after the run's `error` message, if any. */
  | { type: "done"; executionId: number; exit: ExecutionExitState }
  /**
   * The worker's resident memory: sent every 200 ms while it has
   * executions, and once when its last execution has ended. The host admits
   * executions by it and recycles a worker idle above budget.
   */
  | { type: "memory"; rssBytes: number }
  /**
   * V8 lost control of an isolate (an allocation past the heap limit that
   * isolated-vm could not turn into a normal memory-limit error). The
   * isolate's thread is parked forever; the worker fails that execution
   * (its `error` and `done` follow) and goes on with the others.
   */
  | { type: "catastrophic"; executionId: number | null; message: string }
  | { type: "log"; level: "debug" | "info" | "warn" | "error"; message: string; fields?: Record<string, unknown> };
