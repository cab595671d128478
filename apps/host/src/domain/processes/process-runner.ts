/**
 * Runs processes on the active environment: the process API the routes and
 * MCP use (create, run, kill, follow, list, …). Each run on this host is a
 * `LiveRun` (live-run.ts, its state machine), kept in `LiveRuns` with the
 * bindings the environment calls back; submissions are checked by
 * `ProcessAdmission` first.
 */
import type { EnvironmentBindings, ExecutionExitState, ServiceCatalog } from "@cyrnel/sdk";
import type { CallCounts } from "../../contract/governance.js";
import { CyrnelError, messageOf, notFound } from "../../errors.js";
import type { StorageHealth } from "../../lib/storage-faults.js";
import type { HostLogger } from "../../log.js";
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { ModuleEvents } from "../modules/module-events.js";
import { FollowerSeats } from "./follower-seats.js";
import type { LiveEvent, RunRecorder, StreamReader } from "./live-run.js";
import { LiveRuns, type LiveRunsOptions } from "./live-runs.js";
import { type ActiveEnvironment, ProcessAdmission } from "./process-admission.js";
import type { ProcessFilter, ProcessRow, ProcessStore, QueuedRunOptions, RunIds } from "./process-store.js";
import { RunWrites } from "./run-writes.js";

export type { RunRecorder } from "./live-run.js";
export { MAX_TIMEOUT_MS } from "./live-run.js";

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

