import { createHash } from "node:crypto";
import type {
  EnvironmentAdmission,
  EnvironmentBindings,
  EnvironmentHealth,
  EnvironmentStats,
  ExecutionExitState,
  ExecutionInput,
  InvokeInput,
  Logger,
  ServiceCatalog,
} from "@cyrnel/sdk";
import { type EnvironmentConfig, MAX_TIMEOUT_MS } from "../config.js";
import type { RunRequest, WorkerOptions } from "../ipc.js";
import {
  atCapacity,
  duplicateExecution,
  interruptedByCatastrophe,
  interruptedByExit,
  interruptedByStall,
  logTruncated,
  memoryCatastrophe,
  timedOutInQueue,
  timedOutWhileChecking,
  workerUnavailable,
} from "../messages.js";
import { encodeToolFailure, encodeToolSuccess } from "../tool-outcome.js";
import { CompletionRate } from "./completion-rate.js";
import { ANONYMOUS_CALLER, type CheckOutcome, type CheckProgress, type CheckScope, TypeChecks } from "./type-checks.js";
import { describeExit, type WorkerExit, type WorkerMessage, WorkerProcess } from "./worker-process.js";

interface Tracked extends RunRequest {
  resolve: (exit: ExecutionExitState) => void;
  /** The worker it was dispatched to; null while it waits in the queue. */
  worker: WorkerProcess | null;
  killRequested: boolean;
  /** Ends the execution if it is still queued when its timeoutMs has passed. */
  queueDeadline: NodeJS.Timeout | undefined;
  /** Set while its code is being type-checked (before it joins the queue). */
  checking: boolean;
  /** What its check is doing (for the message of a run that times out in it). */
  progress: CheckProgress;
  /** The streams the worker cut, for a host without `streamDropped` (it gets a marker line once). */
  cut: Set<"stdout" | "stderr">;
}

/** Who submitted the execution, for sharing the type checker fairly (see TypeChecks). */
function callerOf(input: ExecutionInput): string {
  return typeof input.caller === "string" ? input.caller : ANONYMOUS_CALLER;
}

/**
 * Longest the work ahead (each service's declarations prepared before a run needs them) waits for the runs in flight
 * to end before it prepares the next service anyway. Measured on a 2-core machine with five large APIs installed,
 * the first checked run right after a start took 67–81 ms with the work ahead beside it and 42–60 ms without.
 */
const AHEAD_DEFER_MS = 2_000;

/** Longest the setup waits for the type checker to load (on a machine so busy it takes longer, the first check waits). */
const MAX_CHECKER_WAIT_MS = 10_000;
/** Consecutive workers that die before `ready` before the environment gives up. */
const MAX_START_FAILURES = 3;
/** A worker that has not reported `ready` after this long (or the watchdog timeout, if longer) is replaced. */
const START_TIMEOUT_MS = 60_000;
/**
 * Sandbox processes that lost an isolate to V8 (a catastrophe) and are
 * finishing their other executions. Each holds the lost isolate's thread
 * and heap until it ends, so past this many the oldest is ended at once.
 */
const MAX_DRAINING = 2;
/**
 * What one more execution is expected to add to the worker's resident
 * memory until the worker reports again: an isolate with its context and
 * the prelude, awaiting something, measured at ~1.1 MB, rounded up.
 */
const EXECUTION_BYTES = 1.5 * 1024 * 1024;

