/**
 * One run on this host, from its hand-over to the environment until its
 * final row is written: its state machine, and everything of it the host
 * owns. The environment reports `queued` and `running` and resolves with
 * the exit state; the run adds `suspended` and `terminating`, the timeout
 * backstop, the ends the host decides (kill, output cap, backstop), output
 * merging with its caps, its live readers, and the order of its writes.
 * Whether it was admitted here or taken from the queue makes no difference
 * past its `RunRecorder`.
 *
 * Timeouts: a run may wait in the environment's queue at most its
 * `timeoutMs` (then it ends `timeout` without having run), and once running
 * it gets its whole `timeoutMs`. The environment enforces both; the host's
 * backstop ends the run itself if the environment has not, shortly after.
 *
 * Suspension: while a tool call of the run waits for an operator's approval,
 * the run is `suspended` (a host-owned state) and both clocks — the
 * environment's deadline (`pauseDeadline`) and the backstop — stand still;
 * once no call waits any more it is `running` again with the time it had.
 *
 * Ending, however it ends: the tool calls still in flight are aborted, what
 * they wait for expires (awaited), then the writes made so far land, then
 * the final row; until that row is written, readers of the process are
 * shown the live run.
 */
import type { EnvironmentModule, ExecutionExitState, ExecutionState, ServiceCatalog } from "@cyrnel/sdk";
import type { ProcessEvent } from "../../contract/processes.js";
import { messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import type { RunSpan, TraceCarrier, Tracing } from "../../telemetry/tracing.js";
import { CappedText } from "./capped-text.js";
import type { JournalRecord, JournalStore } from "./journal-store.js";
import { MergedOutput } from "./merged-output.js";
import type { ProcessEvents } from "./process-events.js";
import type { ProcessResult, ProcessState } from "./process-store.js";
import { RunJournal } from "./run-journal.js";
import type { RunWrites } from "./run-writes.js";

/** The longest delay a Node timer takes (about 24.8 days); a longer `timeoutMs` would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export type StreamName = "stdout" | "stderr";
/** The states of a run that has not ended. */
export type LivePhase = ExecutionState | "terminating" | "suspended";
/** What a live reader is sent while a run goes on: chunks of stdout and stderr, ended calls, approvals. */
export type LiveEvent = Exclude<ProcessEvent, { type: "end" }>;
export type StreamReader = (event: LiveEvent) => void;

/**
 * Where a run's state, text and end go. A run this host admitted writes the store; a run taken from the queue
 * writes only while its claim holds (a host that was reaped must not overwrite what the reaper wrote) and sends its
 * text and events to readers on every host.
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
  /**
   * The host let go of the run without ending it (see `LiveRun.detach`): a run taken from the queue goes back in
   * it, for any host to resume; a run this host admitted stays as its rows are, for this host's next start.
   */
  release?(): Promise<void>;
  /**
   * The host evicted the run while it waits for an approval (`CYRNEL_SUSPEND_EVICT_MS`): a run taken from the queue
   * is let go of without a job, to be queued again once its approvals are decided.
   */
  evict?(): Promise<void>;
  /**
   * The host let go of the run while it sleeps (it waits for nothing but a timer, due at `wakeAt`, ISO): it is
   * resumed from its journal when it is due, on this host (one host) or through the queue (many).
   */
  sleep?(wakeAt: string): Promise<void>;
}

/** A run whose rows are written, as it is handed to the environment. */
export interface RunToStart {
  processId: number;
  executionId: number;
  code: string;
  timeoutMs: number | null;
  /** The process's key: who its tool calls run as, and its turn in what the environment shares between callers. */
  keyId: string | null;
  typecheck?: boolean;
  /** The trace context the run continues (the request that created it, maybe on another host); null: none. */
  trace: TraceCarrier | null;
  /** Set when the run resumes an earlier attempt (run-journal.ts): which attempt this is, and what was journaled. */
  resume?: { attempt: number; record: JournalRecord };
}

/** What every run on this host shares. */
export interface LiveRunContext {
  logger: HostLogger;
  /** `CYRNEL_PROCESS_STREAM_LIMIT_BYTES` and `CYRNEL_PROCESS_OUTPUT_LIMIT_BYTES`. */
  limits: { streamBytes: number; outputBytes: number };
  writes: RunWrites;
  /** Where the run tells that it ends (`runEnding`, awaited: what its calls still wait for expires). */
  processEvents: ProcessEvents;
  /** Where the runs' spans go. */
  tracing: Tracing;
  /** Where runs journal their calls (durable runs), and the most each may journal (`CYRNEL_JOURNAL_LIMIT_BYTES`). */
  journal: { store: JournalStore; limitBytes: number };
  /**
   * `CYRNEL_SUSPEND_EVICT_MS`: how long a run waits for an approval holding its sandbox before it is evicted; a run
   * that sleeps longer than this (and than a second) is evicted at once.
   */
  suspendEvictMs: number;
}

