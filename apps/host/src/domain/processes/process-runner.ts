/**
 * Runs processes on the active environment and implements the
 * EnvironmentBindings it calls back. The environment reports `queued` and
 * `running` and resolves with the exit state; this file owns everything
 * else: ids, `idle`/`terminating`, the timeout backstop, kill semantics,
 * output merging with its caps, persistence, and waking blocked requests.
 *
 * Timeouts: a process may wait in the environment's queue at most its
 * `timeoutMs` (then it ends `timeout` without having run), and once running
 * it gets its whole `timeoutMs`. The environment enforces both; the host's
 * backstop ends the run itself if the environment has not, shortly after.
 *
 * Suspension: while a tool call of a run waits for an operator's approval,
 * the process is `suspended` (a host-owned state) and both clocks — the
 * environment's deadline (`pauseDeadline`) and the backstop — stand still;
 * once no call waits any more it is `running` again with the time it had.
 *
 * Storage faults: a run's result is known only to the host that ran it. Its
 * writes (state changes, the final row) are kept and retried while the
 * database is out of reach or the disk is full (`retryStorage`), in order,
 * and whoever waits for the run keeps seeing the live run until the final row
 * is there. Only a stopping host whose time ran out gives up (`abandonWrites`):
 * on PostgreSQL the reaper or the sweep then ends the run.
 */
import type {
  EnvironmentBindings,
  EnvironmentModule,
  ExecutionExitState,
  ExecutionState,
  InvokeInput,
  ServiceCatalog,
} from "@cyrnel/sdk";
import type { CallCounts } from "../../contract/governance.js";
import type { ProcessEvent } from "../../contract/processes.js";
import { atCapacity, CyrnelError, messageOf, noEnvironment, notFound, rateLimited } from "../../errors.js";
import { retryStorage, type StorageHealth } from "../../lib/storage-faults.js";
import type { HostLogger } from "../../log.js";
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { CallContext, Caller } from "../governance/caller.js";
import type { ModuleEvents } from "../modules/module-events.js";
import { CappedText } from "./capped-text.js";
import { FollowerSeats } from "./follower-seats.js";
import { MergedOutput } from "./merged-output.js";
import type {
  ProcessFilter,
  ProcessResult,
  ProcessRow,
  ProcessState,
  ProcessStore,
  QueuedRunOptions,
  RunIds,
} from "./process-store.js";

export interface ProcessLimits {
  codeBytes: number;
  streamBytes: number;
  outputBytes: number;
  /** Live readers (`follow`) one running process may have at once. */
  followers: number;
  /** Live readers this host serves at once, over all processes (its descriptor budget); absent: no total. */
  followersTotal?: number;
  /** Processes of one stored key that may be active (not idle) at once (`CYRNEL_KEY_PROCESSES`); absent: no cap. */
  perKey?: number;
}

/** The longest delay a Node timer takes (about 24.8 days); a longer `timeoutMs` would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export interface ProcessRunnerOptions {
  store: ProcessStore;
  logger: HostLogger;
  limits: ProcessLimits;
  /** The environment new runs go to, or null. */
  environment(): { id: string; module: EnvironmentModule } | null;
  /**
   * Subscribed to at construction: an environment that is being switched away from is torn down once its runs have
   * ended; one that stops (disabled, deleted, restarted with new settings) has its runs canceled first.
   */
  events: ModuleEvents;
  /** Tool calls from code go through the same gate as `POST /tools/.../invoke`, naming the run they come from. */
  invokeTool(input: InvokeInput, call: CallContext): Promise<unknown>;
  /** The approvals a process waits for right now, oldest first. */
  pendingApprovals(processId: number): readonly ApprovalSummary[];
  /** A run ends (or is being ended): what its calls still wait for will never be needed. */
  runEnding(processId: number, reason: string): Promise<void>;
  /** The tool calls of a process's latest run. */
  callCounts(processId: number): Promise<CallCounts>;
  /** Snapshot of the services and tool ids this caller can reach, for discovery inside the sandbox. */
  catalog(caller: Caller): Promise<ServiceCatalog>;
  /**
   * Who a process's tool calls run as, asked at each call: the key that created it as it is now (its allow-list
   * narrowed or widened since), or a `forbidden` error once that key is revoked or expired.
   */
  caller(keyId: string | null): Promise<Caller>;
  /** One service's reachable tools with their schemas, as JSON text (see EnvironmentBindings.serviceTools). */
  serviceTools(serviceId: string, toolIds?: readonly string[]): Promise<{ revision: string; toolsJson: string }>;
  /**
   * Hosts sharing a PostgreSQL database: runs go through the durable process queue instead of straight to this
   * host's environment (cluster/process-cluster.ts). Absent on SQLite: one host runs what it admits.
   */
  queue?: RunQueue;
  /** Told of storage faults the runs' writes meet (for `/health`). */
  storage?: StorageHealth;
}

/**
 * The process queue as the runner sees it. Submitting writes the run and its job in one transaction; whichever
 * host takes the job runs it (`runClaimed`); everything about a run that may be elsewhere (its events, its end,
 * a kill, its pending approvals) is asked of the database and the other hosts through this.
 */