/**
 * The host-process half of the environment: admission (how many
 * executions the sandbox holds, its memory budget, the bounded queue in
 * front of it), state reporting, the bridge to the host's bindings, and the
 * sandbox process (supervised: replaced whenever it dies or stops
 * responding, and recycled when idle above its memory budget). The worker
 * owns the timeout authority of running executions; the supervisor owns the
 * queue's (a queued execution waits at most its timeoutMs) and decides what
 * an execution that lost its worker ends as.
 *
 * Admission counts executions that are *live* in the sandbox, whatever they
 * are doing: almost all of them are awaiting a tool call or a timer, which
 * costs their isolate's memory but no thread and no CPU. Room is
 * `maxExecutions` and `memoryBudgetMb` (the worker's reported RSS plus an
 * estimate for what was dispatched since); past both the queue, past the
 * queue `admit()` refuses with a Retry-After estimated from recent
 * completions.
 *
 * Watchdog: while the worker has work, it must say something (a run's
 * messages, or the answer to a heartbeat sent every quarter of
 * `watchdogTimeoutMs`). A worker silent for longer is SIGKILLed and
 * replaced like one that died: its running executions fail, the queue stays.
 *
 * A catastrophe (V8 lost an isolate; the worker fails that execution) does
 * not end the worker's other executions, which may be hundreds of waiting
 * ones: the worker is *retired* — a new current worker takes every new
 * execution at once — and drains, and it is ended when its last execution
 * has, taking the lost isolate's parked thread and heap with it.
 */
export class Supervisor {
  /** The worker new executions go to. */
  private worker: WorkerProcess | null = null;
  /** Every worker process still alive: the current one, and retired ones finishing their executions. */
  private readonly workers = new Set<WorkerProcess>();
  private workerReady = false;
  private readonly waiting: Tracked[] = [];
  /** Executions whose code is being type-checked; they count against the queue's size. */
  private readonly checking = new Set<Tracked>();
  private readonly typeChecks: TypeChecks;
  private readonly tracked = new Map<number, Tracked>();
  private closed = false;
  private startFailures = 0;
  private unavailable: string | null = null;
  private readonly workerOptions: WorkerOptions;
  private readonly watchdog: NodeJS.Timeout;
  private readonly completions = new CompletionRate();
  /** The last catalog seen, its sanitised JSON and its check scope: hosts hand the same object to every run until it changes. */
  private catalog: { services: unknown; json: string; scope: CheckScope } | undefined;