/** Where the host keeps its runs: told when a run has ended, and when its final row is written. */
export interface RunRegistry {
  ended(run: LiveRun): void;
  recorded(run: LiveRun): void;
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
/** A run is let go of while it sleeps only for longer than this (and `CYRNEL_SUSPEND_EVICT_MS`): no churn. */
const MIN_SLEEP_EVICT_MS = 1_000;

export class LiveRun {
  readonly processId: number;
  readonly executionId: number;
  readonly keyId: string | null;
  readonly environmentId: string;
  /** The run's span, from its hand-over until its final row is written; its tool calls' spans are children. */
  readonly span: RunSpan;
  /** Resolves once the run has ended and its final row is written (or given up). */
  readonly done: Promise<void>;
  /** What the run's calls and its environment's values are journaled in, and a resumed run answered from. */
  readonly journal: RunJournal;
  private state: ExecutionState | "terminating" | "suspended" = "queued";
  private readonly environment: EnvironmentModule;
  private readonly stdout: CappedText;
  private readonly stderr: CappedText;
  private readonly output: MergedOutput;
  private error: string | null = null;
  /** Set when the host decided how the run ends (kill, timeout backstop, output cap). */
  private forced: { exitState: ExecutionExitState; error: string | null } | null = null;
  /** Set once the run is over (reported or decided): later reports of the environment change nothing. */
  private ended = false;
  /** Set once its code started (it was `running`): a run that ends without it never ran (a queue timeout). */
  private ran = false;
  /**
   * Set when the host lets go of the run without ending it (it stops, or evicts a run that waits for an approval):
   * no final row is written, and the run is resumed from its journal later.
   */
  private detached: string | null = null;
  /** Set when the run was let go of because it waited too long for an approval (see `evict`). */
  private evicted = false;
  /** Set when the run was let go of while it slept: when it is due to resume (ms since the epoch). */
  private sleptUntil: number | null = null;
  private evictTimer: NodeJS.Timeout | undefined;
  private backstop: NodeJS.Timeout | undefined;
  /** When the backstop fires (`performance.now()` time) while its clock runs; what it then says. */
  private backstopDue: { at: number; message: string } | null = null;
  /** The backstop's time left while the run is suspended. */
  private backstopPaused: { remainingMs: number; message: string } | null = null;
  /** Live readers of the run's events (`follow`). */
  private readonly readers = new Set<StreamReader>();
  /**
   * The run's writes to its process row, in the order they were made: the database may take them on different
   * connections, and a state written after the results would undo them. The results wait for the rest.
   */
  private writes: Promise<void> = Promise.resolve();
  /** Expiring the approvals it waited for, once a kill or a deadline ended it (awaited before its results). */
  private approvalsEnding: Promise<void> = Promise.resolve();
  /** Aborted when the run ends, however it ends: its tool calls still in flight are canceled (`CallContext.ended`). */
  private readonly calls = new AbortController();
  private resolveDone!: () => void;

  constructor(
    private readonly run: RunToStart,
    environment: { id: string; module: EnvironmentModule },
    private readonly recorder: RunRecorder,
    private readonly context: LiveRunContext,
    private readonly registry: RunRegistry,
  ) {
    this.processId = run.processId;
    this.executionId = run.executionId;
    this.keyId = run.keyId;
    this.environmentId = environment.id;
    this.environment = environment.module;
    this.span = context.tracing.startRun({
      processId: run.processId,
      executionId: run.executionId,
      environmentId: environment.id,
      keyId: run.keyId,
      parent: run.trace,
    });
    this.stdout = new CappedText(context.limits.streamBytes, "stdout");
    this.stderr = new CappedText(context.limits.streamBytes, "stderr");
    this.output = new MergedOutput(context.limits.outputBytes);
    this.done = new Promise<void>((resolve) => {
      this.resolveDone = resolve;
    });
    this.journal = new RunJournal({
      store: context.journal.store,
      logger: context.logger,
      executionId: run.executionId,
      attempt: run.resume?.attempt ?? 1,
      record: run.resume?.record ?? null,
      limitBytes: context.journal.limitBytes,
      diverged: (message) => this.force("failed", message),
    });
  }