export interface RunQueue {
  /**
   * Whether this host also runs processes (`CYRNEL_ROLE=all`): then its own environment's `admit()` is asked too,
   * as on one host — a full host refuses with the environment's 429 rather than queue work it cannot start. An
   * `api` host has no environment of its own that runs anything: the queue's length decides alone.
   */
  readonly admitsLocally: boolean;
  /** Refuses a submission while too many runs wait for a host (429 `at_capacity`). */
  admit(): Promise<void>;
  /** The SQL that adds the run's job, evaluated in the statement that writes its rows. */
  addJob: QueuedRunOptions["addJob"];
  /** The pending approvals of these processes, from the approvals table, oldest first. */
  pendingApprovals(processIds: readonly number[]): Promise<Map<number, ApprovalSummary[]>>;
  /**
   * Follows the process's current run wherever it runs: its text so far, each new event, then its end. `text`:
   * the reader shows the text as it comes (false: it only waits for the end).
   */
  follow(processId: number, onEvent: (event: LiveEvent) => void, text: boolean): Promise<RemoteRun>;
  /** Resolves once the process's current run has ended, wherever it runs (at once if it has), or `signal` aborts. */
  waitEnded(processId: number, signal?: AbortSignal): Promise<void>;
  /**
   * Records a kill of the process's current run: a run no host took is canceled at once (`canceled`), a taken one
   * is marked and its host told (`signal`), an ended one has nothing to kill (`ended`).
   */
  kill(processId: number): Promise<"canceled" | "signal" | "ended">;
  /** Ends `canceled` the runs of an environment that no host took yet (it stopped: see `ProcessRunner.cancel`). */
  cancelWaiting(environmentId: string, reason: string): Promise<void>;
}

/** A run followed through the queue (see `RunQueue.follow`). */
export interface RemoteRun {
  stdout: string;
  stderr: string;
  /** Resolves once the run has ended and its final row is written. */
  done: Promise<void>;
  close(): Promise<void>;
}

/**
 * Where a run's state, text and end go. A run of this host's own (SQLite) writes the store; a run taken from the
 * queue writes only while its claim holds (a host that was reaped must not overwrite what the reaper wrote) and
 * sends its text and events to readers on every host.
 */
export interface RunRecorder {
  setState(state: ProcessState): Promise<void>;
  setRunning(startedAt: string): Promise<void>;
  /** Text a stream kept (what its cap let through), in order. */
  write?(stream: StreamName, text: string): void;
  /** An event of the run for readers elsewhere (an ended call, an approval). */
  publish?(event: LiveEvent): void;
  /** The final row; the run is over for readers once it resolves. */
  finish(result: ProcessResult): Promise<void>;
}

/** A run this host took from the queue (its claim made), with what it needs to run it. */
export interface ClaimedRun extends RunIds {
  code: string;
  timeoutMs: number | null;
  keyId: string | null;
  typecheck: boolean | null;
  /** The environment it was submitted to. */
  environmentId: string;
  /** How long it waited for a host, by the database's clock. */
  waitedMs: number;
  /** Whether a kill was asked for since it was claimed (a kill before the run starts ends it unrun). */
  killRequested(): boolean;
  recorder: RunRecorder;
}

/**
 * How long the host waits past a deadline (in the queue, then from
 * `running`) before it ends a run itself. The environment owns the deadline;
 * this only covers one that failed to enforce it, so it is generous enough
 * that a loaded machine never lets the backstop race a working environment.
 */
const TIMEOUT_BACKSTOP_MS = 1_000;
/**
 * The caller an environment sees for runs without a stored key (CYRNEL_API_KEY, or a host without
 * keys): they share one turn in what the environment shares between callers (its type checks).
 */
const UNKEYED_CALLER = "(no key)";
/** How long a kill waits for the environment to confirm before the host ends the run itself. */
const KILL_GRACE_MS = 2_000;

interface LiveExecution {
  executionId: number;
  processId: number;
  /** The process's key (see `ProcessRunnerOptions.caller`). */
  keyId: string | null;
  environmentId: string;
  environment: EnvironmentModule;
  timeoutMs: number | null;
  recorder: RunRecorder;
  state: ExecutionState | "terminating" | "suspended";
  stdout: CappedText;
  stderr: CappedText;
  output: MergedOutput;
  error: string | null;
  /** Set when the host decided how the run ends (kill, timeout backstop, output cap). */
  forced: { exitState: ExecutionExitState; error: string | null } | null;
  backstop: NodeJS.Timeout | undefined;
  /** When the backstop fires (`performance.now()` time) while its clock runs; what it then says. */
  backstopDue: { at: number; message: string } | null;
  /** The backstop's time left while the process is suspended. */
  backstopPaused: { remainingMs: number; message: string } | null;
  /** Live readers of the run's events (`follow`). */
  readers: Set<StreamReader>;
  /**
   * The run's writes to its process row, in the order they were made: the database may take them on different
   * connections, and a state written after the results would undo them. The results wait for the rest.
   */
  writes: Promise<void>;
  /** Expiring the approvals it waited for, once a kill or a deadline ended it (awaited before its results). */
  approvalsEnding: Promise<void>;
  /** Aborted when the run ends, however it ends: its tool calls still in flight are canceled (`CallContext.ended`). */
  calls: AbortController;
  done: Promise<void>;
  finish(exitState: ExecutionExitState): void;
}

