import type { ExecutionExitState, Logger } from "@cyrnel/sdk";
import ivm from "isolated-vm";
import type { RunRequest, WorkerOptions } from "../ipc.js";
import { clampMessage, isolateFailed, memoryLimitExceeded, timedOut } from "../messages.js";
import { prelude } from "../sandbox/prelude.js";
import type { HostDelivery, PreludeHandle, PreludeLimits } from "../sandbox/protocol.js";
import { describeCompileError, USER_LINE_OFFSET } from "../transpile.js";
import { type BridgeLimits, type BridgeOwner, HostBridge, type RunReporter } from "./host-bridge.js";

/** The file name user code is compiled under; it shows up in stack traces as `code.ts:line:column`. */
const USER_FILENAME = "code.ts";
const PRELUDE_FILENAME = "cyrnel-prelude.js";

/**
 * The prelude is real source built with the package. The script's value is
 * the prelude function; "use strict" makes it strict. `__name` is the helper
 * esbuild's `keepNames` (used by tsx) inserts into transformed functions;
 * defining it in a closure keeps the prelude working when the host runs from
 * TypeScript sources (tsc and vitest emit no helpers) without putting it on
 * the sandbox's global object.
 */
const PRELUDE_SCRIPT = [
  '"use strict";',
  "(() => {",
  'const __name = (target, value) => Object.defineProperty(target, "name", { value, configurable: true });',
  `return (${prelude.toString()});`,
  "})();",
].join("\n");

/** Compiled once per isolate: compiling the prelude each run costs about four times as much as running it. */
const preludeScripts = new WeakMap<ivm.Isolate, ivm.Script>();