  constructor(
    private readonly config: EnvironmentConfig,
    private readonly bindings: EnvironmentBindings,
    private readonly logger: Logger,
  ) {
    this.workerOptions = {
      warmIsolates: config.warmIsolates,
      memoryLimitMb: config.memoryLimitMb,
      memoryBudgetMb: config.memoryBudgetMb,
      maxTimers: config.maxTimers,
      maxPendingToolCalls: config.maxPendingToolCalls,
      maxLogBytes: config.maxLogBytes,
      maxOutputBytes: config.maxOutputBytes,
    };
    this.watchdog = setInterval(() => this.checkProgress(), Math.max(50, config.watchdogTimeoutMs / 4));
    this.watchdog.unref();
    this.typeChecks = new TypeChecks(
      { timeoutMs: config.typecheckTimeoutMs, memoryMb: config.typecheckMemoryMb, threads: config.typecheckThreads },
      bindings,
      logger,
      // The work ahead starts each service once no run is tracked (queued, checked or running), or after a while.
      { busy: () => this.tracked.size > 0, maxDeferMs: AHEAD_DEFER_MS },
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts the first worker; rejects when it cannot start (setup then fails). */
  async start(): Promise<void> {
    // The compiler takes a while to load (~1 s): when code is checked by default, it is loaded while the sandbox
    // process starts, and the setup waits for both, so the host's first checked run does not wait for it. A checker
    // that cannot start does not fail the setup (checks then say why they could not run).
    const checker = this.config.typecheck ? this.typeChecks.warm() : Promise.resolve();
    let waited: NodeJS.Timeout | undefined;
    const enough = new Promise<void>((resolve) => {
      waited = setTimeout(resolve, MAX_CHECKER_WAIT_MS);
    });
    try {
      await Promise.all([this.spawn().ready, Promise.race([checker, enough])]);
    } finally {
      clearTimeout(waited);
    }
  }

  /**
   * Whether `execute` would take one more execution now (into the sandbox or
   * the queue). A sandbox that cannot start is admitted: `execute` then
   * fails the run with the reason, which says more than a 429 would.
   */
  admit(): EnvironmentAdmission {
    if (this.hasRoom()) return { admitted: true };
    return {
      admitted: false,
      retryAfterSeconds: this.completions.retryAfterSeconds(),
      reason: this.capacityReason(),
    };
  }

  /** Counters kept here already: nothing is asked of the sandbox process (see `EnvironmentModule.stats`). */
  stats(): EnvironmentStats {
    let live = 0;
    let rssBytes = 0;
    // Retired workers still finishing their executions hold memory and executions too.
    for (const worker of this.workers) {
      live += worker.running;
      rssBytes += worker.rssBytes;
    }
    return {
      live,
      queued: this.waiting.length + this.checking.size,
      maxLive: this.config.maxExecutions,
      maxQueued: this.config.queueSize,
      rssBytes: this.workers.size === 0 ? null : rssBytes,
    };
  }

  execute(input: ExecutionInput): Promise<ExecutionExitState> {
    const { executionId } = input;
    if (this.unavailable !== null) return this.refuse(executionId, workerUnavailable(this.unavailable));
    if (this.tracked.has(executionId)) return this.refuse(executionId, duplicateExecution(executionId));
    // Only a host that did not ask `admit()` first gets here past capacity.
    if (!this.hasRoom()) return this.refuse(executionId, this.capacityReason());
    const catalog = this.catalogOf(input.services);
    const typecheck = typeof input.options?.typecheck === "boolean" ? input.options.typecheck : this.config.typecheck;
    return new Promise((resolve) => {
      const tracked: Tracked = {
        executionId,
        source: typeof input.code === "string" ? input.code : "",
        servicesJson: catalog.json,
        timeoutMs: this.timeoutOf(input),
        ...replayOf(input),
        resolve,
        worker: null,
        killRequested: false,
        queueDeadline: undefined,
        checking: typecheck,
        progress: { phase: "" },
        cut: new Set(),
      };
      this.tracked.set(executionId, tracked);
      this.report("setState", () => this.bindings.setState(executionId, "queued"));
      if (typecheck) {
        this.checking.add(tracked);
        void this.typeChecks
          .check(tracked.source, catalog.scope, callerOf(input), tracked.progress)
          .then((outcome) => this.checked(tracked, outcome));
      } else {
        this.waiting.push(tracked);
        this.dispatch();
      }
      this.holdHost();
      const { timeoutMs } = tracked;
      if (tracked.worker === null && timeoutMs !== null) {
        tracked.queueDeadline = setTimeout(() => this.expireInQueue(tracked, timeoutMs), timeoutMs);
      }
    });
  }

  /** The check of a queued execution's code ended: it joins the queue, or fails without running. */
  private checked(tracked: Tracked, outcome: CheckOutcome): void {
    this.checking.delete(tracked);
    tracked.checking = false;
    if (this.tracked.get(tracked.executionId) !== tracked) return;
    if (!outcome.run) {
      this.finish(tracked, "failed", outcome.error);
      return;
    }
    for (const note of outcome.notes) {
      this.report("emitStderr", () => this.bindings.emitStderr(tracked.executionId, note));
    }
    this.waiting.push(tracked);
    this.dispatch();
  }

  /**
   * `degraded` while the sandbox process is restarting, cannot start, or has
   * work but has been silent for more than half the watchdog timeout. Reads
   * state only: it must answer at once whatever the sandbox is doing.
   */
  health(): EnvironmentHealth {
    if (this.unavailable !== null) return degraded(`the sandbox process cannot start: ${this.unavailable}`);
    const worker = this.worker;
    if (this.closed) return degraded("the environment has been torn down");
    if (worker === null || !this.workerReady) return degraded("the sandbox process is restarting");
    const silence = performance.now() - worker.lastHeard;
    if (worker.running > 0 && silence > this.config.watchdogTimeoutMs / 2) {
      return degraded(
        `the sandbox process has not responded for ${Math.round(silence)} ms; it is replaced after ${this.config.watchdogTimeoutMs} ms`,
      );
    }
    return { status: "ok" };
  }

  /**
   * The services runs can reach now: their declarations are prepared ahead
   * of the first check that needs them (when code is checked by default).
   */
  prepare(services: unknown): void {
    if (this.closed || !this.config.typecheck) return;
    this.typeChecks.prepareAhead(this.catalogOf(services).scope.services);
  }

  kill(executionId: number): void {
    const tracked = this.tracked.get(executionId);
    if (tracked === undefined) return;
    if (tracked.worker === null) {
      this.leaveQueue(tracked);
      this.finish(tracked, "canceled");
      return;
    }
    tracked.killRequested = true;
    tracked.worker.send({ type: "kill", executionId });
  }

  /**
   * Stops or restarts the clock of a dispatched execution's deadline (the
   * worker owns it). A queued execution makes no tool calls, so it is never
   * suspended; its queue deadline is left alone.
   */
  deadline(executionId: number, change: "pause" | "resume"): void {
    const tracked = this.tracked.get(executionId);
    if (tracked?.worker == null || tracked.killRequested) return;
    tracked.worker.send({ type: change === "pause" ? "pauseDeadline" : "resumeDeadline", executionId });
  }

  /** Cancels everything and ends the worker (which disposes every isolate with it). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    this.waiting.length = 0;
    for (const tracked of [...this.tracked.values()]) this.finish(tracked, "canceled");
    await this.typeChecks.close();
    this.worker = null;
    await Promise.all(
      [...this.workers].map((worker) => {
        worker.retired = true;
        // Awaited: the exit must be seen even if nothing else keeps the host's event loop alive.
        worker.keepAlive(true);
        worker.kill();
        return worker.exited;
      }),
    );
  }

  private spawn(): WorkerProcess {
    const worker = new WorkerProcess(this.workerOptions, (message) => this.onMessage(worker, message));
    this.worker = worker;
    this.workers.add(worker);
    this.workerReady = false;
    worker.ready.then(
      () => {
        if (this.worker !== worker) return;
        this.workerReady = true;
        this.startFailures = 0;
        this.dispatch();
        this.holdHost();
      },
      () => {
        // Reported by onExit below.
      },
    );
    void worker.exited.then((exit) => this.onExit(worker, exit));
    return worker;
  }

  /** Reused while the host passes the same frozen catalog (as cyrnel's host does until its services change). */
  private catalogOf(services: unknown): { json: string; scope: CheckScope } {
    const known = this.catalog;
    if (known !== undefined && known.services === services && Object.isFrozen(services)) return known;
    const catalog = sanitiseCatalog(services);
    const sandboxView: Record<string, { tools: string[] }> = Object.create(null);
    for (const [serviceId, { tools }] of Object.entries(catalog)) sandboxView[serviceId] = { tools };
    const reachable = Object.entries(catalog)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([serviceId, { tools, revision, denied }]) => ({ serviceId, revision, tools, ...(denied && { denied }) }));
    const digest = createHash("sha256").update(JSON.stringify(reachable)).digest("base64");
    this.catalog = { services, json: JSON.stringify(sandboxView), scope: { services: reachable, digest } };
    return this.catalog;
  }

  private hasRoom(): boolean {
    return (
      this.closed ||
      this.unavailable !== null ||
      this.waiting.length + this.checking.size < this.config.queueSize ||
      this.freeWorker() !== null
    );
  }

  private capacityReason(): string {
    const live = this.worker?.running ?? 0;
    return atCapacity(live, this.config.queueSize, live < this.config.maxExecutions);
  }

  /**
   * The current worker, when it can take one more run now: under
   * `maxExecutions` and, by its last reported RSS plus an estimate for what
   * was dispatched since, under the memory budget. A worker without
   * executions always takes one, so that a budget below what an idle
   * sandbox process needs can slow the queue down but never stop it.
   */
  private freeWorker(): WorkerProcess | null {
    const worker = this.worker;
    if (worker === null || !this.workerReady || worker.retired || worker.running >= this.config.maxExecutions) {
      return null;
    }
    const expected = worker.rssBytes + (worker.dispatchedSinceReport + 1) * EXECUTION_BYTES;
    if (worker.running > 0 && expected > this.config.memoryBudgetMb * 1024 * 1024) return null;
    return worker;
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const worker = this.freeWorker();
      if (worker === null) return;
      const tracked = this.waiting.shift() as Tracked;
      // Dispatched: from now on the worker's deadline gives the run its whole timeoutMs.
      clearTimeout(tracked.queueDeadline);
      tracked.worker = worker;
      worker.running++;
      worker.dispatchedSinceReport++;
      worker.dispatched++;
      this.report("setState", () => this.bindings.setState(tracked.executionId, "running"));
      const { executionId, source, servicesJson, timeoutMs, replay } = tracked;
      worker.send({
        type: "run",
        executionId,
        source,
        servicesJson,
        timeoutMs,
        ...(replay === undefined ? {} : { replay }),
      });
    }
  }