export type StreamName = "stdout" | "stderr";
/** What a live reader is sent while a run goes on: chunks of stdout and stderr, ended calls, approvals. */
export type LiveEvent = Exclude<ProcessEvent, { type: "end" }>;
export type StreamReader = (event: LiveEvent) => void;

/** A process row as the API shows it: with the approvals it waits for. */
export type ProcessView = ProcessRow & { pendingApprovalIds: number[] };

/** What `follow` gives a live reader: the text so far, then every new event through the reader, then the end. */
export interface FollowedProcess {
  stdout: string;
  stderr: string;
  /** The approvals the process waits for right now (their events were sent before the reader came). */
  approvals: readonly ApprovalSummary[];
  /** The process once it is idle (at once if it already is). */
  done: Promise<ProcessView>;
  /** Stops delivering chunks (the reader went away). */
  close(): void;
}

export class ProcessRunner {
  private readonly live = new Map<number, LiveExecution>();
  private readonly byProcess = new Map<number, LiveExecution>();
  /**
   * Submissions, one at a time from admission to `execute`: the environment's `admit()` answer holds only until
   * the next run is handed over, and recording the run (awaited) comes in between.
   */
  private admissions: Promise<unknown> = Promise.resolve();
  /**
   * Runs taken from the queue between their checks and their start (reading the key's catalog): a cancel of
   * their environment in that window marks them (`canceled`), a drain waits for them (`settled`).
   */
  private readonly starting = new Set<{ environmentId: string; canceled: string | null; settled: Promise<void> }>();
  /**
   * Environments this host stopped (disabled, deleted, restarted), and why: a run queued for one that this host
   * takes later ends canceled for that reason, as it would have had it been running here.
   */
  private readonly stoppedEnvironments = new Map<string, string>();
  /** Live readers this host serves, per process and in all. */
  private readonly seats: FollowerSeats;
  /** Aborted when a stopping host gives up the writes still waiting for storage (`abandonWrites`). */
  private readonly giveUpWrites = new AbortController();

  constructor(private readonly options: ProcessRunnerOptions) {
    this.seats = new FollowerSeats(options.limits.followers, options.limits.followersTotal ?? Number.POSITIVE_INFINITY);
    options.events.on("environmentDraining", ({ environmentId }) => this.drain(environmentId));
    options.events.on("environmentStopping", ({ environmentId }) =>
      this.cancel(environmentId, "canceled: the environment was disabled"),
    );
  }

  /** Bindings handed to environment modules at setup. */
  readonly bindings: EnvironmentBindings = {
    invokeTool: async (executionId, input) => {
      const execution = this.live.get(executionId);
      // A suspended run still makes calls: its other promises go on while one waits for approval.
      if (execution?.state !== "running" && execution?.state !== "suspended") {
        throw new CyrnelError("conflict", `execution ${executionId} is not running`);
      }
      const caller = await this.options.caller(execution.keyId);
      const ended = execution.calls.signal;
      return this.options.invokeTool(input, { caller, processId: execution.processId, executionId, ended });
    },
    setState: (executionId, state) => {
      const execution = this.live.get(executionId);
      if (!execution || execution.state === "terminating" || execution.state === "suspended") return;
      if (execution.state === state) return;
      if (state !== "queued" && state !== "running") return;
      execution.state = state;
      const startedAt = new Date().toISOString();
      this.persist(execution, () =>
        state === "running" ? execution.recorder.setRunning(startedAt) : execution.recorder.setState(state),
      );
      // Running: the whole timeoutMs again, however long the run was queued.
      if (state === "running") this.armBackstop(execution, `timed out after ${execution.timeoutMs} ms`);
    },
    setError: (executionId, message) => {
      const execution = this.live.get(executionId);
      if (execution) execution.error = String(message).slice(0, 64 * 1024);
    },
    emitStdout: (executionId, chunk) => this.emit(executionId, "stdout", chunk),
    emitStderr: (executionId, chunk) => this.emit(executionId, "stderr", chunk),
    serviceTools: async (serviceId, toolIds) => this.options.serviceTools(serviceId, toolIds),
    emitOutput: (executionId, patch) => {
      const execution = this.live.get(executionId);
      if (!execution || execution.forced) return;
      if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return;
      if (!execution.output.merge(patch)) {
        this.force(execution, "failed", `output exceeds the limit of ${this.options.limits.outputBytes} bytes`);
      }
    },
  };

  // ---- API operations ---------------------------------------------------------