export interface ProcessRunnerOptions
  extends Pick<LiveRunsOptions, "invokeTool" | "catalog" | "caller" | "serviceTools" | "runEnding"> {
  store: ProcessStore;
  logger: HostLogger;
  limits: ProcessLimits;
  /** The environment new runs go to, or null. */
  environment(): ActiveEnvironment | null;
  /**
   * Subscribed to at construction: an environment that is being switched away from is torn down once its runs have
   * ended; one that stops (disabled, deleted, restarted with new settings) has its runs canceled first.
   */
  events: ModuleEvents;
  /** The approvals a process waits for right now, oldest first. */
  pendingApprovals(processId: number): readonly ApprovalSummary[];
  /** The tool calls of a process's latest run. */
  callCounts(processId: number): Promise<CallCounts>;
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
  private readonly runs: LiveRuns;
  private readonly writes: RunWrites;
  private readonly admission: ProcessAdmission;
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
  /** Bindings handed to environment modules at setup. */
  readonly bindings: EnvironmentBindings;

  constructor(private readonly options: ProcessRunnerOptions) {
    this.writes = new RunWrites(options.logger, options.storage);
    this.runs = new LiveRuns({ ...options, writes: this.writes });
    this.bindings = this.runs.bindings;
    this.admission = new ProcessAdmission(options);
    this.seats = new FollowerSeats(options.limits.followers, options.limits.followersTotal ?? Number.POSITIVE_INFINITY);
    options.events.on("environmentDraining", ({ environmentId }) => this.drain(environmentId));
    options.events.on("environmentStopping", ({ environmentId }) =>
      this.cancel(environmentId, "canceled: the environment was disabled"),
    );
  }

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
    const { ref, timeoutMs } = this.admission.submission(input);
    await this.admission.admitKey(keyId);
    const queue = this.options.queue;
    if (queue) {
      const environment = this.admission.environment(input.typecheck, queue.admitsLocally);
      await queue.admit();
      const created = await this.options.store.create({ code: input.code, ref, timeoutMs, keyId }, environment.id, {
        ...(input.typecheck === undefined ? {} : { typecheck: input.typecheck }),
        addJob: queue.addJob,
      });
      // The row as written: queued, so it waits for no approval (views need not ask the database).
      return created.row ? (await this.views([created.row]))[0]! : this.get(created.processId);
    }
    const services = await this.runs.catalogOf(keyId);
    const processId = await this.admission.admitted(input.typecheck, async (environment) => {
      const { processId, executionId } = await this.options.store.create(
        { code: input.code, ref, timeoutMs, keyId },
        environment.id,
      );
      const run = { processId, executionId, code: input.code, timeoutMs, keyId, typecheck: input.typecheck };
      return { processId, start: () => this.runs.start(run, environment, services, this.storeRecorder(run)) };
    });
    return this.get(processId);
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
    await this.admission.admitKey(row.keyId);
    const queue = this.options.queue;
    if (queue) {
      const environment = this.admission.environment(typecheck, queue.admitsLocally);
      await queue.admit();
      // Conditional on the process still being idle: a run another host started meanwhile makes this a conflict.
      await this.options.store.startRun(id, environment.id, {
        ...(typecheck === undefined ? {} : { typecheck }),
        addJob: queue.addJob,
      });
      return this.get(id);
    }
    const services = await this.runs.catalogOf(row.keyId);
    await this.admission.admitted(typecheck, async (environment) => {
      // Idle when asked, but another request may have started a run since: one run at a time.
      if (this.runs.has(id)) throw new CyrnelError("conflict", `process ${id} is running; it must be idle to run`);
      const executionId = await this.options.store.startRun(id, environment.id);
      const run = { processId: id, executionId, code: row.code, timeoutMs: row.timeoutMs, keyId: row.keyId, typecheck };
      return { processId: id, start: () => this.runs.start(run, environment, services, this.storeRecorder(run)) };
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
    const execution = this.runs.ofProcess(id);
    if (row.state === "idle" || !execution) throw new CyrnelError("conflict", `process ${id} is idle; nothing to kill`);
    execution.force("canceled", null);
    await execution.done;
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    const row = await this.get(id);
    if (row.state !== "idle" || this.runs.has(id))
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
   * The approvals of a process changed: while any is pending the process is suspended, with the environment's
   * deadline and the backstop paused; once none is, it runs again with the time it had left.
   */
  setPendingApprovals(processId: number, pending: readonly number[]): void {
    this.runs.ofProcess(processId)?.setPendingApprovals(pending);
  }

  /** Sends a live event (an ended call, an approval) to the readers of the process's run, if it runs. */
  publish(processId: number, event: LiveEvent): void {
    this.runs.ofProcess(processId)?.publish(event);
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
    const execution = this.runs.ofProcess(id);
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
    const execution = this.runs.ofProcess(id);
    if (!execution) {
      return { stdout: row.stdout, stderr: row.stderr, approvals: [], done: Promise.resolve(row), close() {} };
    }
    const release = this.seats.take(id);
    const text = execution.addReader(reader);
    const close = () => {
      release();
      execution.removeReader(reader);
    };
    return {
      ...text,
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
    if (this.runs.has(run.processId)) {
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
      services = await this.runs.catalogOf(run.keyId);
    } finally {
      this.starting.delete(pending);
      settle();
    }
    // A kill, or its environment stopping, while the catalog was read found nothing running yet.
    if (pending.canceled !== null) return unrun("canceled", pending.canceled);
    if (run.killRequested()) return unrun("canceled", "canceled");
    const { processId, executionId, code, timeoutMs, keyId } = run;
    const execution = this.runs.start(
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
    this.runs.ofProcess(processId)?.force("canceled", reason);
  }

  /**
   * A stopping host whose time is up: writes still waiting for storage are given up (logged), so the stop can end.
   * On PostgreSQL the runs they belonged to are ended by the reaper or the sweep on another host.
   */
  abandonWrites(): void {
    this.writes.abandon();
  }

  /** A write of a run's rows, retried through storage faults (see run-writes.ts); the queue's host uses it too. */
  durably<T>(run: { processId: number }, what: string, write: () => Promise<T>): Promise<T> {
    return this.writes.durably(run, what, write);
  }

  // ---- environment events --------------------------------------------------------

  /** Waits for every run on this environment to end (an environment switch lets them finish). */
  private async drain(environmentId: string): Promise<void> {
    await Promise.all(
      [...this.starting].filter((run) => run.environmentId === environmentId).map((run) => run.settled),
    );
    await Promise.all(this.runs.unended(environmentId).map((e) => e.done));
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
    const affected = this.runs.unended(environmentId);
    for (const execution of affected) execution.force("canceled", reason);
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

  /** A run this host admitted writes its process row in the store. */
  private storeRecorder(run: RunIds): RunRecorder {
    const { store } = this.options;
    return {
      setState: (state) => store.setState(run.processId, state),
      setRunning: (startedAt) => store.setRunning(run.processId, startedAt),
      finish: (result) => store.finish(run.processId, run.executionId, result),
    };
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
}