  private expireInQueue(tracked: Tracked, timeoutMs: number): void {
    if (tracked.worker !== null) return;
    this.leaveQueue(tracked);
    this.finish(
      tracked,
      "timeout",
      tracked.checking ? timedOutWhileChecking(timeoutMs, tracked.progress.phase) : timedOutInQueue(timeoutMs),
    );
  }

  private leaveQueue(tracked: Tracked): void {
    clearTimeout(tracked.queueDeadline);
    const index = this.waiting.indexOf(tracked);
    if (index !== -1) this.waiting.splice(index, 1);
  }

  /** The watchdog's tick, for every worker that still has work to answer for. */
  private checkProgress(): void {
    for (const worker of this.workers) this.checkWorker(worker);
  }

  /** Replaces a worker that has work but has said nothing for too long, else sends a heartbeat. */
  private checkWorker(worker: WorkerProcess): void {
    if (worker.stalled || (worker.retired && worker.running === 0)) return;
    const now = performance.now();
    if (worker.started && worker.running === 0) {
      // Idle: nothing to make progress on. The silence is counted from when work arrives.
      worker.lastHeard = now;
      return;
    }
    const limit = worker.started
      ? this.config.watchdogTimeoutMs
      : Math.max(this.config.watchdogTimeoutMs, START_TIMEOUT_MS);
    const silence = now - worker.lastHeard;
    if (silence <= limit) {
      if (worker.started) worker.send({ type: "ping" });
      return;
    }
    worker.stalled = true;
    this.logger.error("typescript-ivm: the sandbox process stopped responding; killing and restarting it", {
      silentMs: Math.round(silence),
      running: worker.running,
      started: worker.started,
    });
    worker.kill();
  }