  /**
   * `keyId`: the stored key that creates it (null for CYRNEL_API_KEY or without authentication); it owns it.
   * `typecheck`: check the code's types before it runs (`true`), run it unchecked (`false`), or leave it to the
   * environment's default (absent).
   */
  async create(
    input: { code: string; ref?: string; timeoutMs?: number | null; typecheck?: boolean },
    keyId: string | null,
  ): Promise<ProcessView> {
    if (Buffer.byteLength(input.code) > this.options.limits.codeBytes) {
      throw new CyrnelError("payload_too_large", `code exceeds the limit of ${this.options.limits.codeBytes} bytes`);
    }
    const ref = input.ref === undefined ? null : input.ref.trim();
    if (ref === "") throw new CyrnelError("bad_request", `"ref" must not be empty when given`);
    const timeoutMs = input.timeoutMs === undefined ? 30_000 : input.timeoutMs;
    if (timeoutMs !== null && (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)) {
      throw new CyrnelError(
        "bad_request",
        `"timeoutMs" must be an integer from 1 to ${MAX_TIMEOUT_MS} (about 24.8 days), or null for no limit`,
      );
    }
    await this.admitKey(keyId);
    const queue = this.options.queue;
    if (queue) {
      const environment = this.requireEnvironment(input.typecheck, queue.admitsLocally);
      await queue.admit();
      const created = await this.options.store.create({ code: input.code, ref, timeoutMs, keyId }, environment.id, {
        ...(input.typecheck === undefined ? {} : { typecheck: input.typecheck }),
        addJob: queue.addJob,
      });
      // The row as written: queued, so it waits for no approval (views need not ask the database).
      return created.row ? (await this.views([created.row]))[0]! : this.get(created.processId);
    }
    const services = await this.visibleCatalog(keyId);
    const processId = await this.admitted(input.typecheck, async (environment) => {
      const { processId, executionId } = await this.options.store.create(
        { code: input.code, ref, timeoutMs, keyId },
        environment.id,
      );
      const run = { processId, executionId, code: input.code, timeoutMs, keyId, typecheck: input.typecheck };
      return { processId, start: () => this.start(run, environment, services) };
    });
    return this.get(processId);
  }

  /**
   * A stored key past its cap of active processes is refused (`429 rate_limited`); counted on every host, at the
   * moment of the submission (submissions racing each other may pass it by a few).
   */
  private async admitKey(keyId: string | null): Promise<void> {
    const cap = this.options.limits.perKey;
    if (keyId === null || cap === undefined) return;
    const active = await this.options.store.countActive(keyId);
    if (active >= cap) {
      throw rateLimited(
        `this key already has ${active} processes queued or running, its limit (CYRNEL_KEY_PROCESSES); nothing was run`,
        1,
      );
    }
  }

  /** Runs an idle process again; `typecheck` as for {@link create} (each run decides for itself). */
  async run(id: number, force: boolean, typecheck?: boolean): Promise<ProcessView> {
    const row = await this.get(id);
    if (row.state !== "idle")
      throw new CyrnelError("conflict", `process ${id} is ${row.state}; it must be idle to run`);
    if (row.runs > 0 && !force) {
      throw new CyrnelError(
        "conflict",
        `process ${id} has results from an earlier run; pass "force": true to replace them`,
      );
    }
    await this.admitKey(row.keyId);
    const queue = this.options.queue;
    if (queue) {
      const environment = this.requireEnvironment(typecheck, queue.admitsLocally);
      await queue.admit();
      // Conditional on the process still being idle: a run another host started meanwhile makes this a conflict.
      await this.options.store.startRun(id, environment.id, {
        ...(typecheck === undefined ? {} : { typecheck }),
        addJob: queue.addJob,
      });
      return this.get(id);
    }
    const services = await this.visibleCatalog(row.keyId);
    await this.admitted(typecheck, async (environment) => {
      // Idle when asked, but another request may have started a run since: one run at a time.
      if (this.byProcess.has(id)) throw new CyrnelError("conflict", `process ${id} is running; it must be idle to run`);
      const executionId = await this.options.store.startRun(id, environment.id);
      const run = { processId: id, executionId, code: row.code, timeoutMs: row.timeoutMs, keyId: row.keyId, typecheck };
      return { processId: id, start: () => this.start(run, environment, services) };
    });
    return this.get(id);
  }

  async kill(id: number): Promise<ProcessView> {
    const row = await this.get(id);
    const queue = this.options.queue;
    if (queue) {
      if (row.state === "idle") throw new CyrnelError("conflict", `process ${id} is idle; nothing to kill`);
      const outcome = await queue.kill(id);
      if (outcome === "ended") throw new CyrnelError("conflict", `process ${id} is idle; nothing to kill`);
      // A run a host has ends once that host stopped it (or, if the host is gone, once the reaper ended it).
      return outcome === "signal" ? this.waitIdle(id) : this.get(id);
    }
    const execution = this.byProcess.get(id);
    if (row.state === "idle" || !execution) throw new CyrnelError("conflict", `process ${id} is idle; nothing to kill`);
    this.force(execution, "canceled", null);
    await execution.done;
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    const row = await this.get(id);
    if (row.state !== "idle" || this.byProcess.has(id))
      throw new CyrnelError("conflict", `process ${id} is ${row.state}; kill it before deleting`);
    await this.options.store.delete(id);
  }

  async list(filter: ProcessFilter): Promise<ProcessView[]> {
    return this.views(await this.options.store.list(filter));
  }

  async get(id: number): Promise<ProcessView> {
    const row = await this.options.store.get(id);
    if (!row) throw notFound(`process ${id}`);
    return (await this.views([row]))[0]!;
  }

  /** The tool calls of the process's latest run (how many, how many failed, per tool). */
  callCounts(id: number): Promise<CallCounts> {
    return this.options.callCounts(id);
  }

