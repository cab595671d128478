import type { ExecutionExitState, Logger } from "@cyrnel/sdk";
import type ivm from "isolated-vm";
import type { RunRequest, WorkerOptions } from "../ipc.js";
import {
  clampMessage,
  isolateFailed,
  memoryLimitExceeded,
  timedOut,
  unhandledRejection,
  type Wait,
  type Where,
} from "../messages.js";
import type { HostDelivery, PreludeLimits } from "../sandbox/protocol.js";
import { describeCompileError, USER_LINE_OFFSET } from "../transpile.js";
import { type BridgeLimits, type BridgeOwner, HostBridge, type RunReporter } from "./host-bridge.js";
import { ReplayOrder } from "./replay-order.js";
import type { FreshIsolate } from "./warm-isolates.js";

/** The file name user code is compiled under; it shows up in stack traces as `code.ts:line:column`. */
const USER_FILENAME = "code.ts";

/** V8's compiler errors come out of isolated-vm as `message [code.ts:line:column]`; a SyntaxError thrown by running code does not. */
function isCompileError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    error.name === "SyntaxError" &&
    error.message.endsWith("]") &&
    error.message.includes(` [${USER_FILENAME}:`)
  );
}

export interface ExecutionSettings extends BridgeLimits {
  memoryLimitMb: number;
  /** JSON {@link PreludeLimits}: the same for every run of the worker, so serialised once. */
  preludeLimitsJson: string;
}

/** The settings every execution of a worker shares, derived once from the worker's options. */
export function executionSettings(options: WorkerOptions): ExecutionSettings {
  const limits: PreludeLimits = {
    maxTimers: options.maxTimers,
    maxLogChars: options.maxLogBytes,
    maxOutputChars: options.maxOutputBytes,
    userFilename: USER_FILENAME,
  };
  return { ...options, preludeLimitsJson: JSON.stringify(limits) };
}

export interface ExecutionRequest extends RunRequest {
  /** `source` transpiled and wrapped by transpile.ts (`source` stays for error positions). */
  code: string;
}

/** Called once the run is over with its isolate, which is then disposed (never reused). */
export type ReleaseIsolate = (isolate: ivm.Isolate) => void;

type Phase = "queued" | "running" | "settled";

/** How long a timed-out run's isolate has to answer whether it is idle, and then what it waits for. */
const PROBE_MS = 50;