  private onMessage(worker: WorkerProcess, message: WorkerMessage): void {
    if (message.type === "log") {
      this.logger[message.level](message.message, message.fields);
      return;
    }
    if (message.type === "catastrophic") {
      worker.catastrophe = { executionId: message.executionId, message: message.message };
      this.logger.error(
        "typescript-ivm: an isolate hit a catastrophic error; the sandbox process is replaced and ends once its other executions have",
        { executionId: message.executionId, error: message.message, draining: worker.running },
      );
      this.retire(worker);
      return;
    }
    if (message.type === "memory") {
      worker.rssBytes = message.rssBytes;
      worker.dispatchedSinceReport = 0;
      // Idle above budget: what the isolates used is not always given back to the system, so start afresh.
      if (worker.running === 0 && worker.dispatched > 0 && !worker.retired && this.overBudget(worker)) {
        this.logger.info("typescript-ivm: recycling the sandbox process", {
          rssMb: Math.round(message.rssBytes / 1024 / 1024),
        });
        worker.retired = true;
        worker.kill();
        return;
      }
      this.dispatch();
      return;
    }
    const tracked = this.tracked.get(message.executionId);
    const current = tracked?.worker === worker ? tracked : undefined;
    if (message.type === "invoke") {
      this.invokeTool(worker, current, message.callId, message.input);
      return;
    }
    if (message.type === "done") {
      worker.running--;
      if (current) {
        this.completions.record();
        this.finish(current, message.exit);
      }
      if (worker.retired && worker.running === 0) worker.kill();
      else this.dispatch();
      return;
    }
    // What a run that already ended (or ran on a replaced worker) still reports is dropped.
    if (current === undefined) return;
    const { executionId } = message;
    switch (message.type) {
      case "stdout":
        this.report("emitStdout", () => this.bindings.emitStdout(executionId, message.chunk));
        break;
      case "stderr":
        this.report("emitStderr", () => this.bindings.emitStderr(executionId, message.chunk));
        break;
      case "output":
        this.report("emitOutput", () => this.bindings.emitOutput(executionId, message.patch));
        break;
      case "error":
        this.report("setError", () => this.bindings.setError(executionId, message.message));
        break;
      case "replay":
        // Before whatever the run reported after reading these values: the worker sends them first.
        this.report("recordReplay", () => this.bindings.recordReplay?.(executionId, message.entries));
        break;
      case "dropped":
        if (this.bindings.streamDropped) {
          this.report("streamDropped", () => this.bindings.streamDropped?.(executionId, message.stream, message.bytes));
        } else if (!current.cut.has(message.stream)) {
          // A host that cannot mark the cut itself gets the marker line in the stream.
          current.cut.add(message.stream);
          const marker = `\n${logTruncated(message.stream, this.config.maxLogBytes)}`;
          if (message.stream === "stdout")
            this.report("emitStdout", () => this.bindings.emitStdout(executionId, marker));
          else this.report("emitStderr", () => this.bindings.emitStderr(executionId, marker));
        }
        break;
      case "sleeping":
        if (Number.isFinite(message.wakeAt)) {
          this.report("sleeping", () => this.bindings.sleeping?.(executionId, message.wakeAt));
        }
        break;
    }
  }