  /**
   * The approvals of a process changed: while any is pending the process is
   * suspended, with the environment's deadline and the backstop paused; once
   * none is, it runs again with the time it had left.
   */
  setPendingApprovals(processId: number, pending: readonly number[]): void {
    const execution = this.byProcess.get(processId);
    if (!execution || execution.forced) return;
    if (pending.length > 0 && execution.state === "running") {
      execution.state = "suspended";
      this.persist(execution, () => execution.recorder.setState("suspended"));
      this.pauseBackstop(execution);
      this.tellEnvironment(execution, "pauseDeadline");
    } else if (pending.length === 0 && execution.state === "suspended") {
      execution.state = "running";
      this.persist(execution, () => execution.recorder.setState("running"));
      this.tellEnvironment(execution, "resumeDeadline");
      this.resumeBackstop(execution);
    }
  }

  /** Sends a live event (an ended call, an approval) to the readers of the process's run, if it runs. */
  publish(processId: number, event: LiveEvent): void {
    const execution = this.byProcess.get(processId);
    if (!execution) return;
    this.deliver(execution, event);
    execution.recorder.publish?.(event);
  }

  /** Resolves when the process is idle (or right away if it is), or when `signal` aborts. */
  async waitIdle(id: number, signal?: AbortSignal): Promise<ProcessView> {
    const queue = this.options.queue;
    if (queue) {
      // Wherever the run is, its end reaches this host through the database (see cluster/run-events.ts); an idle
      // process's is there at once.
      await queue.waitEnded(id, signal);
      return this.get(id);
    }
    const execution = this.byProcess.get(id);
    if (execution) {
      await new Promise<void>((resolve) => {
        execution.done.then(resolve);
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    return this.get(id);
  }

  /**
   * Live stdout/stderr of a process: what was written so far, then each new
   * chunk through `reader` until the run ends. An idle process answers its
   * stored text and is done at once. A running process takes at most
   * `limits.followers` live readers (each holds a copy of what it is sent).
   */
  async follow(id: number, reader: StreamReader): Promise<FollowedProcess> {
    const row = await this.get(id);
    if (this.options.queue) return this.followQueued(row, reader, this.options.queue);
    const execution = this.byProcess.get(id);
    if (!execution) {
      return { stdout: row.stdout, stderr: row.stderr, approvals: [], done: Promise.resolve(row), close() {} };
    }
    const release = this.seats.take(id);
    execution.readers.add(reader);
    const close = () => {
      release();
      execution.readers.delete(reader);
    };
    return {
      stdout: execution.stdout.toString(),
      stderr: execution.stderr.toString(),
      approvals: this.options.pendingApprovals(id),
      done: execution.done.then(() => {
        close();
        return this.get(id);
      }),
      close,
    };
  }

  async requireIdle(id: number, what: string): Promise<ProcessView> {
    const row = await this.get(id);
    if (row.state !== "idle")
      throw new CyrnelError("conflict", `process ${id} is ${row.state}; its ${what} is available once it is idle`);
    return row;
  }

  /**
   * Runs a run this host took from the process queue (its claim is made): the
   * same machinery as a local run — deadlines, caps, suspension, kills — with
   * its writes and events through `run.recorder`. A run that can no longer
   * run here (killed, waited past its timeout, submitted to another
   * environment) ends without running. Resolves once it has ended and its
   * final row is written.
   */
  async runClaimed(run: ClaimedRun): Promise<void> {
    const unrun = (exitState: ExecutionExitState, error: string) =>
      this.durably(run, "the end", () => run.recorder.finish({ exitState, error, output: {}, stdout: "", stderr: "" }));
    if (run.killRequested()) return unrun("canceled", "canceled");
    if (run.timeoutMs !== null && run.waitedMs >= run.timeoutMs) {
      return unrun("timeout", `timed out after ${run.timeoutMs} ms waiting in the queue; the code never ran`);
    }
    const environment = this.options.environment();
    const stopped = this.stoppedEnvironments.get(run.environmentId);
    if (environment?.id === run.environmentId) this.stoppedEnvironments.delete(run.environmentId);
    else if (stopped !== undefined) return unrun("canceled", stopped);
    if (environment === null || environment.id !== run.environmentId) {
      const here = environment === null ? "no environment is active here" : `"${environment.id}" is active here`;
      return unrun(
        "failed",
        `the run was queued for environment "${run.environmentId}" but ${here}; the code never ran`,
      );
    }
    if (run.typecheck === true && environment.module.supportsTypecheck !== true) {
      return unrun("failed", `the active environment "${environment.id}" cannot type-check code; the code never ran`);
    }
    if (this.byProcess.has(run.processId)) {
      return unrun("failed", `process ${run.processId} already runs on this host; the code never ran`);
    }
    let settle!: () => void;
    const pending = {
      environmentId: environment.id,
      canceled: null as string | null,
      settled: new Promise<void>((resolve) => {
        settle = resolve;
      }),
    };
    this.starting.add(pending);
    let services: ServiceCatalog;
    try {
      services = await this.visibleCatalog(run.keyId);
    } finally {
      this.starting.delete(pending);
      settle();
    }
    // A kill, or its environment stopping, while the catalog was read found nothing running yet.
    if (pending.canceled !== null) return unrun("canceled", pending.canceled);
    if (run.killRequested()) return unrun("canceled", "canceled");
    const { processId, executionId, code, timeoutMs, keyId } = run;
    const execution = this.start(
      {
        processId,
        executionId,
        code,
        timeoutMs,
        keyId,
        ...(run.typecheck === null ? {} : { typecheck: run.typecheck }),
      },
      environment,
      services,
      run.recorder,
    );
    await execution.done;
  }

  /** Ends this host's run of the process `canceled` (a kill that reached it from any host). */
  killRun(processId: number, reason: string | null): void {
    const execution = this.byProcess.get(processId);
    if (execution) this.force(execution, "canceled", reason);
  }

  // ---- environment events --------------------------------------------------------

  /** Waits for every run on this environment to end (an environment switch lets them finish). */
  private async drain(environmentId: string): Promise<void> {
    await Promise.all(
      [...this.starting].filter((run) => run.environmentId === environmentId).map((run) => run.settled),
    );
    await Promise.all([...this.live.values()].filter((e) => e.environmentId === environmentId).map((e) => e.done));
  }

  /** Cancels every run on this environment (or on all, for shutdown). */
  async cancel(environmentId: string | null, reason: string | null): Promise<void> {
    const queue = this.options.queue;
    // Its runs that still wait in the queue go too, as its queued processes do on one host (not at shutdown: those
    // are for other hosts to take).
    const waiting =
      environmentId !== null && queue ? queue.cancelWaiting(environmentId, reason ?? "canceled") : Promise.resolve();
    if (environmentId !== null && queue) this.stoppedEnvironments.set(environmentId, reason ?? "canceled");
    for (const run of this.starting) {
      if (environmentId === null || run.environmentId === environmentId) run.canceled = reason ?? "canceled";
    }
    const affected = [...this.live.values()].filter((e) => environmentId === null || e.environmentId === environmentId);
    for (const execution of affected) this.force(execution, "canceled", reason);
    await Promise.all([
      ...affected.map((e) => e.done),
      waiting.catch((error) =>
        this.options.logger.warn("could not cancel the queued runs of a stopped environment", {
          environment: environmentId,
          error: messageOf(error),
        }),
      ),
    ]);
  }

  // ---- internals ---------------------------------------------------------------------

  private emit(executionId: number, stream: StreamName, chunk: string): void {
    const execution = this.live.get(executionId);
    if (!execution) return;
    const text = execution[stream].append(String(chunk));
    if (text === "") return;
    execution.recorder.write?.(stream, text);
    this.deliver(execution, { type: stream, text });
  }

  private deliver(execution: LiveExecution, event: LiveEvent): void {
    for (const reader of execution.readers) {
      try {
        reader(event);
      } catch (error) {
        execution.readers.delete(reader);
        this.options.logger.warn("a live reader of a process failed; it was dropped", { error: messageOf(error) });
      }
    }
  }

  /**
   * Rows as the API shows them. Only a live run can wait for approvals: an idle process is not asked. Through the
   * queue a run may wait on any host, so its approvals are read from the approvals table.
   */
  private async views(rows: ProcessRow[]): Promise<ProcessView[]> {
    const queue = this.options.queue;
    // Only a run that has started can wait for a decision (queued: not yet; terminating: its approvals expired).
    const live = rows.filter((row) => row.state === "running" || row.state === "suspended").map((row) => row.id);
    const stored = queue && live.length > 0 ? await queue.pendingApprovals(live) : new Map<number, ApprovalSummary[]>();
    return rows.map((row) => {
      const waiting =
        row.state === "idle" ? [] : queue ? (stored.get(row.id) ?? []) : this.options.pendingApprovals(row.id);
      return { ...row, pendingApprovalIds: waiting.map((approval) => approval.id) };
    });
  }

  /** `follow` of a run that may be on any host (through the queue); the followers limit is per serving host. */
  private async followQueued(row: ProcessView, reader: StreamReader, queue: RunQueue): Promise<FollowedProcess> {
    const id = row.id;
    if (row.state === "idle") {
      return { stdout: row.stdout, stderr: row.stderr, approvals: [], done: Promise.resolve(row), close() {} };
    }
    const release = this.seats.take(id);
    // The caller sends the text so far before any later event: events that come before it has this answer wait
    // for the turn of the event loop after it.
    let ready = false;
    const early: LiveEvent[] = [];
    const send = (event: LiveEvent) => {
      if (!ready) {
        early.push(event);
        return;
      }
      try {
        reader(event);
      } catch (error) {
        this.options.logger.warn("a live reader of a process failed", { error: messageOf(error) });
      }
    };
    let followed: RemoteRun;
    let approvals: ApprovalSummary[];
    try {
      followed = await queue.follow(id, send, true);
      approvals = (await queue.pendingApprovals([id])).get(id) ?? [];
    } catch (error) {
      release();
      throw error;
    }
    setImmediate(() => {
      ready = true;
      for (const event of early.splice(0)) send(event);
    });
    return {
      stdout: followed.stdout,
      stderr: followed.stderr,
      approvals,
      done: followed.done.then(() => {
        release();
        return this.get(id);
      }),
      close() {
        release();
        void followed.close();
      },
    };
  }

  /** An optional environment hook, which must not take the host down with it. */
  private tellEnvironment(execution: LiveExecution, hook: "pauseDeadline" | "resumeDeadline"): void {
    try {
      execution.environment[hook]?.(execution.executionId);
    } catch (error) {
      this.options.logger.warn(`environment ${hook} failed`, {
        execution: execution.executionId,
        error: messageOf(error),
      });
    }
  }

  /**
   * Admits one submission: the active environment, if it takes one more run
   * now, is asked before anything is written (a refused submission leaves no
   * process behind), then `record` writes the run and its `start` hands it
   * over. Submissions go through one at a time, so no other run is admitted
   * between this one's answer and its `execute`.
   */
  private admitted<T>(
    typecheck: boolean | undefined,
    record: (environment: { id: string; module: EnvironmentModule }) => Promise<{ processId: T; start(): void }>,
  ): Promise<T> {
    const admission = this.admissions.then(async () => {
      const environment = this.requireEnvironment(typecheck);
      const recorded = await record(environment);
      recorded.start();
      return recorded.processId;
    });
    this.admissions = admission.catch(() => undefined);
    return admission;
  }

  /**
   * The active environment, if it takes one more run now. A run that asks
   * for a type check needs an environment that can check: running the code
   * unchecked instead is what it asked not to happen.
   */
  private requireEnvironment(typecheck: boolean | undefined, admit = true) {
    const environment = this.options.environment();
    if (!environment) throw noEnvironment();
    if (typecheck === true && environment.module.supportsTypecheck !== true) {
      throw new CyrnelError(
        "bad_request",
        `the active environment "${environment.id}" cannot type-check code; leave "typecheck" out or set it to false`,
      );
    }
    // Through the queue from an api host the run goes to any host: the queue's length decides (RunQueue.admit).
    const admission = admit ? environment.module.admit?.() : undefined;
    if (admission !== undefined && !admission.admitted) throw atCapacity(admission.reason, admission.retryAfterSeconds);
    return environment;
  }

  /** Hands a recorded run to the environment; `run` is its execution row, already written. */
  private start(
    run: {
      processId: number;
      executionId: number;
      code: string;
      timeoutMs: number | null;
      keyId: string | null;
      typecheck?: boolean;
    },
    environment: { id: string; module: EnvironmentModule },
    services: ServiceCatalog,
    recorder: RunRecorder = {
      setState: (state) => this.options.store.setState(run.processId, state),
      setRunning: (startedAt) => this.options.store.setRunning(run.processId, startedAt),
      finish: (result) => this.options.store.finish(run.processId, run.executionId, result),
    },
  ): LiveExecution {
    const { processId, executionId, timeoutMs, keyId } = run;
    let finish!: (exitState: ExecutionExitState) => void;
    const execution: LiveExecution = {
      executionId,
      processId,
      keyId,
      environmentId: environment.id,
      environment: environment.module,
      timeoutMs,
      recorder,
      state: "queued",
      stdout: new CappedText(this.options.limits.streamBytes, "stdout"),
      stderr: new CappedText(this.options.limits.streamBytes, "stderr"),
      output: new MergedOutput(this.options.limits.outputBytes),
      error: null,
      forced: null,
      backstop: undefined,
      backstopDue: null,
      backstopPaused: null,
      readers: new Set(),
      calls: new AbortController(),
      writes: Promise.resolve(),
      approvalsEnding: Promise.resolve(),
      done: new Promise<void>((resolve) => {
        finish = (exitState) => {
          if (!this.live.has(executionId)) return;
          // Resolved once the results are written: whoever waits reads them next.
          void this.complete(execution, exitState).then(resolve);
        };
      }),
      finish: (exitState) => finish(exitState),
    };
    this.live.set(executionId, execution);
    this.byProcess.set(processId, execution);
    // Queued: the environment may keep the run waiting at most its timeoutMs.
    this.armBackstop(execution, `timed out after ${timeoutMs} ms waiting in the queue; the code never ran`);
    environment.module
      .execute({
        executionId,
        processId,
        code: run.code,
        options: { timeoutMs, ...(run.typecheck === undefined ? {} : { typecheck: run.typecheck }) },
        services,
        caller: keyId ?? UNKEYED_CALLER,
      })
      .then(
        (exitState) => execution.finish(exitState),
        (error) => {
          execution.error ??= `environment failed: ${messageOf(error)}`;
          execution.finish("failed");
        },
      );
    return execution;
  }

  /** What the run's key sees now; nothing once the key is revoked or expired (its calls would be refused anyway). */
  private async visibleCatalog(keyId: string | null): Promise<ServiceCatalog> {
    let caller: Caller;
    try {
      caller = await this.options.caller(keyId);
    } catch (error) {
      if (error instanceof CyrnelError && error.code === "forbidden") return {};
      throw error;
    }
    return this.options.catalog(caller);
  }

  /**
   * The environment owns the deadline of the current phase (queued, then
   * running); this only fires if it failed to enforce it. No grace then: the
   * run ends at once.
   */
  private armBackstop(
    execution: LiveExecution,
    message: string,
    delay = execution.timeoutMs === null ? null : execution.timeoutMs + TIMEOUT_BACKSTOP_MS,
  ): void {
    clearTimeout(execution.backstop);
    execution.backstopDue = null;
    execution.backstopPaused = null;
    if (delay === null) return;
    const ms = Math.min(delay, MAX_TIMEOUT_MS);
    execution.backstopDue = { at: performance.now() + ms, message };
    execution.backstop = setTimeout(() => this.force(execution, "timeout", message, 0), ms);
  }

  /** Expires what the run's calls still wait for; a failure there must not keep the run from ending. */
  private endApprovals(execution: LiveExecution, reason: string): Promise<void> {
    return this.options.runEnding(execution.processId, reason).catch((error) => {
      this.options.logger.warn("could not expire the approvals of an ended process", {
        process: execution.processId,
        error: messageOf(error),
      });
    });
  }

  /**
   * A stopping host whose time is up: writes still waiting for storage are given up (logged), so the stop can end.
   * On PostgreSQL the runs they belonged to are ended by the reaper or the sweep on another host.
   */
  abandonWrites(): void {
    this.giveUpWrites.abort();
  }

  /** A write of a run's rows, retried through storage faults (see the header); the queue's host uses it too. */
  durably<T>(run: { processId: number }, what: string, write: () => Promise<T>): Promise<T> {
    return retryStorage(write, {
      what: `${what} of process ${run.processId}`,
      logger: this.options.logger,
      giveUp: this.giveUpWrites.signal,
      ...(this.options.storage && { health: this.options.storage }),
    });
  }

  /** Queues a write of the run's process row behind the run's earlier ones; a failure is logged, not thrown. */
  private persist(execution: LiveExecution, write: () => Promise<void>): void {
    execution.writes = execution.writes
      .then(() => this.durably(execution, "the state", write))
      .catch((error) => {
        this.options.logger.warn("could not record the state of a process", {
          process: execution.processId,
          error: messageOf(error),
        });
      });
  }

  private pauseBackstop(execution: LiveExecution): void {
    const due = execution.backstopDue;
    if (due === null) return;
    clearTimeout(execution.backstop);
    execution.backstopDue = null;
    execution.backstopPaused = { remainingMs: Math.max(0, due.at - performance.now()), message: due.message };
  }

  private resumeBackstop(execution: LiveExecution): void {
    const paused = execution.backstopPaused;
    if (paused !== null) this.armBackstop(execution, paused.message, paused.remainingMs);
  }

  /** The host decides how a run ends: tell the environment to stop, and stop waiting for it after a grace period. */
  private force(
    execution: LiveExecution,
    exitState: ExecutionExitState,
    error: string | null,
    graceMs = KILL_GRACE_MS,
  ): void {
    if (execution.forced || !this.live.has(execution.executionId)) return;
    execution.forced = { exitState, error };
    // Its calls still at their adapters are aborted now: nobody will read their answers.
    execution.calls.abort();
    if (execution.state === "running" || execution.state === "suspended") {
      execution.state = "terminating";
      this.persist(execution, () => execution.recorder.setState("terminating"));
    }
    // At once, not when the environment confirms: the operator should not be asked about a call nobody awaits.
    execution.approvalsEnding = this.endApprovals(
      execution,
      exitState === "canceled" ? "the process was canceled" : `the process ended (${exitState})`,
    );
    execution.environment.kill(execution.executionId).catch((failure) => {
      this.options.logger.error("environment kill failed", {
        execution: execution.executionId,
        error: messageOf(failure),
      });
    });
    if (graceMs === 0) execution.finish(exitState);
    else setTimeout(() => execution.finish(exitState), graceMs).unref();
  }

  private async complete(execution: LiveExecution, reported: ExecutionExitState): Promise<void> {
    clearTimeout(execution.backstop);
    const exitState = execution.forced?.exitState ?? reported;
    this.live.delete(execution.executionId);
    // A run that ended without awaiting its calls: they are aborted too.
    execution.calls.abort();
    // A run that ended without awaiting a call that waits for approval; whoever waits for the end sees them expired.
    // After a kill's or a deadline's own expiry, which says why.
    const approvalsEnded = execution.approvalsEnding.then(() =>
      this.endApprovals(execution, `the process ended (${exitState})`),
    );
    const error =
      execution.forced?.error ??
      (exitState === "success" ? null : (execution.error ?? defaultError(exitState, execution.timeoutMs)));
    const result = {
      exitState,
      error,
      output: execution.output.value(),
      stdout: execution.stdout.toString(),
      stderr: execution.stderr.toString(),
    };
    try {
      await approvalsEnded;
      await execution.writes;
      await this.durably(execution, "the end", () => execution.recorder.finish(result));
    } catch (failure) {
      // The process may have been deleted meanwhile, or a stopping host gave up waiting for storage.
      this.options.logger.warn("could not record the end of a process", {
        process: execution.processId,
        error: messageOf(failure),
      });
    }
    // Until the results are written, readers of the process are shown the live run (its text, its end to wait for).
    if (this.byProcess.get(execution.processId) === execution) this.byProcess.delete(execution.processId);
  }
}

function defaultError(exitState: ExecutionExitState, timeoutMs: number | null): string | null {
  if (exitState === "timeout") return `timed out after ${timeoutMs} ms`;
  if (exitState === "canceled") return "canceled";
  return "failed without a message from the environment";
}
