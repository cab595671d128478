/** The processes store: processes and their executions (runs). */
import type { ExecutionExitState } from "@cyrnel/sdk";
import type { TraceCarrier } from "../../telemetry/tracing.js";

/** A process as stored: its code and the results of its latest run. */
export interface ProcessRow {
  id: number;
  ref: string | null;
  state: ProcessState;
  exitState: ExecutionExitState | null;
  error: string | null;
  /** null = no limit. */
  timeoutMs: number | null;
  code: string;
  /** Merged `cyrnel.output(...)` of the latest run; null before a run ends. */
  output: Record<string, unknown> | null;
  stdout: string;
  stderr: string;
  /** Number of runs so far; a run needs `force` once results exist. */
  runs: number;
  /** The stored API key that created the process; null for CYRNEL_API_KEY or a host without authentication. */
  keyId: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}
export type ProcessState = "queued" | "running" | "suspended" | "idle" | "terminating";

export interface ProcessFilter {
  /** Only processes created with this stored key. */
  keyId?: string;
  state?: ProcessState;
  exitState?: ExecutionExitState;
  ref?: string;
  /** Only processes whose ref starts with this text (case-sensitively, wildcards taken as themselves). */
  refPrefix?: string;
  /** Only processes created at or after this time (ISO, as the host writes it). */
  since?: string;
  /** Only processes created before this time. */
  until?: string;
  /** `newest` (the default) lists by id downwards from `before`; `oldest` upwards from `after`. */
  order?: "newest" | "oldest";
  before?: number;
  after?: number;
  limit: number;
}

export interface NewProcess {
  code: string;
  ref: string | null;
  timeoutMs: number | null;
  keyId: string | null;
}

/** One run of a process, as the process queue carries it. */
export interface RunIds {
  processId: number;
  executionId: number;
}

/** How a run is written when it goes through the process queue (PostgreSQL; see cluster/process-cluster.ts). */
export interface QueuedRunOptions {
  /** The run's type-check choice, kept on its execution row for the host that runs it (absent: the default). */
  typecheck?: boolean;
  /**
   * The SQL expression that adds the run's job, given SQL expressions of its process and execution ids: the store
   * evaluates it in the statement that writes the run's rows, so the rows and the job commit together (or not at
   * all), in one round trip.
   */
  addJob(processId: string, executionId: string): string;
  /** The trace context the run continues, for the host that runs it (telemetry/tracing.ts); null or absent: none. */
  trace?: TraceCarrier | null;
}

export interface ProcessResult {
  exitState: ExecutionExitState;
  error: string | null;
  output: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

/**
 * Every statement of a process's life runs for every process: the
 * implementations prepare them once. Ids of processes and executions are
 * never reused, even after deletes.
 */
export interface ProcessStore {
  /** A new process together with its first run (queued); one transaction. */
  /** With `queued`, the new process row comes back too (`row`): the caller answers it without reading it again. */
  create(values: NewProcess, environment: string, queued?: QueuedRunOptions): Promise<RunIds & { row?: ProcessRow }>;
  get(id: number): Promise<ProcessRow | undefined>;
  /** Newest first; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: ProcessFilter): Promise<ProcessRow[]>;
  /**
   * Starts another run of an existing process: a new execution id, previous results cleared; one transaction.
   * With `queued` (many hosts) the process must still be idle when the transaction writes it, else `conflict`.
   */
  startRun(processId: number, environment: string, queued?: QueuedRunOptions): Promise<number>;
  setState(processId: number, state: ProcessState): Promise<void>;
  setRunning(processId: number, startedAt: string): Promise<void>;
  /** The process's results and its run's exit state; one transaction. */
  finish(processId: number, executionId: number, result: ProcessResult): Promise<void>;
  delete(id: number): Promise<void>;
  /** How many of the key's processes are not idle (queued, running, suspended, terminating), on any host. */
  countActive(keyId: string): Promise<number>;
  /**
   * Deletes the idle processes that finished before `finishedBefore` (ISO; with `exitState`, only those), with their
   * runs, call records and approvals; one transaction. How many processes went.
   */
  prune(finishedBefore: string, exitState?: ExecutionExitState): Promise<number>;
  /**
   * Startup: anything that was queued, running or suspended when the host stopped did not finish and ends `failed`
   * with `error`, but the processes in `except` (their runs are resumed); how many. `canceled`: only the processes
   * that were being killed (`terminating`) end, `canceled`.
   */
  markInterrupted(error: string, except?: readonly number[], exitState?: "failed" | "canceled"): Promise<number>;
}