  /** Hands the run to the environment; its registry knows it already (the environment may call back at once). */
  start(services: ServiceCatalog): void {
    const { processId, executionId, timeoutMs, keyId, resume } = this.run;
    // A resumed run's code passed its checks on its first attempt; its journal's values are handed back.
    const typecheck = resume === undefined ? this.run.typecheck : false;
    // Queued: the environment may keep the run waiting at most its timeoutMs.
    // The environment holds it (queued for room, or in its type check) and should have ended it itself by now.
    this.armBackstop(
      `timed out after ${timeoutMs} ms before its code started (the environment held it queued or in its type check past its deadline); the code never ran`,
    );
    this.environment
      .execute({
        executionId,
        processId,
        code: this.run.code,
        options: { timeoutMs, ...(typecheck === undefined ? {} : { typecheck }) },
        services,
        caller: keyId ?? UNKEYED_CALLER,
        ...(resume !== undefined && { replay: resume.record.replay }),
      })
      .then(
        (exitState) => this.finish(exitState),
        (error) => {
          this.error ??= `environment failed: ${messageOf(error)}`;
          this.finish("failed");
        },
      );
  }

  // ---- what the environment reports ----------------------------------------------------

  /** Whether its code may call tools: a suspended run still does (its other promises go on while one waits). */
  get makesCalls(): boolean {
    return this.state === "running" || this.state === "suspended";
  }

  /** Where the run is now (for the host's metrics: runs by state). */
  get phase(): LivePhase {
    return this.state;
  }

  /** Aborted once the run ends: its calls in flight are canceled. */
  get callsEnded(): AbortSignal {
    return this.calls.signal;
  }

  setState(state: ExecutionState): void {
    if (this.state === "terminating" || this.state === "suspended") return;
    if (this.state === state) return;
    if (state !== "queued" && state !== "running") return;
    this.state = state;
    if (state === "running") this.ran = true;
    const startedAt = new Date().toISOString();
    this.persist(() => (state === "running" ? this.recorder.setRunning(startedAt) : this.recorder.setState(state)));
    // Running: the whole timeoutMs again, however long the run was queued.
    if (state === "running") this.armBackstop(`timed out after ${this.run.timeoutMs} ms`);
  }

  setError(message: string): void {
    this.error = String(message).slice(0, 64 * 1024);
  }

  /** Text of a stream: kept up to its cap, written on, and sent to the readers. */
  emit(stream: StreamName, chunk: string): void {
    const text = this[stream].append(String(chunk));
    if (text === "") return;
    this.recorder.write?.(stream, text);
    this.deliver({ type: stream, text });
  }

  /** The environment cut a stream at its own cap and has dropped `bytes` of it so far (a total). */
  streamDropped(stream: StreamName, bytes: number): void {
    const text = this[stream].droppedElsewhere(bytes);
    if (text === "") return;
    this.recorder.write?.(stream, text);
    this.deliver({ type: stream, text });
  }

  /** A patch of the output; past the output cap the run ends `failed`. */
  mergeOutput(patch: Record<string, unknown>): void {
    if (this.forced) return;
    if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return;
    if (!this.output.merge(patch)) {
      this.force("failed", `output exceeds the limit of ${this.context.limits.outputBytes} bytes`);
    }
  }

  // ---- what the host decides -----------------------------------------------------------

  /**
   * Its approvals changed: while any is pending the run is suspended, with
   * the environment's deadline and the backstop paused; once none is, it
   * runs again with the time it had left.
   */
  setPendingApprovals(pending: readonly number[]): void {
    if (this.forced) return;
    if (pending.length > 0 && this.state === "running") {
      this.state = "suspended";
      this.persist(() => this.recorder.setState("suspended"));
      this.pauseBackstop();
      this.tellEnvironment("pauseDeadline");
      clearTimeout(this.evictTimer);
      this.evictTimer = setTimeout(() => this.evict(), this.context.suspendEvictMs);
      this.evictTimer.unref();
    } else if (pending.length === 0 && this.state === "suspended") {
      clearTimeout(this.evictTimer);
      this.state = "running";
      this.persist(() => this.recorder.setState("running"));
      this.tellEnvironment("resumeDeadline");
      this.resumeBackstop();
    }
  }

  /** Sends an event of the run (an ended call, an approval) to its readers here and, through its recorder, elsewhere. */
  publish(event: LiveEvent): void {
    this.deliver(event);
    this.recorder.publish?.(event);
  }

  /** A live reader (one that never throws): the text so far; every later event goes to it until it is removed. */
  addReader(reader: StreamReader): { stdout: string; stderr: string } {
    this.readers.add(reader);
    return { stdout: this.stdout.toString(), stderr: this.stderr.toString() };
  }

  removeReader(reader: StreamReader): void {
    this.readers.delete(reader);
  }

