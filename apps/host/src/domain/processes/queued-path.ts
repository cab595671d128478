/**
 * The queued path (PostgreSQL): every run goes through the durable process
 * queue (cluster/process-cluster.ts), whatever the host's role, and any host
 * that runs processes may take it. Submitting writes the run and its job in
 * one transaction; what may happen on another host — the run's events, its
 * end, a kill, the approvals it waits for — is asked of the database and
 * the other hosts through `RunQueue`.
 *
 * A run this host took from the queue is run by `runClaimed`, on the same
 * `LiveRun` machinery as the local path, with its writes fenced by the
 * claim and its text and events published to readers on every host (its
 * `RunRecorder`).
 */
import type { ExecutionExitState, ServiceCatalog } from "@cyrnel/sdk";
import { CyrnelError, messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import type { TraceCarrier, Tracing } from "../../telemetry/tracing.js";
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { LiveEvent, RunRecorder, StreamReader } from "./live-run.js";
import type { LiveRuns } from "./live-runs.js";
import type { ActiveEnvironment, ProcessAdmission, Submission } from "./process-admission.js";
import type { ProcessRow, ProcessStore, QueuedRunOptions, RunIds } from "./process-store.js";
import type { RunFeed, RunPath } from "./run-path.js";
import type { RunWrites } from "./run-writes.js";

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
  /** The trace context it continues, as the host that queued it wrote it; null: none. */
  trace: TraceCarrier | null;
  /** Which attempt of the run this is: past 1, it resumes from its journal (its host was lost, or let it go). */
  attempt: number;
  recorder: RunRecorder;
}

export interface QueuedPathOptions {
  store: ProcessStore;
  admission: ProcessAdmission;
  runs: LiveRuns;
  queue: RunQueue;
  writes: RunWrites;
  logger: HostLogger;
  /** This host's active environment, or null (a claimed run runs only on the one it was submitted to). */
  environment(): ActiveEnvironment | null;
  /** Whose current context a queued run continues (written with it, for the host that runs it). */
  tracing: Pick<Tracing, "carrier">;
}

/** How often a claimed run that found the environment full asks again for room. */
const ROOM_POLL_MS = 100;

export class QueuedPath implements RunPath {
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

  constructor(private readonly options: QueuedPathOptions) {}

  async create(submission: Submission, keyId: string | null, typecheck: boolean | undefined) {
    const environment = this.admitted(typecheck);
    await this.options.queue.admit();
    return this.options.store.create({ ...submission, keyId }, environment.id, this.queued(typecheck));
  }

  async run(row: ProcessRow, typecheck: boolean | undefined): Promise<void> {
    const environment = this.admitted(typecheck);
    await this.options.queue.admit();
    // Conditional on the process still being idle: a run another host started meanwhile makes this a conflict.
    await this.options.store.startRun(row.id, environment.id, this.queued(typecheck));
  }

  async kill(processId: number): Promise<void> {
    const outcome = await this.options.queue.kill(processId);
    if (outcome === "ended") throw new CyrnelError("conflict", `process ${processId} is idle; nothing to kill`);
    // A run a host has ends once that host stopped it (or, if the host is gone, once the reaper ended it).
    if (outcome === "signal") await this.options.queue.waitEnded(processId);
  }

  waitEnded(processId: number, signal?: AbortSignal): Promise<void> {
    // Wherever the run is, its end reaches this host through the database (see cluster/run-events.ts); an idle
    // process's is there at once.
    return this.options.queue.waitEnded(processId, signal);
  }

  async pendingApprovals(rows: readonly ProcessRow[]): Promise<Map<number, readonly ApprovalSummary[]>> {
    // A run may wait on any host, so its approvals are read from the approvals table; only a run that has started
    // can wait for a decision (queued: not yet; terminating: its approvals expired).
    const live = rows.filter((row) => row.state === "running" || row.state === "suspended").map((row) => row.id);
    return live.length > 0 ? this.options.queue.pendingApprovals(live) : new Map();
  }

