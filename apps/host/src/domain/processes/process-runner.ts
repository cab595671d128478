/**
 * The process API the routes and MCP use: create, run, kill, delete, get,
 * list, wait for, and follow processes. What differs between a host that
 * runs what it admits (SQLite) and hosts sharing the PostgreSQL queue is a
 * `RunPath` (run-path.ts), picked here once; everything else is written
 * once for both:
 *
 * - submissions are checked by `ProcessAdmission` (process-admission.ts);
 * - each run on this host is a `LiveRun` (live-run.ts, its state machine),
 *   kept in `LiveRuns` (live-runs.ts) with the bindings the environment
 *   calls back, its writes retried through storage faults (run-writes.ts);
 * - `follow` is one implementation over the path's live feed;
 * - module events (an environment drained or stopped) end runs the same way.
 */
import type { EnvironmentBindings } from "@cyrnel/sdk";
import type { CallCounts } from "../../contract/governance.js";
import { CyrnelError, messageOf, notFound } from "../../errors.js";
import type { StorageHealth } from "../../lib/storage-faults.js";
import { timerUntil } from "../../lib/timer-until.js";
import type { HostLogger } from "../../log.js";
import { NO_TRACING, type Tracing } from "../../telemetry/tracing.js";
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { ModuleEvents } from "../modules/module-events.js";
import { FollowerSeats } from "./follower-seats.js";
import type { LiveEvent, LivePhase, StreamReader } from "./live-run.js";
import { LiveRuns, type LiveRunsOptions } from "./live-runs.js";
import { LocalPath } from "./local-path.js";
import { type ActiveEnvironment, ProcessAdmission } from "./process-admission.js";
import type { ProcessFilter, ProcessRow, ProcessStore } from "./process-store.js";
import { type ClaimedRun, QueuedPath, type RunQueue } from "./queued-path.js";
import type { RunFeed, RunPath } from "./run-path.js";
import { RunWrites } from "./run-writes.js";