  /**
   * The host lets go of the run without ending it (it stops, or evicts a run that waits): its calls in flight are
   * aborted (they stay `started` in its journal), the environment stops it, and no final row is written — the
   * process stays as it is, to be resumed from its journal. Returns false, doing nothing, for a run that is not
   * durable (or already ending): the caller ends it instead.
   */
  detach(reason: string): boolean {
    if (this.forced || this.ended) return false;
    if (!this.journal.isDurable) return false;
    this.detached = reason;
    this.forced = { exitState: "canceled", error: reason };
    this.calls.abort();
    this.approvalsEnding = this.context.processEvents
      .emit("runDetached", { processId: this.processId })
      .catch(() => {});
    this.environment.kill(this.executionId).catch((failure) => {
      this.context.logger.error("environment kill failed", { execution: this.executionId, error: messageOf(failure) });
    });
    setTimeout(() => this.finish("canceled"), KILL_GRACE_MS).unref();
    return true;
  }

  /**
   * The run has waited `CYRNEL_SUSPEND_EVICT_MS` for an approval: it stops holding a sandbox. It is let go of like
   * at a stop, its process stays `suspended`, and it resumes from its journal once its approvals are decided.
   */
  private evict(): void {
    if (this.state !== "suspended" || this.forced || this.ended) return;
    if (this.detach("evicted while it waits for an approval")) this.evicted = true;
  }

  /**
   * The environment says the run waits for nothing but its timers, the first due at `wakeAt` (ms since the epoch):
   * nothing but a kill or its deadline can change that before then. A durable run that sleeps longer than the
   * eviction delay is let go of at once, holding nothing, and resumed from its journal when it is due; one whose
   * deadline comes first keeps its sandbox and times out there.
   */
  sleeping(wakeAt: number): void {
    if (this.state !== "running" || this.forced || this.ended) return;
    const sleepMs = wakeAt - Date.now();
    if (!(sleepMs > Math.max(this.context.suspendEvictMs, MIN_SLEEP_EVICT_MS))) return;
    const due = this.backstopDue;
    if (due !== null && due.at - TIMEOUT_BACKSTOP_MS <= performance.now() + sleepMs) return;
    if (this.detach(`evicted while it sleeps until ${new Date(wakeAt).toISOString()}`)) this.sleptUntil = wakeAt;
  }

  /** When the run let go of while it slept is due to resume (ms since the epoch); null: it was not. */
  get sleepsUntil(): number | null {
    return this.sleptUntil;
  }

  /** Whether the run was evicted while it waited for an approval (and its final row is not written). */
  get wasEvicted(): boolean {
    return this.evicted;
  }

  /** Why the host let go of the run without ending it (see `detach`); null: it did not. */
  get detachedFor(): string | null {
    return this.detached;
  }

  /** The host decides how the run ends: tell the environment to stop, and stop waiting for it after a grace period. */
  force(exitState: ExecutionExitState, error: string | null, graceMs = KILL_GRACE_MS): void {
    if (this.forced || this.ended) return;
    this.forced = { exitState, error };
    // Its calls still at their adapters are aborted now: nobody will read their answers.
    this.calls.abort();
    if (this.state === "running" || this.state === "suspended") {
      this.state = "terminating";
      this.persist(() => this.recorder.setState("terminating"));
    }
    // At once, not when the environment confirms: the operator should not be asked about a call nobody awaits.
    this.approvalsEnding = this.endApprovals(
      exitState === "canceled" ? "the process was canceled" : `the process ended (${exitState})`,
    );
    this.environment.kill(this.executionId).catch((failure) => {
      this.context.logger.error("environment kill failed", { execution: this.executionId, error: messageOf(failure) });
    });
    if (graceMs === 0) this.finish(exitState);
    else setTimeout(() => this.finish(exitState), graceMs).unref();
  }

  // ---- internals ---------------------------------------------------------------------

  /** Readers never throw: `ProcessRunner.follow` catches its reader's failures. */
  private deliver(event: LiveEvent): void {
    for (const reader of this.readers) reader(event);
  }

  /** An optional environment hook, which must not take the host down with it. */
  private tellEnvironment(hook: "pauseDeadline" | "resumeDeadline"): void {
    try {
      this.environment[hook]?.(this.executionId);
    } catch (error) {
      this.context.logger.warn(`environment ${hook} failed`, { execution: this.executionId, error: messageOf(error) });
    }
  }