  isLive(row: ProcessRow): boolean {
    return row.state !== "idle";
  }

  async follow(row: ProcessRow, send: StreamReader): Promise<RunFeed> {
    const followed = await this.options.queue.follow(row.id, send, true);
    const approvals = (await this.options.queue.pendingApprovals([row.id])).get(row.id) ?? [];
    return {
      stdout: followed.stdout,
      stderr: followed.stderr,
      approvals,
      done: followed.done,
      close: () => void followed.close(),
    };
  }

  cancel(environmentId: string | null, reason: string): Promise<void> {
    // Its runs that still wait in the queue go too, as its queued processes do on one host (not at shutdown: those
    // are for other hosts to take).
    const waiting =
      environmentId !== null ? this.options.queue.cancelWaiting(environmentId, reason) : Promise.resolve();
    if (environmentId !== null) this.stoppedEnvironments.set(environmentId, reason);
    for (const run of this.starting) {
      if (environmentId === null || run.environmentId === environmentId) run.canceled = reason;
    }
    return waiting.catch((error) =>
      this.options.logger.warn("could not cancel the queued runs of a stopped environment", {
        environment: environmentId,
        error: messageOf(error),
      }),
    );
  }

  async settled(environmentId: string): Promise<void> {
    await Promise.all(
      [...this.starting].filter((run) => run.environmentId === environmentId).map((run) => run.settled),
    );
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
    const { runs, writes } = this.options;
    const unrun = (exitState: ExecutionExitState, error: string) => {
      runs.endedUnrun(run.processId, exitState);
      return writes.durably(run, "the end", () =>
        run.recorder.finish({ exitState, error, output: {}, stdout: "", stderr: "" }),
      );
    };
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
    if (runs.has(run.processId)) {
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
    let resume: Awaited<ReturnType<LiveRuns["resumeOf"]>> | undefined;
    try {
      services = await runs.catalogOf(run.keyId);
      // A later attempt resumes the run from its journal (the attempt was begun when the run was queued again).
      if (run.attempt > 1) resume = await runs.resumeOf(run, run.attempt);
    } finally {
      this.starting.delete(pending);
      settle();
    }
    // A kill, or its environment stopping, while the catalog was read found nothing running yet.
    if (pending.canceled !== null) return unrun("canceled", pending.canceled);
    if (run.killRequested()) return unrun("canceled", "canceled");
    // The queue took the run while the environment had room, but runs taken together may have filled it since: the
    // run waits here, claimed, for room rather than be refused (a resumed run's calls were approved already). The
    // check and the start below are one turn, so no other run of this host starts in between.
    while (environment.module.admit?.().admitted === false) {
      await new Promise((resolve) => setTimeout(resolve, ROOM_POLL_MS));
      if (run.killRequested()) return unrun("canceled", "canceled");
    }
    const { processId, executionId, code, timeoutMs, keyId } = run;
    const live = runs.start(
      {
        processId,
        executionId,
        code,
        timeoutMs,
        keyId,
        ...(run.typecheck === null ? {} : { typecheck: run.typecheck }),
        trace: run.trace,
        ...(resume && { resume }),
      },
      environment,
      services,
      run.recorder,
    );
    await live.done;
  }

  /**
   * The active environment, asked whether it takes one more run only when this host runs processes too: from an
   * `api` host the run goes to any host, and the queue's length decides (`RunQueue.admit`).
   */
  private admitted(typecheck: boolean | undefined): ActiveEnvironment {
    return this.options.admission.environment(typecheck, this.options.queue.admitsLocally);
  }

  /** How the run's rows are written: with its job, in one statement. */
  private queued(typecheck: boolean | undefined): QueuedRunOptions {
    return {
      ...(typecheck === undefined ? {} : { typecheck }),
      addJob: this.options.queue.addJob,
      trace: this.options.tracing.carrier(),
    };
  }
}