function preludeScript(isolate: ivm.Isolate): ivm.Script {
  let script = preludeScripts.get(isolate);
  if (script === undefined) {
    script = isolate.compileScriptSync(PRELUDE_SCRIPT, { filename: PRELUDE_FILENAME });
    preludeScripts.set(isolate, script);
  }
  return script;
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

/** Called once the run has released the isolate; `reusable` is false when it must be disposed (and replaced). */
export type ReturnIsolate = (isolate: ivm.Isolate, reusable: boolean) => void;

type Phase = "queued" | "running" | "settled";

/**
 * One run of user code, from queued to its exit state. It owns the single
 * timeout authority: a wall-clock deadline armed when the run starts, which
 * disposes the isolate. That covers synchronous loops as well as code that
 * awaits forever (isolated-vm's own `timeout` option only covers the former,
 * so it is not used at all).
 */
export class Execution implements BridgeOwner {
  readonly executionId: number;
  /** Resolves with the exit state; `setError` has been called before it resolves. */
  readonly done: Promise<ExecutionExitState>;
  private resolveDone: (state: ExecutionExitState) => void = () => {};
  private phase: Phase = "queued";
  private isolate: ivm.Isolate | null = null;
  private returnIsolate: ReturnIsolate | null = null;
  private deadline: NodeJS.Timeout | undefined;
  private deliverRef: ivm.Reference | null = null;
  private readonly handles: { release(): void }[] = [];
  private readonly bridge: HostBridge;

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
  }

  isRunning(): boolean {
    return this.phase === "running";
  }

  /** Runs in `isolate`, which is handed back through `returnIsolate` after the run settles. */
  start(isolate: ivm.Isolate, returnIsolate: ReturnIsolate): void {
    if (this.phase !== "queued") {
      returnIsolate(isolate, true);
      return;
    }
    this.phase = "running";
    this.isolate = isolate;
    this.returnIsolate = returnIsolate;
    const { timeoutMs } = this.request;
    if (timeoutMs !== null) {
      this.deadline = setTimeout(() => this.settle("timeout", timedOut(timeoutMs), true), timeoutMs);
    }
    void this.runInIsolate(isolate);
  }

  /** Kill: a queued run just ends; a running one loses its isolate. */
  cancel(): void {
    this.settle("canceled", undefined, true);
  }

  /**
   * Ends the run as `failed`: a syntax error before it ran, or a limit
   * enforced on the host side (a running run then loses its isolate).
   */
  fail(message: string): void {
    this.settle("failed", message, true);
  }

  deliver(kind: HostDelivery, id: number, payload: string): void {
    const target = this.deliverRef;
    if (target === null || !this.isRunning()) return;
    target
      .apply(undefined, [kind, id, payload], { arguments: { copy: true } })
      .catch((error: unknown) => this.onIsolateError(error));
  }

  private async runInIsolate(isolate: ivm.Isolate): Promise<void> {
    try {
      // Until the user's code is compiled nothing in this isolate can run for long, so the fixed-size
      // setup uses the synchronous calls (each asynchronous one costs a round trip to the isolate's thread).
      // Everything from compiling the user's code on stays asynchronous: the deadline must be able to fire.
      const context = isolate.createContextSync();
      this.handles.push(context);
      const install = preludeScript(isolate).runSync(context, { reference: true });
      this.handles.push(install);
      const handle = install.applySync(
        undefined,
        [new ivm.Callback(this.bridge.receive), this.request.servicesJson, this.settings.preludeLimitsJson],
        { result: { reference: true } },
      ) as ivm.Reference<PreludeHandle>;
      this.handles.push(handle);
      const deliver = handle.getSync("deliver", { reference: true });
      const run = handle.getSync("run", { reference: true });
      this.handles.push(deliver, run);
      this.deliverRef = deliver;

      let script: ivm.Script;
      try {
        script = await isolate.compileScript(this.request.code, {
          filename: USER_FILENAME,
          lineOffset: USER_LINE_OFFSET,
        });
      } catch (error) {
        if (isolate.isDisposed || !(error instanceof Error) || error.name !== "SyntaxError") throw error;
        this.settle("failed", describeCompileError(error, USER_FILENAME, this.request.source));
        return;
      }
      this.handles.push(script);
      const fn = await script.run(context, { reference: true });
      this.handles.push(fn);
      if (!this.isRunning()) return;
      const outcome: unknown = await run.apply(undefined, [fn.derefInto()], { result: { promise: true, copy: true } });
      this.finish(outcome);
    } catch (error) {
      this.onIsolateError(error);
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
    else this.settle("failed", "The sandbox returned a malformed result (was the runtime tampered with?)", true);
  }

  /**
   * Any failure of an isolate operation. After our own timeout or kill the
   * run has already settled and this is the expected echo of the disposal.
   */
  private onIsolateError(error: unknown): void {
    if (!this.isRunning()) return;
    const message = error instanceof Error ? error.message : String(error);
    const isolate = this.isolate;
    if (isolate?.isDisposed || /disposed/i.test(message)) {
      if (/memory limit/i.test(message)) this.settle("failed", memoryLimitExceeded(this.settings.memoryLimitMb), true);
      else this.settle("failed", isolateFailed(message), true);
      return;
    }
    // A throw at the script's top level (code that closed the wrapper function early), copied out by isolated-vm.
    const name = error instanceof Error && error.name !== "" ? error.name : "Error";
    this.settle("failed", clampMessage(`Uncaught ${name}: ${message}`), true);
  }

  /**
   * The only way a run ends. Reports the error, resolves `done`, and — on
   * the next turn of the event loop, never from inside a call the isolate is
   * waiting on — releases the context and disposes the isolate when asked.
   */
  private settle(exit: ExecutionExitState, error?: string, disposeIsolate = false): void {
    if (this.phase === "settled") return;
    const ran = this.phase === "running";
    this.phase = "settled";
    clearTimeout(this.deadline);
    this.bridge.close();
    this.deliverRef = null;
    if (error !== undefined) this.reporter.setError(this.executionId, error);
    this.resolveDone(exit);
    if (ran) setImmediate(() => this.cleanUp(disposeIsolate));
  }

  private cleanUp(disposeIsolate: boolean): void {
    const isolate = this.isolate;
    const returnIsolate = this.returnIsolate;
    if (isolate === null || returnIsolate === null) return;
    for (const handle of this.handles.reverse()) {
      try {
        handle.release();
      } catch {
        // Already gone with a disposed isolate.
      }
    }
    this.handles.length = 0;
    // The pool disposes (and replaces) an isolate that is not reusable.
    returnIsolate(isolate, !disposeIsolate);
  }
}