  /**
   * The environment owns the deadline of the current phase (queued, then
   * running); this only fires if it failed to enforce it. No grace then: the
   * run ends at once.
   */
  private armBackstop(
    message: string,
    delay = this.run.timeoutMs === null ? null : this.run.timeoutMs + TIMEOUT_BACKSTOP_MS,
  ): void {
    clearTimeout(this.backstop);
    this.backstopDue = null;
    this.backstopPaused = null;
    if (delay === null) return;
    const ms = Math.min(delay, MAX_TIMEOUT_MS);
    this.backstopDue = { at: performance.now() + ms, message };
    this.backstop = setTimeout(() => this.force("timeout", message, 0), ms);
  }

  private pauseBackstop(): void {
    const due = this.backstopDue;
    if (due === null) return;
    clearTimeout(this.backstop);
    this.backstopDue = null;
    this.backstopPaused = { remainingMs: Math.max(0, due.at - performance.now()), message: due.message };
  }

  private resumeBackstop(): void {
    const paused = this.backstopPaused;
    if (paused !== null) this.armBackstop(paused.message, paused.remainingMs);
  }

  /** Expires what the run's calls still wait for; a failure there must not keep the run from ending. */
  private endApprovals(reason: string): Promise<void> {
    return this.context.processEvents.emit("runEnding", { processId: this.processId, reason }).catch((error) => {
      this.context.logger.warn("could not expire the approvals of an ended process", {
        process: this.processId,
        error: messageOf(error),
      });
    });
  }

  /** Queues a write of the run's process row behind its earlier ones; a failure is logged, not thrown. */
  private persist(write: () => Promise<void>): void {
    this.writes = this.writes
      .then(() => this.context.writes.durably(this, "the state", write))
      .catch((error) => {
        this.context.logger.warn("could not record the state of a process", {
          process: this.processId,
          error: messageOf(error),
        });
      });
  }

  /** The run is over (as the environment reports, or as the host decided): once. */
  private finish(exitState: ExecutionExitState): void {
    if (this.ended) return;
    // Resolved once the results are written: whoever waits reads them next.
    void this.complete(exitState).then(this.resolveDone);
  }

  private async complete(reported: ExecutionExitState): Promise<void> {
    clearTimeout(this.backstop);
    clearTimeout(this.evictTimer);
    const exitState = this.forced?.exitState ?? reported;
    const ran = this.ran;
    this.ended = true;
    this.registry.ended(this);
    if (this.detached !== null) {
      // Let go, not ended: what the environment recorded is kept, the process row stays for the resumed attempt.
      await this.approvalsEnding;
      await this.journal.flushReplay().catch(() => {});
      await this.writes;
      const { recorder, sleptUntil } = this;
      const release =
        sleptUntil !== null
          ? recorder.sleep && (() => recorder.sleep?.(new Date(sleptUntil).toISOString()))
          : this.evicted
            ? recorder.evict?.bind(recorder)
            : recorder.release?.bind(recorder);
      if (release) {
        await this.context.writes
          .durably(this, "the release", async () => {
            await release();
          })
          .catch((failure) => {
            this.context.logger.warn("could not put a run back in the queue", {
              process: this.processId,
              error: messageOf(failure),
            });
          });
      }
      this.span.end("canceled", this.detached);
      this.registry.recorded(this);
      return;
    }
    this.context.processEvents.notice("runEnded", { processId: this.processId, exitState, ran });
    // A run that ended without awaiting its calls: they are aborted too.
    this.calls.abort();
    // A run that ended without awaiting a call that waits for approval; whoever waits for the end sees them expired.
    // After a kill's or a deadline's own expiry, which says why.
    const approvalsEnded = this.approvalsEnding.then(() => this.endApprovals(`the process ended (${exitState})`));
    const error =
      this.forced?.error ??
      (exitState === "success" ? null : (this.error ?? defaultError(exitState, this.run.timeoutMs)));
    const result = {
      exitState,
      error,
      output: this.output.value(),
      stdout: this.stdout.toString(),
      stderr: this.stderr.toString(),
    };
    try {
      await approvalsEnded;
      await this.writes;
      await this.context.writes.durably(this, "the end", () => this.recorder.finish(result));
    } catch (failure) {
      // The process may have been deleted meanwhile, or a stopping host gave up waiting for storage.
      this.context.logger.warn("could not record the end of a process", {
        process: this.processId,
        error: messageOf(failure),
      });
    }
    this.span.end(exitState, error);
    // Until the results are written, readers of the process are shown the live run (its text, its end to wait for).
    this.registry.recorded(this);
  }
}

function defaultError(exitState: ExecutionExitState, timeoutMs: number | null): string | null {
  if (exitState === "timeout") return `timed out after ${timeoutMs} ms`;
  if (exitState === "canceled") return "canceled";
  return "failed without a message from the environment";
}
