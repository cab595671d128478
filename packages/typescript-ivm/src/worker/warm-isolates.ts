import ivm from "isolated-vm";
import { prelude } from "../sandbox/prelude.js";
import type { PreludeHandle } from "../sandbox/protocol.js";

/** The Node end of the sandbox's `send` (HostBridge.receive): everything that arrives is untrusted. */
export type Receiver = (kind: unknown, id: unknown, payload: unknown, replay: unknown) => string | null;

/** Called when V8 loses control of an isolate; the process must be replaced (see the worker entry). */
export type CatastropheHandler = (isolate: ivm.Isolate, message: string) => void;

export const PRELUDE_FILENAME = "cyrnel-prelude.js";

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

/**
 * A context of a fresh isolate with the sandbox surface installed (the
 * prelude has run): all a run still has to do is connect its bridge,
 * compile its code and call `run`.
 */
export interface Prepared {
  context: ivm.Context;
  /** The prelude's `deliver` and `run` (see sandbox/protocol.ts), held only on this side. */
  deliver: ivm.Reference;
  run: ivm.Reference;
  /** The prelude's `replay`, called only for a resumed durable run. */
  replay: ivm.Reference;
  /** The prelude's `waitingFor`, called only when a run times out while its isolate is idle. */
  waitingFor: ivm.Reference;
  /**
   * Where the sandbox's calls go from now on. Until a run connects, the
   * isolate has no user code in it and makes no calls.
   */
  connect(receive: Receiver): void;
}

/** An isolate that has never run user code, with the sandbox surface installed. */
export interface FreshIsolate extends Prepared {
  isolate: ivm.Isolate;
}

/**
 * Fresh isolates, kept warm. Every execution gets an isolate of its own and
 * the isolate is disposed when the execution ends, whatever it left behind:
 * FinalizationRegistry callbacks (V8 runs them after a collection, in
 * whatever the isolate runs next), microtask chains that never end, or
 * anything else still queued inside it can never run in a later execution's
 * time — nor block this process's main thread on the isolate's lock, which
 * is how a reused isolate used to wedge the whole sandbox process.
 *
 * Creating an isolate costs several times as much as a fresh context in a
 * reused one, so `size` spares are made ahead of time, each with its
 * context, the prelude and the sandbox surface already installed. A spare
 * taken is replaced only once a run has ended (when its isolate is
 * disposed), on a later turn of the event loop: the main thread serves
 * every running execution, and making isolates while runs are starting
 * would delay them.
 *
 * The preparation uses isolated-vm's synchronous calls. The isolate is
 * fresh and nothing of the user's has run in it, so they cannot wait on a
 * busy isolate; and each asynchronous call is a round trip to a thread of
 * isolated-vm's pool (three threads, then a new thread per call while they
 * are busy), which costs more than the work itself when hundreds of
 * executions start at once.
 */
export class WarmIsolates {
  private readonly spares: FreshIsolate[] = [];
  private refill: NodeJS.Immediate | undefined;
  private closed = false;
  /** V8's code cache of the prelude, produced by the first isolate: later ones skip most of its compilation. */
  private preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

  constructor(
    private readonly size: number,
    private readonly memoryLimitMb: number,
    /** JSON PreludeLimits: the same for every run of the worker. */
    private readonly preludeLimitsJson: string,
    private readonly onCatastrophe: CatastropheHandler,
  ) {
    // After the constructor returns: the sandbox process reports `ready` first, and the host waits for that.
    this.scheduleRefill();
  }

  /** A fresh isolate for one execution: a warm spare when there is one, else one made now. */
  take(): FreshIsolate {
    return this.spares.shift() ?? this.create();
  }

  /**
   * Ends an isolate for good (whatever is still running or queued inside it
   * is terminated with it), then makes up for the spares taken.
   */
  dispose(isolate: ivm.Isolate): void {
    dispose(isolate);
    this.scheduleRefill();
  }

  /** Disposes the spares; isolates in use are disposed when their executions end. */
  close(): void {
    this.closed = true;
    clearImmediate(this.refill);
    for (const spare of this.spares.splice(0)) dispose(spare.isolate);
  }

  /** One isolate per turn of the event loop, so runs and tool results are never held up for a whole batch. */
  private scheduleRefill(): void {
    if (this.refill !== undefined || this.closed || this.spares.length >= this.size) return;
    this.refill = setImmediate(() => {
      this.refill = undefined;
      if (this.closed || this.spares.length >= this.size) return;
      try {
        this.spares.push(this.create());
      } catch {
        // Tried again after the next run ends; a run that finds no spare makes its own and reports the failure.
        return;
      }
      this.scheduleRefill();
    });
  }

  /** Throws if the isolate cannot even hold the prelude (the run then fails with the reason). */
  private create(): FreshIsolate {
    // Without a handler isolated-vm aborts the whole process on such an error; with one, it parks the
    // isolate's thread forever and leaves the decision to us.
    const isolate: ivm.Isolate = new ivm.Isolate({
      memoryLimit: this.memoryLimitMb,
      onCatastrophicError: (message) => this.onCatastrophe(isolate, message),
    });
    try {
      return { isolate, ...this.prepare(isolate) };
    } catch (error) {
      dispose(isolate);
      throw error;
    }
  }

  private prepare(isolate: ivm.Isolate): Prepared {
    const context = isolate.createContextSync();
    const cache = this.preludeCache;
    const script = isolate.compileScriptSync(PRELUDE_SCRIPT, {
      filename: PRELUDE_FILENAME,
      ...(cache === undefined ? { produceCachedData: true } : { cachedData: cache }),
    });
    // isolated-vm's types leave out what `produceCachedData` / `cachedData` add to the script.
    const compiled = script as ivm.Script & {
      cachedData?: ivm.ExternalCopy<ArrayBuffer>;
      cachedDataRejected?: boolean;
    };
    if (cache === undefined || compiled.cachedDataRejected === true) this.preludeCache = compiled.cachedData;
    const install = script.runSync(context, { reference: true }) as ivm.Reference;
    let receive: Receiver | null = null;
    const send = new ivm.Callback((kind: unknown, id: unknown, payload: unknown, replay: unknown) =>
      receive === null ? "the execution has not started" : receive(kind, id, payload, replay),
    );
    const handle = install.applySync(undefined, [send, this.preludeLimitsJson], {
      result: { reference: true },
    }) as ivm.Reference<PreludeHandle>;
    const deliver = handle.getSync("deliver", { reference: true });
    const run = handle.getSync("run", { reference: true });
    const replay = handle.getSync("replay", { reference: true });
    const waitingFor = handle.getSync("waitingFor", { reference: true });
    return {
      context,
      deliver,
      run,
      replay,
      waitingFor,
      connect: (to) => {
        receive = to;
      },
    };
  }
}

function dispose(isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return;
  try {
    isolate.dispose();
  } catch {
    // Disposed concurrently (memory limit); nothing left to free.
  }
}