  private invokeTool(worker: WorkerProcess, tracked: Tracked | undefined, callId: number, input: InvokeInput): void {
    const reply = (outcome: string) => worker.send({ type: "toolResult", callId, outcome });
    if (tracked === undefined) {
      reply(encodeToolFailure(new Error("the execution has ended")));
      return;
    }
    // A binding that throws synchronously is answered like one that rejects.
    new Promise<unknown>((resolve) => resolve(this.bindings.invokeTool(tracked.executionId, input))).then(
      (value) => reply(encodeToolSuccess(value)),
      (error: unknown) => reply(encodeToolFailure(error)),
    );
  }

  /**
   * Takes no new executions from now on; a new current worker takes them at
   * once. Ended when its last execution has (at once without any), or when
   * more than MAX_DRAINING retired workers are still finishing theirs.
   */
  private retire(worker: WorkerProcess): void {
    worker.retired = true;
    if (worker.running === 0) worker.kill();
    if (this.worker === worker && !this.closed) this.spawn();
    const draining = [...this.workers].filter((other) => other.retired && other.running > 0);
    for (const oldest of draining.slice(0, Math.max(0, draining.length - MAX_DRAINING))) oldest.kill();
    this.holdHost();
  }

  private onExit(worker: WorkerProcess, exit: WorkerExit): void {
    this.workers.delete(worker);
    const wasCurrent = this.worker === worker;
    if (wasCurrent) {
      this.worker = null;
      this.workerReady = false;
    }
    for (const tracked of [...this.tracked.values()]) {
      if (tracked.worker !== worker) continue;
      if (tracked.killRequested) this.finish(tracked, "canceled");
      else this.finish(tracked, "failed", this.interruption(worker, tracked, exit));
    }
    if (this.closed || !wasCurrent) return;
    if (!worker.retired && worker.catastrophe === null && !worker.stalled) {
      this.logger.error("typescript-ivm: the sandbox process ended unexpectedly; restarting it", {
        code: exit.code,
        signal: exit.signal,
        stderr: exit.stderrTail,
      });
    }
    if (!worker.started && ++this.startFailures >= MAX_START_FAILURES) {
      this.unavailable = `${describeExit(exit)}${exit.stderrTail === "" ? "" : `: ${exit.stderrTail}`}`;
      this.logger.error("typescript-ivm: the sandbox process cannot start", { error: this.unavailable });
      for (const tracked of this.waiting.splice(0)) this.finish(tracked, "failed", workerUnavailable(this.unavailable));
      return;
    }
    this.spawn();
  }