/** `promise`'s value if it settles within {@link PROBE_MS} (undefined otherwise, or when it rejects). */
function withinProbe<T>(promise: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), PROBE_MS);
  });
  return Promise.race([promise.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/** The prelude's JSON list of what the program waits for; anything else is nothing known. */
function parseWaits(answer: unknown): Wait[] {
  try {
    const parsed: unknown = typeof answer === "string" ? JSON.parse(answer) : [];
    return Array.isArray(parsed)
      ? parsed
          .filter((wait): wait is Wait => typeof wait?.what === "string" && typeof wait?.at === "string")
          .map(({ what, at }) => ({ what: what.slice(0, 200), at: at.slice(0, 200) }))
      : [];
  } catch {
    return [];
  }
}

/** How long a run's wait must stay as it is before the isolate is asked whether it is idle (a burst settles first). */
const SLEEP_SETTLE_MS = 100;
/** Shorter sleeps are not reported: no host lets go of a run for less. */
const MIN_REPORTED_SLEEP_MS = 1_000;

/**
 * One run of user code, from queued to its exit state. It owns the single
 * timeout authority: a wall-clock deadline armed when the run starts, which
 * disposes the isolate. That covers synchronous loops as well as code that
 * awaits forever (isolated-vm's own `timeout` option only covers the former,
 * so it is not used at all). The host may pause its clock while the run is
 * suspended (a tool call waiting for an operator's approval).
 */
export class Execution implements BridgeOwner {
  readonly executionId: number;
  /** Resolves with the exit state; `setError` has been called before it resolves. */
  readonly done: Promise<ExecutionExitState>;
  private resolveDone: (state: ExecutionExitState) => void = () => {};
  private phase: Phase = "queued";
  private isolate: ivm.Isolate | null = null;
  private releaseIsolate: ReleaseIsolate | null = null;
  private deadline: NodeJS.Timeout | undefined;
  /** When the deadline fires (`performance.now()` time), while its clock runs. */
  private deadlineAt: number | null = null;
  /** Time left on a paused deadline; null while its clock runs or there is none. */
  private pausedRemainingMs: number | null = null;
  private deliverRef: ivm.Reference | null = null;
  private waitingForRef: ivm.Reference | null = null;
  private readonly bridge: HostBridge;
  /** On a resumed durable run: holds deliveries back to the order its record has. */
  private readonly order: ReplayOrder | null;
  private context: ivm.Context | null = null;
  /** Deliveries handed to the isolate that it has not finished running yet. */
  private deliveriesRunning = 0;
  /** The pending check of whether the run sleeps (see `waitChanged`). */
  private sleepCheck: NodeJS.Timeout | undefined;
  /** The wake-up time last reported (`RunReporter.sleeping`), so a sleep is reported once. */
  private reportedWake: number | null = null;

  constructor(
    private readonly request: ExecutionRequest,
    private readonly settings: ExecutionSettings,
    private readonly reporter: RunReporter,
    logger: Logger,
  ) {
    this.executionId = request.executionId;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.bridge = new HostBridge(this, reporter, settings, logger);
    const replay = request.replay ?? [];
    this.order =
      replay.length === 0 ? null : new ReplayOrder(replay, (kind, id, payload) => this.push(kind, id, payload));
  }

  isRunning(): boolean {
    return this.phase === "running";
  }

  /** Runs in `fresh`, whose isolate goes to `releaseIsolate` (to be disposed) after the run settles. */
  start(fresh: FreshIsolate, releaseIsolate: ReleaseIsolate): void {
    if (this.phase !== "queued") {
      releaseIsolate(fresh.isolate);
      return;
    }
    this.phase = "running";
    this.isolate = fresh.isolate;
    this.releaseIsolate = releaseIsolate;
    if (this.request.timeoutMs !== null) this.armDeadline(this.request.timeoutMs);
    void this.runInIsolate(fresh);
  }

  /**
   * Stops the deadline's clock, keeping the time left: the host suspends a
   * run while a tool call of it waits for an operator's approval, and that
   * wait is not the code's time. The run goes on (timers, other calls).
   */
  pauseDeadline(): void {
    if (!this.isRunning() || this.deadlineAt === null) return;
    clearTimeout(this.deadline);
    this.pausedRemainingMs = Math.max(0, this.deadlineAt - performance.now());
    this.deadlineAt = null;
  }

  /** Restarts the clock `pauseDeadline` stopped, with the time the run had left. */
  resumeDeadline(): void {
    if (!this.isRunning() || this.pausedRemainingMs === null) return;
    const remaining = this.pausedRemainingMs;
    this.pausedRemainingMs = null;
    this.armDeadline(remaining);
  }

  private armDeadline(ms: number): void {
    const { timeoutMs } = this.request;
    this.deadlineAt = performance.now() + ms;
    this.deadline = setTimeout(() => void this.timeOut(timeoutMs ?? ms), ms);
  }

  /** Kill: a run that has not started just ends; a running one loses its isolate. */
  cancel(): void {
    this.settle("canceled");
  }

  /**
   * The deadline passed: the run ends `timeout`, saying where it was. The
   * isolate is asked, without waiting on it, whether it is idle: if it answers
   * within {@link PROBE_MS} the program was awaiting, and the prelude lists
   * what (tool calls in flight, timers) with the lines that started them;
   * otherwise it was running without awaiting (a loop), which no call into
   * the isolate can interrupt to ask where.
   */
  private async timeOut(timeoutMs: number): Promise<void> {
    const context = this.context;
    const waitingFor = this.waitingForRef;
    let where: Where = { busy: false, waits: [] };
    if (context !== null && waitingFor !== null) {
      const idle = await withinProbe(context.eval("0").then(() => true));
      if (!this.isRunning()) return;
      if (idle !== true) where = { busy: true, waits: [] };
      else {
        const answer = await withinProbe(waitingFor.apply(undefined, [], { result: { copy: true } }));
        if (!this.isRunning()) return;
        where = { busy: false, waits: parseWaits(answer) };
      }
    }
    this.settle("timeout", timedOut(timeoutMs, where));
  }

  /** Ends the run as `failed`: a syntax error before it ran, or a limit enforced on the host side. */
  fail(message: string): void {
    this.settle("failed", message);
  }

  deliver(kind: HostDelivery, id: number, payload: string): void {
    if (this.order === null) void this.push(kind, id, payload);
    else this.order.offer(kind, id, payload);
  }

  firesOnTurn(timerId: number): boolean {
    return this.order?.firesOnTurn(timerId) ?? false;
  }

  /**
   * What the run waits for changed: once it has stayed as it is for a moment, check whether the run now sleeps —
   * waits for timers only, its isolate idle — and report when it wakes (`RunReporter.sleeping`; durable runs: the
   * host may let go of a run that sleeps long and resume it by replay when it is due).
   */
  waitChanged(): void {
    if (!this.isRunning()) return;
    clearTimeout(this.sleepCheck);
    this.sleepCheck = setTimeout(() => void this.checkSleep(), SLEEP_SETTLE_MS);
  }

  private async checkSleep(): Promise<void> {
    const context = this.context;
    // Replaying, the run is not where it was: it reports its sleep once it is live again.
    if (!this.isRunning() || context === null || !(this.order?.done ?? true)) return;
    const wakeAt = this.bridge.timersOnlyUntil();
    if (wakeAt === null || this.deliveriesRunning > 0 || wakeAt === this.reportedWake) return;
    if (wakeAt - Date.now() < MIN_REPORTED_SLEEP_MS) return;
    const crossings = this.bridge.crossings;
    // Runs once the isolate is free: code still running (a loop after it set its timer) is not asleep until it ends.
    try {
      await context.eval("0");
    } catch {
      return;
    }
    if (!this.isRunning() || this.deliveriesRunning > 0 || this.bridge.crossings !== crossings) return;
    if (this.bridge.timersOnlyUntil() !== wakeAt) return;
    this.reportedWake = wakeAt;
    this.reporter.sleeping(this.executionId, wakeAt);
  }

  private push(kind: HostDelivery, id: number, payload: string): Promise<void> {
    const target = this.deliverRef;
    if (target === null || !this.isRunning()) return Promise.resolve();
    this.deliveriesRunning++;
    return target.apply(undefined, [kind, id, payload], { arguments: { copy: true } }).then(
      () => {
        this.deliveriesRunning--;
        this.waitChanged();
      },
      (error: unknown) => {
        this.deliveriesRunning--;
        this.onIsolateError(error, "in promise");
      },
    );
  }

  private async runInIsolate({
    isolate,
    context,
    deliver,
    run,
    replay,
    waitingFor,
    connect,
  }: FreshIsolate): Promise<void> {
    try {
      // The sandbox surface was installed while the isolate waited as a spare; only the bridge is the run's own.
      connect(this.bridge.receive);
      this.deliverRef = deliver;
      this.waitingForRef = waitingFor;
      this.context = context;
      // Before any of the code runs, so that even its first clock reading comes from the record. Nothing of the
      // user's has run in the isolate yet, so the synchronous call cannot wait on it.
      const entries = this.request.replay ?? [];
      if (entries.length > 0) replay.applySync(undefined, [JSON.stringify(entries)]);

      // Compiled and evaluated in one call (each asynchronous call is a round trip to the isolate's thread). The
      // script's value is the wrapper function; only code that closes the wrapper early runs here.
      let fn: ivm.Reference;
      try {
        fn = await context.eval(this.request.code, {
          filename: USER_FILENAME,
          lineOffset: USER_LINE_OFFSET,
          reference: true,
        });
      } catch (error) {
        if (isolate.isDisposed || !isCompileError(error)) throw error;
        this.settle("failed", describeCompileError(error, USER_FILENAME, this.request.source));
        return;
      }
      if (!this.isRunning()) return;
      let outcome: unknown;
      try {
        const running = run.apply(undefined, [fn.derefInto(), this.request.servicesJson], {
          result: { promise: true, copy: true },
        });
        this.order?.started();
        outcome = await running;
      } catch (error) {
        this.onIsolateError(error, "in promise");
        return;
      }
      this.finish(outcome);
    } catch (error) {
      this.onIsolateError(error, "at top level");
    }
  }

  /** The prelude's JSON RunOutcome; anything else means the sandbox tampered with its own bridge. */
  private finish(outcome: unknown): void {
    if (!this.isRunning()) return;
    let parsed: { ok?: unknown; error?: unknown } | undefined;
    try {
      parsed = typeof outcome === "string" ? JSON.parse(outcome) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed?.ok === true) this.settle("success");
    else if (parsed?.ok === false && typeof parsed.error === "string")
      this.settle("failed", clampMessage(parsed.error));
    else this.settle("failed", "The sandbox returned a malformed result (was the runtime tampered with?)");
  }

  /**
   * Any failure of an isolate operation. After our own timeout or kill the
   * run has already settled and this is the expected echo of the disposal.
   * Otherwise it is a value thrown out of the isolate, copied by isolated-vm
   * (which keeps the name and message only): at the top level of the script
   * (code that closed the wrapper function early), or, from the run or a
   * delivery (the prelude's functions never throw), a rejected promise
   * nobody took up — isolated-vm throws those out of the call during which
   * they were left unhandled. Tool calls never end up there: the prelude
   * takes their promises up and reports the unhandled ones on stderr.
   */
  private onIsolateError(error: unknown, where: "at top level" | "in promise"): void {
    if (!this.isRunning()) return;
    const message = error instanceof Error ? error.message : String(error);
    const isolate = this.isolate;
    if (isolate?.isDisposed || /disposed/i.test(message)) {
      if (/memory limit/i.test(message)) this.settle("failed", memoryLimitExceeded(this.settings.memoryLimitMb));
      else this.settle("failed", isolateFailed(message));
      return;
    }
    const name = error instanceof Error && error.name !== "" ? error.name : "Error";
    this.settle(
      "failed",
      clampMessage(where === "in promise" ? unhandledRejection(name, message) : `Uncaught ${name}: ${message}`),
    );
  }

  /**
   * The only way a run ends. Reports the error, resolves `done`, and hands
   * the isolate over to be disposed on the next turn of the event loop (never
   * from inside a call the isolate is waiting on). Disposing frees the
   * context and every handle with it, and ends whatever the run left behind.
   */
  private settle(exit: ExecutionExitState, error?: string): void {
    if (this.phase === "settled") return;
    const ran = this.phase === "running";
    this.phase = "settled";
    clearTimeout(this.deadline);
    clearTimeout(this.sleepCheck);
    this.context = null;
    this.bridge.close();
    this.deliverRef = null;
    this.waitingForRef = null;
    if (error !== undefined) this.reporter.setError(this.executionId, error);
    this.resolveDone(exit);
    const isolate = this.isolate;
    const release = this.releaseIsolate;
    if (ran && isolate !== null && release !== null) setImmediate(() => release(isolate));
  }
}