// The runner's surface for its callers (routes, MCP, the process cluster), wherever each part is defined.
export { MAX_TIMEOUT_MS, type RunRecorder } from "./live-run.js";
export type { ClaimedRun, RemoteRun, RunQueue } from "./queued-path.js";

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
  extends Pick<
    LiveRunsOptions,
    | "invokeTool"
    | "catalog"
    | "caller"
    | "serviceTools"
    | "processEvents"
    | "journal"
    | "unknownCalls"
    | "suspendEvictMs"
    | "evicted"
  > {
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
  /**
   * The approvals a process waits for on this host right now, oldest first: the local path's (through the queue a
   * run may wait on any host, and its approvals are read from the approvals table).
   */
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
  /** Where runs' spans go (and whose context a new run continues); absent: none are recorded. */
  tracing?: Tracing;
  /** How many approvals of a run are pending, by the rows (an evicted run resumes once none is). */
  approvalsPendingOfRun?(executionId: number): Promise<number>;
  /** One host: a process's pending approvals by the rows, and expiring them (see `LocalPathOptions`). */
  storedApprovals?(processId: number): Promise<ApprovalSummary[]>;
  expireStoredApprovals?(processId: number, reason: string): Promise<void>;
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
  /** Where runs go: this host's environment, or the queue. */
  private readonly path: RunPath;
  /** The queued path, which also runs what this host takes from the queue (`runClaimed`); null on the local path. */
  private readonly queued: QueuedPath | null;
  /** Live readers this host serves, per process and in all. */
  private readonly seats: FollowerSeats;
  /** Bindings handed to environment modules at setup. */
  readonly bindings: EnvironmentBindings;
  /** One host: the runs let go of while they sleep, each with what cancels the timer that resumes it when due. */
  private readonly sleepers = new Map<number, () => void>();

  /** This host's runs that have not ended, by state (the metrics' gauges). */
  livePhases(): Record<LivePhase, number> {
    return this.runs.countByPhase();
  }

  constructor(private readonly options: ProcessRunnerOptions) {
    const { store, logger, queue } = options;
    const tracing = options.tracing ?? NO_TRACING;
    this.writes = new RunWrites(logger, options.storage);
    this.runs = new LiveRuns({
      ...options,
      writes: this.writes,
      tracing,
      asleep: (run, wakeAt) => this.wakeLater({ ...run, wakeAt: new Date(wakeAt).toISOString() }),
    });
    this.bindings = this.runs.bindings;
    this.admission = new ProcessAdmission(options);
    const parts = { store, admission: this.admission, runs: this.runs, tracing };
    this.queued = queue
      ? new QueuedPath({ ...parts, queue, writes: this.writes, logger, environment: options.environment })
      : null;
    this.path =
      this.queued ??
      new LocalPath({
        ...parts,
        pendingApprovals: options.pendingApprovals,
        journal: options.journal.store,
        forgetSleeper: (processId) => this.forgetSleeper(processId),
        ...(options.storedApprovals && { storedApprovals: options.storedApprovals }),
        ...(options.expireStoredApprovals && { expireStoredApprovals: options.expireStoredApprovals }),
      });
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
    const submission = this.admission.submission(input);
    await this.admission.admitKey(keyId);
    const created = await this.path.create(submission, keyId, input.typecheck);
    // The row as written, when the path has it: queued, so it waits for no approval (views need not ask again).
    return created.row ? (await this.views([created.row]))[0]! : this.get(created.processId);
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
    await this.path.run(row, typecheck);
    return this.get(id);
  }

  async kill(id: number): Promise<ProcessView> {
    const row = await this.get(id);
    if (row.state === "idle") throw new CyrnelError("conflict", `process ${id} is idle; nothing to kill`);
    await this.path.kill(id);
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
   * The approvals of a process changed: while any is pending its run on this host is suspended, with the
   * environment's deadline and the backstop paused; once none is, it runs again with the time it had left.
   */
  setPendingApprovals(processId: number, pending: readonly number[]): void {
    this.runs.ofProcess(processId)?.setPendingApprovals(pending);
  }

  /** Sends a live event (an ended call, an approval) to the readers of the process's run, if it runs here. */
  publish(processId: number, event: LiveEvent): void {
    this.runs.ofProcess(processId)?.publish(event);
  }

  /** Resolves when the process is idle (or right away if it is), or when `signal` aborts. */
  async waitIdle(id: number, signal?: AbortSignal): Promise<ProcessView> {
    await this.path.waitEnded(id, signal);
    return this.get(id);
  }

  /**
   * Live stdout/stderr of a process: what was written so far, then each new
   * chunk (and ended call, and approval) through `reader` until the run ends.
   * An idle process answers its stored text and is done at once. A running
   * process takes at most `limits.followers` live readers on this host (each
   * holds a copy of what it is sent).
   */
  async follow(id: number, reader: StreamReader): Promise<FollowedProcess> {
    const row = await this.get(id);
    if (!this.path.isLive(row)) {
      return { stdout: row.stdout, stderr: row.stderr, approvals: [], done: Promise.resolve(row), close() {} };
    }
    const release = this.seats.take(id);
    // The caller sends the text so far before any later event: events that come before it has this answer wait
    // for the turn of the event loop after it. A reader that fails is dropped; the run goes on.
    let ready = false;
    let open = true;
    const early: LiveEvent[] = [];
    const send = (event: LiveEvent) => {
      if (!open) return;
      if (!ready) {
        early.push(event);
        return;
      }
      try {
        reader(event);
      } catch (error) {
        open = false;
        this.options.logger.warn("a live reader of a process failed; it was dropped", { error: messageOf(error) });
      }
    };
    let feed: RunFeed;
    try {
      feed = await this.path.follow(row, send);
    } catch (error) {
      release();
      throw error;
    }
    setImmediate(() => {
      ready = true;
      for (const event of early.splice(0)) send(event);
    });
    const close = () => {
      open = false;
      release();
      feed.close();
    };
    return {
      stdout: feed.stdout,
      stderr: feed.stderr,
      approvals: feed.approvals,
      done: feed.done.then(() => {
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
   * Runs a run this host took from the process queue (see `QueuedPath.runClaimed`); resolves once it has ended and
   * its final row is written. Only a runner built with a queue is handed any (cluster/process-cluster.ts).
   */
  runClaimed(run: ClaimedRun): Promise<void> {
    if (!this.queued) return Promise.reject(new Error("this host has no process queue to take runs from"));
    return this.queued.runClaimed(run);
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

  /**
   * One host (SQLite), at its start: resumes the runs its last stop left unfinished (`runs`: their processes and
   * executions, oldest first), each from its journal. A run that cannot be resumed ends `failed` (logged).
   */
  async resume(runs: readonly { processId: number; executionId: number; wakeAt?: string | null }[]): Promise<void> {
    if (!(this.path instanceof LocalPath)) return;
    const environment = this.options.environment();
    for (const { processId, executionId, wakeAt } of runs) {
      // A run let go of while it slept resumes when it is due, not before.
      if (wakeAt != null && Date.parse(wakeAt) > Date.now()) {
        this.wakeLater({ processId, executionId, wakeAt });
        continue;
      }
      try {
        await this.path.resume(processId, executionId, environment);
      } catch (error) {
        this.options.logger.error("could not resume a run", { process: processId, error: messageOf(error) });
      }
    }
  }

  /**
   * One host (SQLite): a run let go of while it sleeps is resumed from its journal when it is due (its timer then
   * fires at once, by the replayed clock). With many hosts its job waits in the queue until then instead.
   */
  private wakeLater(run: { processId: number; executionId: number; wakeAt: string }): void {
    if (!(this.path instanceof LocalPath)) return;
    this.forgetSleeper(run.processId);
    const cancel = timerUntil(Date.parse(run.wakeAt), () => {
      this.sleepers.delete(run.processId);
      void this.resume([{ processId: run.processId, executionId: run.executionId }]);
    });
    this.sleepers.set(run.processId, cancel);
  }

  private forgetSleeper(processId: number): void {
    this.sleepers.get(processId)?.();
    this.sleepers.delete(processId);
  }

  /**
   * One host (SQLite): an approval no call of this host waited for was decided or expired. The run it belongs to,
   * evicted while it waited, resumes from its journal once none of its approvals is pending (its call then gets the
   * decision). With many hosts the queue does this (`ProcessCluster.approvalDecided`).
   */
  async approvalSettled(approval: { processId: number; executionId: number | null }): Promise<void> {
    const { executionId, processId } = approval;
    if (!(this.path instanceof LocalPath) || executionId === null || this.runs.has(processId)) return;
    if ((await this.options.approvalsPendingOfRun?.(executionId)) !== 0) return;
    const row = await this.options.store.get(processId);
    if (row?.state !== "suspended") return;
    // Not awaited (the decision's request goes on): the run resumes once the environment has room.
    const path = this.path;
    void path.resume(processId, executionId, this.options.environment()).catch((error) => {
      this.options.logger.error("could not resume a run", { process: processId, error: messageOf(error) });
    });
  }

  /**
   * The host stops: its durable runs are let go of without ending (resumed from their journals at the next start,
   * or by another host through the queue), the rest end `canceled` with `reason`.
   */
  async release(reason: string): Promise<void> {
    // The runs asleep stay as their rows say, for the next start: none is woken while the host stops.
    for (const processId of [...this.sleepers.keys()]) this.forgetSleeper(processId);
    const affected = this.runs.unended(null);
    const left = affected.filter((run) => !run.detach(reason));
    const elsewhere = this.path.cancel(null, reason);
    for (const run of left) run.force("canceled", reason);
    await Promise.all([...affected.map((run) => run.done), elsewhere]);
  }

  /** Cancels every run on this environment (or on all, for shutdown). */
  async cancel(environmentId: string | null, reason: string | null): Promise<void> {
    const elsewhere = this.path.cancel(environmentId, reason ?? "canceled");
    const affected = this.runs.unended(environmentId);
    for (const run of affected) run.force("canceled", reason);
    await Promise.all([...affected.map((run) => run.done), elsewhere]);
  }

  // ---- internals ---------------------------------------------------------------------

  /** Waits for every run on this environment to end (an environment switch lets them finish). */
  private async drain(environmentId: string): Promise<void> {
    await this.path.settled(environmentId);
    await Promise.all(this.runs.unended(environmentId).map((run) => run.done));
  }

  /** Rows as the API shows them: with the approvals they wait for (an idle process waits for none). */
  private async views(rows: ProcessRow[]): Promise<ProcessView[]> {
    const waiting = await this.path.pendingApprovals(rows);
    return rows.map((row) => {
      const approvals = row.state === "idle" ? [] : (waiting.get(row.id) ?? []);
      return { ...row, pendingApprovalIds: approvals.map((approval) => approval.id) };
    });
  }
}