  private overBudget(worker: WorkerProcess): boolean {
    return worker.rssBytes > this.config.memoryBudgetMb * 1024 * 1024;
  }

  private interruption(worker: WorkerProcess, tracked: Tracked, exit: WorkerExit): string {
    if (worker.stalled) return interruptedByStall(this.config.watchdogTimeoutMs);
    if (worker.catastrophe === null) return interruptedByExit(describeExit(exit));
    if (worker.catastrophe.executionId === tracked.executionId) return memoryCatastrophe(this.config.memoryLimitMb);
    return interruptedByCatastrophe();
  }

  private finish(tracked: Tracked, exit: ExecutionExitState, error?: string): void {
    if (this.tracked.get(tracked.executionId) !== tracked) return;
    this.tracked.delete(tracked.executionId);
    this.checking.delete(tracked);
    clearTimeout(tracked.queueDeadline);
    if (error !== undefined) this.report("setError", () => this.bindings.setError(tracked.executionId, error));
    tracked.resolve(exit);
    this.holdHost();
  }

  /**
   * A worker keeps the host alive only while it starts or has executions to
   * answer for (see WorkerProcess.keepAlive): the current one while any are
   * tracked, a retired one while its own are not over.
   */
  private holdHost(): void {
    for (const worker of this.workers) {
      worker.keepAlive(worker === this.worker ? !this.workerReady || this.tracked.size > 0 : worker.running > 0);
    }
  }

  private refuse(executionId: number, message: string): Promise<ExecutionExitState> {
    this.report("setError", () => this.bindings.setError(executionId, message));
    return Promise.resolve("failed");
  }

  /** Longer than a Node timer can wait (the host refuses those) is clamped rather than firing at once. */
  private timeoutOf(input: ExecutionInput): number | null {
    const requested = input.options?.timeoutMs;
    if (requested === null) return null;
    if (typeof requested === "number" && Number.isFinite(requested) && requested > 0) {
      return Math.min(Math.ceil(requested), MAX_TIMEOUT_MS);
    }
    return this.config.defaultTimeoutMs;
  }

  /** Host bindings must never break the state machine. */
  private report(binding: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error(`typescript-ivm: bindings.${binding} threw`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/**
 * The record a resumed durable run replays (see `ExecutionInput.replay`).
 * Entries are this module's own text handed back; anything but a string
 * becomes an entry the prelude cannot read, so the run ends as a
 * divergence when it gets there rather than replaying something else.
 */
function replayOf(input: ExecutionInput): { replay?: string[] } {
  const entries: unknown = input.replay;
  if (!Array.isArray(entries) || entries.length === 0) return {};
  return { replay: entries.map((entry) => (typeof entry === "string" ? entry : "?")) };
}

function degraded(reason: string): EnvironmentHealth {
  return { status: "degraded", reason };
}

/** Keeps only well-formed entries: the catalog is serialised into the sandbox and checked against. */
function sanitiseCatalog(services: unknown): ServiceCatalog {
  // Null prototype: a service id such as "__proto__" stays an ordinary key.
  const catalog: ServiceCatalog = Object.create(null);
  if (typeof services !== "object" || services === null) return catalog;
  for (const [serviceId, entry] of Object.entries(services)) {
    const { tools, revision, denied } = (entry ?? {}) as { tools?: unknown; revision?: unknown; denied?: unknown };
    const reachable = Array.isArray(tools) ? tools.filter((tool) => typeof tool === "string") : [];
    const deniedTools = Array.isArray(denied) ? denied.filter((tool) => reachable.includes(tool)) : [];
    catalog[serviceId] = {
      tools: reachable,
      revision: typeof revision === "string" ? revision : "",
      ...(deniedTools.length > 0 && { denied: deniedTools }),
    };
  }
  return catalog;
}
