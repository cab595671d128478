import type { HostDelivery, PreludeHandle, PreludeLimits, RunOutcome, SendToHost, ToolOutcome } from "./protocol.js";

type Callable = (...args: unknown[]) => unknown;
type Stream = "stdout" | "stderr";
interface PendingCall {
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  /** Created when `invoke` was called, so a rejection's stack points at the caller's line. */
  error: Error & { status?: number; code?: string; details?: unknown };
  /** `serviceId.toolId`. */
  what: string;
}

/**
 * The in-isolate half of the bridge: it builds the sandbox surface
 * (`cyrnel`, `console`, `setTimeout`, `clearTimeout`) in a fresh context,
 * puts the sandbox's sources of nondeterminism (the clock, `Math.random`)
 * behind the record of durable runs, and returns the functions the host
 * drives the run with.
 *
 * Constraints a reader could not guess:
 * - This function is stringified (`prelude.toString()`) and evaluated inside
 *   the isolate, so its body must be self-contained: no imports (type-only
 *   ones are erased), no module-level helpers, no Node globals.
 * - The host evaluates it in strict mode, so V8 call sites never expose its
 *   functions or receivers to `Error.prepareStackTrace`.
 * - `send` is an `ivm.Callback`: inside the isolate it is a plain function
 *   that calls the host with copied primitives. It lives in this closure
 *   only; nothing on the global object leads to it. There is no
 *   `ivm.Reference` or `ExternalCopy` anywhere in the isolate.
 * - Built-ins are captured before user code runs, so user code that
 *   replaces `JSON.stringify` or `Promise.prototype.then` cannot confuse the
 *   bridge. Tampering can only break the user's own run: the host validates
 *   everything it receives.
 */
export function prelude(toHost: SendToHost, limitsJson: string): PreludeHandle {
  const global = globalThis as unknown as Record<string, unknown>;
  const { assign, create, defineProperty, freeze, getPrototypeOf, hasOwn, is, isFrozen, keys } = Object;
  const { apply } = Reflect;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ProxyCtor = Proxy;
  const PromiseCtor = Promise;
  const promiseThen = PromiseCtor.prototype.then;
  const promiseResolve = PromiseCtor.resolve;
  const captureStackTrace = ErrorCtor.captureStackTrace;
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const mathMax = Math.max;
  const mathRandom = Math.random;
  const clockNow = Date.now;
  const construct = Reflect.construct;
  const NumberCtor = Number;
  const numberIsNaN = Number.isNaN;
  const StringCtor = String;
  const MapCtor = Map;
  const SetCtor = Set;
  const DateCtor = Date;
  const RegExpCtor = RegExp;
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  const limits = parse(limitsJson) as PreludeLimits;

  // ---- values → text -------------------------------------------------------

  function typeName(value: unknown): string {
    if (value === null) return "null";
    if (isArray(value)) return "an array";
    return typeof value;
  }

  function messageOf(error: unknown): string {
    try {
      if (error instanceof ErrorCtor) return error.message;
      return StringCtor(error);
    } catch {
      return "unprintable error";
    }
  }

  /** The stack frames that belong to the user's code, one per line, each starting with a newline. */
  function userFrames(stack: unknown): string {
    if (typeof stack !== "string") return "";
    const marker = `${limits.userFilename}:`;
    const lines = stack.split("\n");
    let frames = "";
    let count = 0;
    for (let i = 1; i < lines.length && count < 10; i++) {
      const line = lines[i] as string;
      if (line.trimStart().startsWith("at ") && line.includes(marker)) {
        frames += `\n${line}`;
        count++;
      }
    }
    return frames;
  }

  function describeErrorObject(error: Error & { status?: unknown; code?: unknown }): string {
    const name = typeof error.name === "string" && error.name !== "" ? error.name : "Error";
    const message = typeof error.message === "string" ? error.message : "";
    let header = message === "" ? name : `${name}: ${message}`;
    const tags: string[] = [];
    if (typeof error.status === "number") tags.push(`status ${error.status}`);
    if (typeof error.code === "string") tags.push(`code ${error.code}`);
    if (tags.length > 0) header += ` (${tags.join(", ")})`;
    let frames = "";
    try {
      frames = userFrames(error.stack);
    } catch {
      // A user-installed Error.prepareStackTrace that throws: keep the header.
    }
    return header + frames;
  }

  function formatKey(key: string): string {
    return IDENTIFIER.test(key) ? key : stringify(key);
  }

  /** A compact, inspect-like rendering (strings quoted); never throws for ordinary values. */
  function formatValue(value: unknown, depth: number, seen: object[]): string {
    switch (typeof value) {
      case "string":
        return stringify(value);
      case "number":
        return is(value, -0) ? "-0" : StringCtor(value);
      case "bigint":
        return `${StringCtor(value)}n`;
      case "boolean":
        return value ? "true" : "false";
      case "undefined":
        return "undefined";
      case "symbol":
        return value.toString();
      case "function": {
        const name = (value as Callable).name;
        return typeof name === "string" && name !== "" ? `[Function: ${name}]` : "[Function (anonymous)]";
      }
    }
    if (value === null) return "null";
    const object = value as object;
    if (seen.includes(object)) return "[Circular]";
    if (object instanceof ErrorCtor) return describeErrorObject(object);
    if (object instanceof DateCtor) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    if (object instanceof RegExpCtor) return StringCtor(object);
    if (depth > 2) return isArray(object) ? "[Array]" : "[Object]";
    seen.push(object);
    try {
      const list = (items: unknown[], total: number): string => {
        const parts: string[] = [];
        for (let i = 0; i < items.length && i < 100; i++) parts.push(formatValue(items[i], depth + 1, seen));
        if (total > 100) parts.push(`... ${total - 100} more items`);
        return parts.length === 0 ? "[]" : `[ ${parts.join(", ")} ]`;
      };
      if (isArray(object)) return list(object, object.length);
      if (isView(object)) {
        const view = object as unknown as ArrayLike<unknown>;
        const items: unknown[] = [];
        const length = typeof view.length === "number" ? view.length : 0;
        for (let i = 0; i < length && i < 100; i++) items.push(view[i]);
        return `${object.constructor.name}(${length}) ${list(items, length)}`;
      }
      if (object instanceof MapCtor) {
        const parts: string[] = [];
        for (const [k, v] of object) {
          if (parts.length === 100) break;
          parts.push(`${formatValue(k, depth + 1, seen)} => ${formatValue(v, depth + 1, seen)}`);
        }
        return `Map(${object.size}) {${parts.length === 0 ? "" : ` ${parts.join(", ")} `}}`;
      }
      if (object instanceof SetCtor) {
        const parts: string[] = [];
        for (const v of object) {
          if (parts.length === 100) break;
          parts.push(formatValue(v, depth + 1, seen));
        }
        return `Set(${object.size}) {${parts.length === 0 ? "" : ` ${parts.join(", ")} `}}`;
      }
      if (object instanceof PromiseCtor) return "Promise {}";
      const proto: unknown = getPrototypeOf(object);
      let prefix = "";
      if (proto === null) prefix = "[Object: null prototype] ";
      else {
        const ctor = (proto as { constructor?: unknown }).constructor;
        const name = typeof ctor === "function" ? ctor.name : "";
        if (name !== "" && name !== "Object") prefix = `${name} `;
      }
      const names = keys(object);
      const parts: string[] = [];
      for (let i = 0; i < names.length && i < 100; i++) {
        const key = names[i] as string;
        parts.push(`${formatKey(key)}: ${formatValue((object as Record<string, unknown>)[key], depth + 1, seen)}`);
      }
      if (names.length > 100) parts.push(`... ${names.length - 100} more properties`);
      return parts.length === 0 ? `${prefix}{}` : `${prefix}{ ${parts.join(", ")} }`;
    } finally {
      seen.pop();
    }
  }

  function describeThrown(thrown: unknown): string {
    try {
      if (thrown instanceof ErrorCtor) return `Uncaught ${describeErrorObject(thrown)}`;
      return `Uncaught ${formatValue(thrown, 0, [])}`;
    } catch {
      return "Uncaught exception (the thrown value could not be described)";
    }
  }

  /** JSON text of `value`, or a TypeError naming `what` when it cannot round-trip through JSON. */
  function serialise(value: unknown, what: string): string {
    let json: string | undefined;
    try {
      json = stringify(value, (key: string, item: unknown) => {
        const type = typeof item;
        if (type === "function" || type === "symbol" || type === "bigint") {
          throw new TypeErrorCtor(key === "" ? `it is a ${type}` : `property ${stringify(key)} is a ${type}`);
        }
        return item;
      });
    } catch (error) {
      throw new TypeErrorCtor(`${what} must be JSON-serialisable: ${messageOf(error)}`);
    }
    if (typeof json !== "string") throw new TypeErrorCtor(`${what} must be JSON-serialisable`);
    return json;
  }

  // ---- durable runs: what the program read, recorded and replayed --------------

  /*
   * A durable run is resumed by running the program again from the start
   * (see `ExecutionInput.replay`), so whatever it read from a
   * nondeterministic source must come back the same. The record is one list
   * of entries in program order, each a kind letter and a number:
   *
   * - `c<ms>` a clock reading, `c<ms>*<n>` n readings in a row of the same
   *   millisecond (a tight loop over `Date.now()` is one entry, not a
   *   million);
   * - `r<value>` a `Math.random()` number (the shortest text that parses
   *   back to the same double);
   * - `a<id>` the answer to tool call `id` reached the program, `t<id>`
   *   timer `id` fired: which macrotask ran next;
   * - `b<hex>` bytes drawn from the host's cryptographic generator
   *   (`crypto.getRandomValues`, `crypto.randomUUID`), two hex digits each.
   *
   * Entries wait in `recorded` and travel with the next call that leaves
   * the isolate (the bridge's fourth argument), so a clock reading costs no
   * crossing, and the host has them before anything the program did after
   * reading them. On replay the values come out of `replayEntries` instead,
   * and a read of another kind than the record has next ends the run
   * (`diverge`). The worker holds deliveries back to the recorded order
   * (worker/replay-order.ts); here they are only checked.
   */

  /** Entries of this attempt not yet shipped to the host. */
  let recorded: string[] = [];
  /** The clock value of the readings in a row not yet in `recorded`, and how many there were. */
  let clockValue = 0;
  let clockReads = 0;
  /** Past this many entries waiting, they are shipped on their own (a loop drawing random numbers sends nothing else). */
  const SHIP_AT = 4096;

  /** Set from the start of a resumed run until its entries run out. */
  let replaying = false;
  let replayEntries: string[] = [];
  let replayAt = 0;
  /** The value and the readings left of the entry at `replayAt` once a read has started on it. */
  let replayValue = 0;
  let replayLeft = 0;
  /** Timers the record has firing ahead: clearing one is a divergence. */
  const replayTimers: Record<string, true> = create(null);
  /** Set once the program did something the record does not have: the host is ending the run. */
  let diverged = false;

  function closeClockRun(): void {
    if (clockReads === 0) return;
    recorded[recorded.length] = clockReads === 1 ? `c${clockValue}` : `c${clockValue}*${clockReads}`;
    clockReads = 0;
  }

  function record(entry: string): void {
    closeClockRun();
    recorded[recorded.length] = entry;
    if (recorded.length >= SHIP_AT) send("replay", 0, "");
  }

  /** Every call to the host goes through here, carrying what was recorded since the last one. */
  function send(kind: Parameters<SendToHost>[0], id: number, payload: string): string | null {
    if (recorded.length === 0 && clockReads === 0) return toHost(kind, id, payload, "");
    closeClockRun();
    const entries = stringify(recorded);
    recorded = [];
    return toHost(kind, id, payload, entries);
  }

  function describeEntry(entry: string | undefined): string {
    if (entry === undefined) return "no more entries";
    const kind = entry[0];
    const rest = entry.slice(1);
    if (kind === "c") return "a clock reading";
    if (kind === "r") return "a random number";
    if (kind === "a") return `the answer to tool call ${rest}`;
    if (kind === "t") return `timer ${rest} firing`;
    if (kind === "b") return `${rest.length >> 1} random bytes`;
    return `an unreadable entry ${stringify(entry.slice(0, 40))}`;
  }

  /**
   * The program did something else than the record has next: the host ends
   * the run (uncatchable). What the program gets back is beside the point;
   * the error thrown only stops its current turn sooner.
   */
  function diverge(did: string): Error {
    const had = replayLeft > 0 ? "a clock reading" : describeEntry(replayEntries[replayAt]);
    const parts = stringify([had, did]);
    replaying = false;
    if (!diverged) {
      diverged = true;
      send("diverged", 0, parts);
    }
    return new ErrorCtor(`nondeterministic replay: the record has ${had} next, but the program ${did}`);
  }

  function endReplayIfDone(): void {
    if (replayLeft === 0 && replayAt >= replayEntries.length) replaying = false;
  }

  /** The next recorded value of `kind` ("c" or "r"); throws when the record has something else next. */
  function replayed(kind: string, did: string): number {
    if (replayLeft === 0) {
      const entry = replayEntries[replayAt] as string;
      if (entry[0] !== kind) throw diverge(did);
      const star = entry.indexOf("*");
      const value = NumberCtor(star === -1 ? entry.slice(1) : entry.slice(1, star));
      const count = star === -1 ? 1 : NumberCtor(entry.slice(star + 1));
      if (entry.length < 2 || numberIsNaN(value) || !(count >= 1)) throw diverge(did);
      replayValue = value;
      replayLeft = count;
    } else if (kind !== "c") throw diverge(did);
    replayLeft--;
    if (replayLeft === 0) {
      replayAt++;
      endReplayIfDone();
    }
    return replayValue;
  }

  /** `Date.now()`, and every other reading of the clock in the sandbox. */
  function now(): number {
    if (replaying) return replayed("c", "read the clock");
    const value = clockNow();
    if (value === clockValue && clockReads > 0) {
      clockReads++;
      return value;
    }
    closeClockRun();
    clockValue = value;
    clockReads = 1;
    return value;
  }

  function random(): number {
    if (replaying) return replayed("r", "drew a random number");
    const value = mathRandom();
    record(`r${value}`);
    return value;
  }

  /**
   * `count` bytes (as hex) from the host's cryptographic generator: one bridge call, then recorded; on replay the
   * recorded bytes, and a divergence when the record has another read, or another number of bytes, next.
   */
  function randomHex(count: number, did: string): string {
    if (replaying) {
      const entry = replayEntries[replayAt] as string;
      if (replayLeft > 0 || entry[0] !== "b" || entry.length !== 1 + 2 * count) throw diverge(did);
      replayAt++;
      endReplayIfDone();
      return entry.slice(1);
    }
    const hex = send("randomBytes", count, "");
    if (hex === null || hex.length !== 2 * count) throw new ErrorCtor("crypto: the host gave no random bytes");
    record(`b${hex}`);
    return hex;
  }

  /**
   * A delivery (`a<id>` or `t<id>`) is about to reach the program: recorded,
   * or on replay checked against the record. False when the run diverged.
   */
  function delivering(entry: string, did: string): boolean {
    if (diverged) return false;
    if (!replaying) {
      record(entry);
      return true;
    }
    if (replayLeft > 0 || replayEntries[replayAt] !== entry) {
      diverge(did);
      return false;
    }
    replayAt++;
    if (entry[0] === "t") delete replayTimers[entry.slice(1)];
    endReplayIfDone();
    return true;
  }

  /**
   * Sent by the worker on replay when the next recorded delivery has not
   * arrived and nothing is running: the program now waits. If it waits for
   * nothing that could bring the recorded delivery (no such call in flight,
   * no such timer set), or the record has a value it should have read
   * before waiting, the run would hang until its deadline; it diverged.
   */
  function checkWaiting(): void {
    if (!replaying || diverged) return;
    const entry = replayEntries[replayAt];
    if (replayLeft > 0 || entry === undefined) {
      diverge("waits without reading it");
      return;
    }
    const id = NumberCtor(entry.slice(1));
    if (entry[0] === "a") {
      if (pendingCalls[id] === undefined) diverge(`waits with no tool call ${entry.slice(1)} in flight`);
    } else if (entry[0] === "t") {
      if (timers[id] === undefined) diverge(`waits with no timer ${entry.slice(1)} set`);
    } else diverge("waits without reading it");
  }

  /** The entries of earlier attempts, before any of the program's code runs (JSON array of strings). */
  function replay(entriesJson: string): void {
    const entries = parse(entriesJson) as string[];
    replayEntries = entries;
    replayAt = 0;
    replaying = entries.length > 0;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as string;
      if (entry[0] === "t") replayTimers[entry.slice(1)] = true;
    }
  }

  /**
   * `Date` with its clock readings recorded: `new Date()` and `Date()`
   * read the clock through `now`; with arguments it is the built-in. The
   * prototype stays the built-in's (with `constructor` pointing here), so
   * `instanceof Date`, subclasses and every method work as before.
   */
  function DateShim(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return new DateCtor(now()).toString();
    return construct(DateCtor, args.length === 0 ? [now()] : args, new.target);
  }
  const fixed = { writable: false, enumerable: false, configurable: false };
  defineProperty(DateShim, "name", { value: "Date", configurable: true });
  defineProperty(DateShim, "length", { value: 7, configurable: true });
  defineProperty(DateShim, "prototype", { ...fixed, value: DateCtor.prototype });
  defineProperty(DateCtor.prototype, "constructor", {
    value: DateShim,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  const method = { writable: true, enumerable: false, configurable: true };
  defineProperty(DateShim, "now", { ...method, value: now });
  defineProperty(DateShim, "parse", { ...method, value: DateCtor.parse });
  defineProperty(DateShim, "UTC", { ...method, value: DateCtor.UTC });
  defineProperty(Math, "random", { ...method, value: random });

  // `Intl.DateTimeFormat`'s `format()` and `formatToParts()` without a date format the current time: the clock again.
  const DateTimeFormat = (global.Intl as { DateTimeFormat?: { prototype: object } } | undefined)?.DateTimeFormat;
  if (DateTimeFormat !== undefined) {
    const proto = DateTimeFormat.prototype as Record<string, unknown>;
    const formatGetter = (Object.getOwnPropertyDescriptor(proto, "format") as PropertyDescriptor).get as Callable;
    const formatToParts = proto.formatToParts as Callable;
    defineProperty(proto, "format", {
      configurable: true,
      enumerable: false,
      get(this: object) {
        const bound = apply(formatGetter, this, []) as Callable;
        return (date?: unknown) => bound(date === undefined ? now() : date);
      },
    });
    defineProperty(proto, "formatToParts", {
      ...method,
      value: function formatToPartsShim(this: object, date?: unknown) {
        return apply(formatToParts, this, [date === undefined ? now() : date]);
      },
    });
  }

  // ---- run lifecycle ---------------------------------------------------------

  let failRun: (thrown: unknown) => void = () => {};

  function run(fn: unknown, servicesJson: string): Promise<string> {
    fillServices(servicesJson);
    return new PromiseCtor<string>((resolve) => {
      let done = false;
      const finish = (outcome: RunOutcome) => {
        if (done) return;
        done = true;
        // A program that ends with recorded deliveries or values still ahead took another path than the record.
        if (replaying) diverge("finished");
        reportLeftovers();
        if (unsent.stdout > 0 || unsent.stderr > 0) send("dropped", 0, `${unsent.stdout},${unsent.stderr}`);
        // What was recorded since the last call out reaches the host before the run's end does.
        if (recorded.length > 0 || clockReads > 0) send("replay", 0, "");
        resolve(stringify(outcome));
      };
      failRun = (thrown) => finish({ ok: false, error: describeThrown(thrown) });
      if (typeof fn !== "function") {
        finish({ ok: true });
        return;
      }
      try {
        const result = apply(promiseResolve, PromiseCtor, [apply(fn as Callable, undefined, [])]);
        apply(promiseThen, result, [
          (value: unknown) => {
            reportDiscardedValue(value);
            finish({ ok: true });
          },
          (thrown: unknown) => failRun(thrown),
        ]);
      } catch (thrown) {
        failRun(thrown);
      }
    });
  }

  // ---- what the code left behind -----------------------------------------------

  /** One promise of a tool call (or derived from one): whether it was rejected, and whether anything ever took it up. */
  interface Settlement {
    rejected: boolean;
    handled: boolean;
    reason: unknown;
  }

  /** Rejected tool-call promises, to see at the end whether anything took them up. */
  const rejections: Settlement[] = [];

  /**
   * What `invoke` returns: a Promise whose `then` is watched. `await`,
   * `.catch`, `.finally`, `Promise.all` and friends all call `then` on a
   * promise that is not a plain `Promise`, so a rejection whose promise
   * never had `then` called was neither awaited nor caught. Promises derived
   * from it (`.then(f)`) are of this class too (the species), so a chain
   * that ends without a `catch` is seen as well.
   *
   * Each one is also taken up at once by a handler of the prelude's own, so
   * that V8 never sees it unhandled: isolated-vm throws an unhandled
   * rejection out of whatever host call into the isolate was running, which
   * failed the run with the error's message alone, even for a call awaited
   * a moment later (`const a = call1(), b = call2(); await a; await b;` with
   * `b` failing first). The prelude reports what nobody took up when the run
   * ends instead (see reportLeftovers).
   */
  class ToolCallPromise extends PromiseCtor<unknown> {
    readonly #settlement: Settlement | null;

    // Its own, so code that redefines Promise[Symbol.species] cannot stop the watch.
    static override get [Symbol.species](): PromiseConstructor {
      return ToolCallPromise as unknown as PromiseConstructor;
    }

    constructor(executor: (resolve: (value: unknown) => void, reject: (reason: unknown) => void) => void) {
      if (derivingInternally) {
        // The promise the prelude's own handler derives (below): nobody else ever sees it.
        super(executor);
        this.#settlement = null;
        return;
      }
      const settlement: Settlement = { rejected: false, handled: false, reason: undefined };
      super((resolve, reject) => {
        const rejectWatched = (reason: unknown) => {
          if (!settlement.rejected) {
            settlement.rejected = true;
            settlement.reason = reason;
            rejections[rejections.length] = settlement;
          }
          reject(reason);
        };
        try {
          executor(resolve, rejectWatched);
        } catch (thrown) {
          rejectWatched(thrown);
        }
      });
      this.#settlement = settlement;
      derivingInternally = true;
      try {
        apply(promiseThen, this, [undefined, ignore]);
      } finally {
        derivingInternally = false;
      }
    }

    // biome-ignore lint/suspicious/noThenProperty: watching `then` is the point of the class
    override then<A = unknown, B = never>(
      onFulfilled?: ((value: unknown) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ): Promise<A | B> {
      if (this.#settlement !== null) this.#settlement.handled = true;
      return apply(promiseThen, this, [onFulfilled, onRejected]) as Promise<A | B>;
    }
  }

  /** Set while the constructor above takes its own promise up (the `then` it calls derives one more). */
  let derivingInternally = false;
  const ignore = () => {};

  const MAX_REPORTED = 10;

  /**
   * On stderr, once the code has finished: tool calls rejected with nobody
   * awaiting or catching them (their error would otherwise vanish), and
   * calls still in flight (forgotten `await`s; their results are dropped).
   */
  function reportLeftovers(): void {
    let unhandled = 0;
    for (let i = 0; i < rejections.length; i++) {
      const settlement = rejections[i] as Settlement;
      if (settlement.handled) continue;
      unhandled++;
      if (unhandled > MAX_REPORTED) continue;
      let description: string;
      try {
        const { reason } = settlement;
        description = reason instanceof ErrorCtor ? describeErrorObject(reason) : formatValue(reason, 0, []);
      } catch {
        description = "(the error could not be described)";
      }
      writeLine("stderr", `[cyrnel] unhandled rejection of a tool call nobody awaited or caught: ${description}`);
    }
    if (unhandled > MAX_REPORTED) {
      writeLine("stderr", `[cyrnel] … and ${unhandled - MAX_REPORTED} more unhandled rejections of tool calls`);
    }
    const inFlight = keys(pendingCalls).length;
    if (inFlight > 0) {
      writeLine(
        "stderr",
        `[cyrnel] ${inFlight} tool call${inFlight === 1 ? " was" : "s were"} still in flight when the code finished (not awaited); ${inFlight === 1 ? "its result is" : "their results are"} discarded`,
      );
    }
  }

  /** Characters of a discarded value shown in the note. */
  const DISCARDED_VALUE_CHARS = 200;

  /** `return <value>` at the top level: only `cyrnel.output` is kept, so say where the value went. */
  function reportDiscardedValue(value: unknown): void {
    if (value === undefined) return;
    let text: string;
    try {
      text = formatValue(value, 0, []);
    } catch {
      text = "(a value that could not be described)";
    }
    if (text.length > DISCARDED_VALUE_CHARS) text = `${text.slice(0, DISCARDED_VALUE_CHARS)}…`;
    writeLine(
      "stderr",
      `[cyrnel] the code returned a value, which is discarded (use cyrnel.output({ ... }) to keep results): ${text}`,
    );
  }

  // ---- tools -----------------------------------------------------------------

  const pendingCalls: Record<number, PendingCall> = create(null);
  let callSeq = 0;

  /** `invoke()`'s second argument: `{ withResponse: true }` asks for `{ status, headers, body }`; anything else is an error. */
  function wantsResponse(options: unknown): boolean {
    if (options === undefined) return false;
    if (options === null || typeof options !== "object" || isArray(options)) {
      throw new TypeErrorCtor(
        `invoke() expects its options as an object ({ withResponse: true }), got ${typeName(options)}`,
      );
    }
    const withResponse = (options as { withResponse?: unknown }).withResponse;
    if (withResponse !== undefined && typeof withResponse !== "boolean") {
      throw new TypeErrorCtor(`invoke() option withResponse must be a boolean, got ${typeName(withResponse)}`);
    }
    return withResponse === true;
  }

  function startToolCall(serviceId: string, toolId: string, args: unknown[], frameBoundary: Callable) {
    const error: PendingCall["error"] = new ErrorCtor("tool call failed");
    captureStackTrace(error, frameBoundary);
    return new ToolCallPromise((resolve, reject) => {
      const parameters = args[0] === undefined ? {} : args[0];
      if (parameters === null || typeof parameters !== "object" || isArray(parameters)) {
        throw new TypeErrorCtor(`invoke() expects a parameters object, got ${typeName(parameters)}`);
      }
      const withResponse = wantsResponse(args[1]);
      const json = serialise(parameters, "invoke() parameters");
      const id = ++callSeq;
      const payload = `{"serviceId":${stringify(serviceId)},"toolId":${stringify(toolId)},"parameters":${json}${withResponse ? ',"withResponse":true' : ""}}`;
      pendingCalls[id] = { resolve, reject, error, what: `${serviceId}.${toolId}` };
      const refused = send("invoke", id, payload);
      if (refused !== null) {
        delete pendingCalls[id];
        throw new RangeErrorCtor(refused);
      }
    });
  }

  function settleToolCall(id: number, payload: string): void {
    const call = pendingCalls[id];
    if (call === undefined || !delivering(`a${id}`, `received the answer to tool call ${id}`)) return;
    delete pendingCalls[id];
    let outcome: ToolOutcome;
    try {
      outcome = parse(payload) as ToolOutcome;
    } catch {
      call.reject(new ErrorCtor("cyrnel: the host sent a malformed tool result"));
      return;
    }
    if (outcome.ok) {
      call.resolve(outcome.value);
      return;
    }
    const { error } = call;
    const hidden = { writable: true, configurable: true, enumerable: false };
    defineProperty(error, "message", { ...hidden, value: StringCtor(outcome.error.message) });
    defineProperty(error, "name", { ...hidden, value: "ToolCallError" });
    if (typeof outcome.error.status === "number") error.status = outcome.error.status;
    if (typeof outcome.error.code === "string") error.code = outcome.error.code;
    if (hasOwn(outcome.error, "details")) error.details = outcome.error.details;
    call.reject(error);
  }

  function makeTool(serviceId: string, toolId: string): object {
    // `length` 1, as before the options: `(params, options)` is what the types declare.
    const invoke = (params?: unknown, ...options: unknown[]): Promise<unknown> =>
      startToolCall(serviceId, toolId, [params, options[0]], invoke);
    return freeze(assign(create(null), { invoke }));
  }

  /**
   * A read-only table whose own keys are the snapshot's ids (so
   * `Object.keys` lists exactly those) but which answers any other string key
   * too, so calls to services or tools outside the snapshot still reach the
   * host's gate and get its 404/409 instead of a local TypeError.
   */
  function openTable(entries: Record<string, object>, make: (id: string) => object): object {
    const made: Record<string, object> = create(null);
    const refuse = () => false;
    const handler: ProxyHandler<Record<string, object>> = assign(create(null), {
      get(target: Record<string, object>, property: string | symbol) {
        if (typeof property !== "string") return undefined;
        if (hasOwn(target, property)) return target[property];
        const existing = made[property];
        if (existing !== undefined) return existing;
        const created = make(property);
        made[property] = created;
        return created;
      },
      set: refuse,
      defineProperty: refuse,
      deleteProperty: refuse,
      setPrototypeOf: refuse,
      // Only the prelude freezes a table (`entries`, once it is complete).
      preventExtensions: refuse,
    });
    return new ProxyCtor(entries, handler);
  }

  function makeService(serviceId: string, toolIds: readonly string[]): object {
    const tools: Record<string, object> = create(null);
    for (let i = 0; i < toolIds.length; i++) {
      const toolId = toolIds[i] as string;
      tools[toolId] = makeTool(serviceId, toolId);
    }
    return freeze(assign(create(null), { tools: openTable(freeze(tools), (toolId) => makeTool(serviceId, toolId)) }));
  }

  /**
   * The run's catalog arrives with `run`, after the prelude was installed
   * ahead of time: until then the table is empty (only code that closes the
   * wrapper function early runs before that), then filled once and frozen.
   */
  const services: Record<string, object> = create(null);

  function fillServices(servicesJson: string): void {
    if (isFrozen(services)) return;
    const catalog = parse(servicesJson) as Record<string, { tools: string[] }>;
    const serviceIds = keys(catalog);
    for (let i = 0; i < serviceIds.length; i++) {
      const serviceId = serviceIds[i] as string;
      services[serviceId] = makeService(serviceId, (catalog[serviceId] as { tools: string[] }).tools);
    }
    freeze(services);
  }

  // ---- output and console ------------------------------------------------------

  function output(patch: unknown): void {
    if (patch === null || typeof patch !== "object" || isArray(patch)) {
      throw new TypeErrorCtor(`cyrnel.output() expects a plain object, got ${typeName(patch)}`);
    }
    if (hasOwn(patch, "__proto__")) throw new TypeErrorCtor('cyrnel.output(): the key "__proto__" is not allowed');
    const json = serialise(patch, "cyrnel.output() value");
    const refused =
      json.length > limits.maxOutputChars ? send("outputTooLarge", json.length, "") : send("output", 0, json);
    if (refused !== null) throw new RangeErrorCtor(refused);
  }

  const logged: Record<Stream, number> = { stdout: 0, stderr: 0 };
  /** UTF-8 bytes of console text never sent (past the limit), told to the host when the run ends. */
  const unsent: Record<Stream, number> = { stdout: 0, stderr: 0 };

  /** The UTF-8 length of `text` (a lone surrogate as the 3 bytes of U+FFFD, as the host encodes it). */
  function utf8Length(text: string): number {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x80) bytes += 1;
      else if (code < 0x800) bytes += 2;
      else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 4;
        i++;
      } else bytes += 3;
    }
    return bytes;
  }

  function writeLine(stream: Stream, line: string): void {
    const used = logged[stream];
    // Past the limit the host has already cut the stream: only the size of what is dropped is kept.
    if (used > limits.maxLogChars) {
      unsent[stream] += utf8Length(line) + 1;
      return;
    }
    // One unit past the limit is enough for the host to notice the overflow. The cut never splits a pair.
    let room = limits.maxLogChars - used + 1;
    if (room < line.length && (line.charCodeAt(room) & 0xfc00) === 0xdc00) room--;
    const text = line.length > room ? line.slice(0, room) : line;
    if (text.length < line.length) unsent[stream] += utf8Length(line.slice(room));
    logged[stream] = used + text.length + 1;
    send(stream, 0, text);
  }

  function logger(stream: Stream): (...args: unknown[]) => void {
    return (...args: unknown[]) => {
      let line = "";
      try {
        for (let i = 0; i < args.length; i++) {
          const arg = args[i];
          line += (i === 0 ? "" : " ") + (typeof arg === "string" ? arg : formatValue(arg, 0, []));
        }
      } catch (error) {
        line = `[console: could not format the arguments: ${messageOf(error)}]`;
      }
      writeLine(stream, line);
    };
  }

  // ---- timers --------------------------------------------------------------------

  const timers: Record<number, { callback: Callable; args: unknown[]; delay: number; site: { stack?: unknown } }> =
    create(null);
  let timerSeq = 0;
  let activeTimers = 0;

  function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
    if (typeof callback !== "function") throw new TypeErrorCtor("setTimeout() expects a function");
    if (activeTimers >= limits.maxTimers) {
      throw new RangeErrorCtor(`setTimeout(): more than ${limits.maxTimers} timers are pending`);
    }
    const ms = mathMax(NumberCtor(delay), 0);
    const id = ++timerSeq;
    // The clock is read (and recorded) when a timer is set: on replay a timer the record does not have firing is
    // due its delay after that recorded reading, which may be long past by now.
    const fromRecord = replaying;
    const setAt = now();
    const wait = fromRecord ? mathMax(setAt + ms - clockNow(), 0) : ms;
    const refused = send("setTimer", id, StringCtor(numberIsNaN(wait) ? 0 : wait));
    if (refused !== null) throw new RangeErrorCtor(refused);
    // Where it was set, formatted only if the run times out while it waits for it (see `waitingFor`).
    const site: { stack?: unknown } = {};
    captureStackTrace(site, setTimeout);
    timers[id] = { callback: callback as Callable, args, delay: numberIsNaN(ms) ? 0 : ms, site };
    activeTimers++;
    return id;
  }

  function clearTimeout(id?: unknown): void {
    if (typeof id !== "number" || timers[id] === undefined) return;
    if (replaying && replayTimers[id] === true) throw diverge(`cleared timer ${id}`);
    delete timers[id];
    activeTimers--;
    send("clearTimer", id, "");
  }

  function fireTimer(id: number): void {
    const timer = timers[id];
    if (timer === undefined || !delivering(`t${id}`, `was handed timer ${id} firing`)) return;
    delete timers[id];
    activeTimers--;
    try {
      apply(timer.callback, undefined, timer.args);
    } catch (thrown) {
      failRun(thrown);
    }
  }

  // ---- web globals: base64, UTF-8 text, structured clone ----------------------------
  // The sandbox's V8 has ECMAScript only; these are the Web APIs programs reach for most when they handle API data
  // (GitHub sends file contents as base64). They work on values inside the isolate and never cross the bridge.

  const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const fromCharCode = StringCtor.fromCharCode;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const SharedBufferCtor = typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : undefined;

  function webError(name: string, message: string): Error {
    const error = new ErrorCtor(message);
    error.name = name;
    return error;
  }

  function btoa(...args: unknown[]): string {
    if (args.length === 0) throw new TypeErrorCtor("btoa() expects a string");
    const text = StringCtor(args[0]);
    let out = "";
    for (let i = 0; i < text.length; i += 3) {
      const a = text.charCodeAt(i);
      const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
      if (a > 255 || b > 255 || c > 255) {
        throw webError(
          "InvalidCharacterError",
          "btoa(): the string has characters outside Latin-1; encode it to UTF-8 bytes first (TextEncoder)",
        );
      }
      const n = (a << 16) | (b << 8) | c;
      out += BASE64.charAt((n >> 18) & 63) + BASE64.charAt((n >> 12) & 63);
      out += i + 1 < text.length ? BASE64.charAt((n >> 6) & 63) : "=";
      out += i + 2 < text.length ? BASE64.charAt(n & 63) : "=";
    }
    return out;
  }

  function atob(...args: unknown[]): string {
    if (args.length === 0) throw new TypeErrorCtor("atob() expects a string");
    // Forgiving base64: ASCII whitespace is skipped, and one or two "=" may pad a length that is a multiple of 4.
    let text = StringCtor(args[0]).replace(/[\t\n\f\r ]/g, "");
    if (text.length % 4 === 0) text = text.replace(/==?$/, "");
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
      throw webError("InvalidCharacterError", "atob(): the string is not valid base64");
    }
    let out = "";
    let bits = 0;
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      bits = (bits << 6) | BASE64.indexOf(text[i] as string);
      count += 6;
      if (count >= 8) {
        count -= 8;
        out += fromCharCode((bits >> count) & 255);
      }
    }
    return out;
  }

  function utf8Encode(text: string): number[] {
    const bytes: number[] = [];
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        code = 0x10000 + ((code - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00);
        i++;
      } else if (code >= 0xd800 && code <= 0xdfff) {
        code = 0xfffd;
      }
      if (code < 0x80) bytes.push(code);
      else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
      else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
      else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    }
    return bytes;
  }

  /** WHATWG's UTF-8 decoder: each invalid sequence is one U+FFFD, or an error when `fatal`. */
  function utf8Decode(bytes: Uint8Array, fatal: boolean): string {
    let out = "";
    let i = 0;
    const bad = () => {
      if (fatal) throw new TypeErrorCtor("TextDecoder: the data is not valid UTF-8");
      out += "\ufffd";
    };
    while (i < bytes.length) {
      const first = bytes[i] as number;
      if (first < 0x80) {
        out += fromCharCode(first);
        i++;
        continue;
      }
      let needed = 0;
      let code = 0;
      let lower = 0x80;
      let upper = 0xbf;
      if (first >= 0xc2 && first <= 0xdf) {
        needed = 1;
        code = first & 0x1f;
      } else if (first >= 0xe0 && first <= 0xef) {
        needed = 2;
        code = first & 0xf;
        if (first === 0xe0) lower = 0xa0;
        if (first === 0xed) upper = 0x9f;
      } else if (first >= 0xf0 && first <= 0xf4) {
        needed = 3;
        code = first & 0x7;
        if (first === 0xf0) lower = 0x90;
        if (first === 0xf4) upper = 0x8f;
      } else {
        bad();
        i++;
        continue;
      }
      let seen = 0;
      i++;
      while (seen < needed) {
        const next = bytes[i];
        if (next === undefined || next < lower || next > upper) break;
        code = (code << 6) | (next & 0x3f);
        lower = 0x80;
        upper = 0xbf;
        seen++;
        i++;
      }
      if (seen < needed) {
        bad();
        continue;
      }
      if (code >= 0x10000) {
        code -= 0x10000;
        out += fromCharCode(0xd800 + (code >> 10), 0xdc00 + (code & 0x3ff));
      } else {
        out += fromCharCode(code);
      }
    }
    return out;
  }

  /** The bytes of an ArrayBuffer or a view of one, without copying. */
  function bytesOf(input: unknown, what: string): Uint8Array {
    if (input instanceof ArrayBufferCtor || (SharedBufferCtor !== undefined && input instanceof SharedBufferCtor)) {
      return new Uint8ArrayCtor(input);
    }
    if (isView(input)) return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeErrorCtor(`${what} expects an ArrayBuffer or a typed array, got ${typeName(input)}`);
  }

  class TextEncoder {
    get encoding(): string {
      return "utf-8";
    }
    encode(input: unknown = ""): Uint8Array {
      return new Uint8ArrayCtor(utf8Encode(StringCtor(input)));
    }
    encodeInto(source: unknown, destination: unknown): { read: number; written: number } {
      if (!(destination instanceof Uint8ArrayCtor)) throw new TypeErrorCtor("encodeInto() expects a Uint8Array");
      const text = StringCtor(source);
      let read = 0;
      let written = 0;
      while (read < text.length) {
        const pair = (text.charCodeAt(read) & 0xfc00) === 0xd800 && (text.charCodeAt(read + 1) & 0xfc00) === 0xdc00;
        const units = pair ? 2 : 1;
        const bytes = utf8Encode(text.slice(read, read + units));
        if (written + bytes.length > destination.length) break;
        for (const byte of bytes) destination[written++] = byte;
        read += units;
      }
      return { read, written };
    }
  }

  class TextDecoder {
    readonly #fatal: boolean;
    readonly #ignoreBOM: boolean;
    constructor(label: unknown = "utf-8", options: { fatal?: unknown; ignoreBOM?: unknown } = {}) {
      const name = StringCtor(label).trim().toLowerCase();
      if (name !== "utf-8" && name !== "utf8" && name !== "unicode-1-1-utf-8") {
        throw new RangeErrorCtor(`TextDecoder: the sandbox decodes only UTF-8, not "${StringCtor(label)}"`);
      }
      this.#fatal = options?.fatal === true;
      this.#ignoreBOM = options?.ignoreBOM === true;
    }
    get encoding(): string {
      return "utf-8";
    }
    get fatal(): boolean {
      return this.#fatal;
    }
    get ignoreBOM(): boolean {
      return this.#ignoreBOM;
    }
    decode(input?: unknown, options?: { stream?: unknown }): string {
      if (options?.stream === true) throw new TypeErrorCtor("TextDecoder: { stream: true } is not supported here");
      if (input === undefined) return "";
      const bytes = bytesOf(input, "decode()");
      const start = !this.#ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
      return utf8Decode(bytes.subarray(start), this.#fatal);
    }
  }

  /** The structured clone of plain data, as the HTML standard defines it for what a program here can hold. */
  function structuredClone(...args: unknown[]): unknown {
    if (args.length === 0) throw new TypeErrorCtor("structuredClone() expects a value");
    const value = args[0];
    const copies = new MapCtor<object, unknown>();
    const clone = (item: unknown): unknown => {
      if (typeof item === "function" || typeof item === "symbol") {
        throw webError("DataCloneError", `structuredClone(): ${formatValue(item, 0, [])} could not be cloned`);
      }
      if (typeof item !== "object" || item === null) return item;
      const known = copies.get(item);
      if (known !== undefined) return known;
      let copy: unknown;
      if (isArray(item)) {
        const array: unknown[] = [];
        copies.set(item, array);
        for (let i = 0; i < item.length; i++) array[i] = clone(item[i]);
        copy = array;
      } else if (item instanceof DateCtor) {
        copy = new DateCtor(item.getTime());
      } else if (item instanceof RegExpCtor) {
        copy = new RegExpCtor(item.source, item.flags);
      } else if (item instanceof MapCtor) {
        const map = new MapCtor();
        copies.set(item, map);
        for (const [key, entry] of item) map.set(clone(key), clone(entry));
        copy = map;
      } else if (item instanceof SetCtor) {
        const set = new SetCtor();
        copies.set(item, set);
        for (const entry of item) set.add(clone(entry));
        copy = set;
      } else if (item instanceof ArrayBufferCtor) {
        copy = item.slice(0);
      } else if (isView(item)) {
        const View = (item as unknown as { constructor: new (b: ArrayBufferLike, o: number, l: number) => unknown })
          .constructor;
        const bytes = item.buffer.slice(item.byteOffset, item.byteOffset + item.byteLength);
        const size = (item as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
        copy = new View(bytes, 0, item instanceof DataView ? item.byteLength : item.byteLength / size);
      } else if (item instanceof ErrorCtor) {
        const error = new ErrorCtor(item.message);
        error.name = item.name;
        if (typeof item.stack === "string") error.stack = item.stack;
        copy = error;
      } else if (item instanceof PromiseCtor || item instanceof WeakMap || item instanceof WeakSet) {
        throw webError("DataCloneError", "structuredClone(): a Promise, WeakMap or WeakSet could not be cloned");
      } else {
        const object: Record<string, unknown> = {};
        copies.set(item, object);
        for (const key of keys(item)) object[key] = clone((item as Record<string, unknown>)[key]);
        copy = object;
      }
      copies.set(item, copy);
      return copy;
    };
    return clone(value);
  }

  // ---- URL and URLSearchParams ------------------------------------------------------

  /** What a parsed URL is made of: the WHATWG parser's own results (the worker's Node answers, see host-bridge.ts). */
  interface UrlParts {
    href: string;
    origin: string;
    protocol: string;
    username: string;
    password: string;
    host: string;
    hostname: string;
    port: string;
    pathname: string;
    search: string;
    hash: string;
  }

  /** Parses through the bridge (`url`): the standard's parser is Node's, not a copy of it here; null: not a URL. */
  function urlParts(request: unknown[]): UrlParts | null {
    const answer = send("url", 0, stringify(request));
    return answer === null ? null : (parse(answer) as UrlParts);
  }

  /** application/x-www-form-urlencoded bytes that stay as they are: `*-._`, digits, letters. */
  const FORM_SAFE = /[*\-._0-9A-Za-z]/;
  const HEX = "0123456789ABCDEF";

  function formEncode(text: string): string {
    let out = "";
    for (const byte of utf8Encode(text)) {
      if (byte === 0x20) out += "+";
      else if (byte < 0x80 && FORM_SAFE.test(fromCharCode(byte))) out += fromCharCode(byte);
      else out += `%${HEX.charAt(byte >> 4)}${HEX.charAt(byte & 15)}`;
    }
    return out;
  }

  function formDecode(text: string): string {
    const bytes = utf8Encode(text.replace(/\+/g, " "));
    const out: number[] = [];
    const hex = (byte: number | undefined) => (byte === undefined ? -1 : HEX.indexOf(fromCharCode(byte).toUpperCase()));
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i] as number;
      const high = byte === 0x25 ? hex(bytes[i + 1]) : -1;
      const low = high === -1 ? -1 : hex(bytes[i + 2]);
      if (low === -1) out.push(byte);
      else {
        out.push(high * 16 + low);
        i += 2;
      }
    }
    return utf8Decode(new Uint8ArrayCtor(out), false);
  }

  function formParse(query: string): [string, string][] {
    const pairs: [string, string][] = [];
    for (const part of query.split("&")) {
      if (part === "") continue;
      const at = part.indexOf("=");
      pairs.push(at === -1 ? [formDecode(part), ""] : [formDecode(part.slice(0, at)), formDecode(part.slice(at + 1))]);
    }
    return pairs;
  }

  /** The URL a URLSearchParams belongs to: told when the list changes, and tells it when its query changes. */
  const paramsOwner = new WeakMap<URLSearchParams, URL>();
  let resetParams: (params: URLSearchParams, query: string) => void = () => {};
  let queryChanged: (url: URL, query: string) => void = () => {};

  class URLSearchParams {
    #list: [string, string][] = [];

    constructor(init: unknown = "") {
      if (typeof init === "object" && init !== null) {
        if (init instanceof URLSearchParams) this.#list = init.#list.map(([name, value]) => [name, value]);
        else if (typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function") {
          for (const pair of init as Iterable<unknown>) {
            const entry = typeof pair === "object" && pair !== null ? [...(pair as Iterable<unknown>)] : [];
            if (entry.length !== 2) {
              throw new TypeErrorCtor("URLSearchParams: each pair must have exactly two items, a name and a value");
            }
            this.#list.push([StringCtor(entry[0]), StringCtor(entry[1])]);
          }
        } else {
          for (const key of keys(init)) this.#list.push([key, StringCtor((init as Record<string, unknown>)[key])]);
        }
      } else {
        const text = StringCtor(init);
        this.#list = formParse(text.startsWith("?") ? text.slice(1) : text);
      }
    }

    static {
      // Not a method: the standard's surface stays as it is, and only the URL it belongs to can reset the list.
      resetParams = (params, query) => {
        params.#list = formParse(query.startsWith("?") ? query.slice(1) : query);
      };
    }

    get size(): number {
      return this.#list.length;
    }
    append(name: unknown, value: unknown): void {
      this.#list.push([StringCtor(name), StringCtor(value)]);
      this.#changed();
    }
    delete(name: unknown, value?: unknown): void {
      const key = StringCtor(name);
      const only = value === undefined ? undefined : StringCtor(value);
      this.#list = this.#list.filter(([n, v]) => n !== key || (only !== undefined && v !== only));
      this.#changed();
    }
    get(name: unknown): string | null {
      const key = StringCtor(name);
      return this.#list.find(([n]) => n === key)?.[1] ?? null;
    }
    getAll(name: unknown): string[] {
      const key = StringCtor(name);
      return this.#list.filter(([n]) => n === key).map(([, v]) => v);
    }
    has(name: unknown, value?: unknown): boolean {
      const key = StringCtor(name);
      const only = value === undefined ? undefined : StringCtor(value);
      return this.#list.some(([n, v]) => n === key && (only === undefined || v === only));
    }
    set(name: unknown, value: unknown): void {
      const key = StringCtor(name);
      const text = StringCtor(value);
      const at = this.#list.findIndex(([n]) => n === key);
      if (at === -1) this.#list.push([key, text]);
      else {
        this.#list[at] = [key, text];
        this.#list = this.#list.filter(([n], index) => n !== key || index <= at);
      }
      this.#changed();
    }
    sort(): void {
      // Stable, by UTF-16 code units of the names.
      this.#list = this.#list
        .map((pair, index) => ({ pair, index }))
        .sort((a, b) => (a.pair[0] < b.pair[0] ? -1 : a.pair[0] > b.pair[0] ? 1 : a.index - b.index))
        .map(({ pair }) => pair);
      this.#changed();
    }
    forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void {
      for (const [name, value] of [...this.#list]) apply(callback, thisArg, [value, name, this]);
    }
    *keys(): IterableIterator<string> {
      for (const [name] of [...this.#list]) yield name;
    }
    *values(): IterableIterator<string> {
      for (const [, value] of [...this.#list]) yield value;
    }
    *entries(): IterableIterator<[string, string]> {
      for (const [name, value] of [...this.#list]) yield [name, value];
    }
    [Symbol.iterator](): IterableIterator<[string, string]> {
      return this.entries();
    }
    toString(): string {
      return this.#list.map(([name, value]) => `${formEncode(name)}=${formEncode(value)}`).join("&");
    }
    get [Symbol.toStringTag](): string {
      return "URLSearchParams";
    }

    #changed(): void {
      const url = paramsOwner.get(this);
      if (url !== undefined) queryChanged(url, this.toString());
    }
  }

  class URL {
    #parts: UrlParts;
    #params: URLSearchParams | null = null;

    constructor(...args: unknown[]) {
      if (args.length === 0) throw new TypeErrorCtor("URL: at least one argument (the URL) is required");
      const input = StringCtor(args[0]);
      const parts = urlParts(args[1] === undefined ? [input] : [input, StringCtor(args[1])]);
      if (parts === null) {
        const base = args[1] === undefined ? "" : ` against the base ${stringify(StringCtor(args[1]))}`;
        throw new TypeErrorCtor(`Invalid URL: ${stringify(input)}${base}`);
      }
      this.#parts = parts;
    }

    static canParse(url: unknown, base?: unknown): boolean {
      return urlParts(base === undefined ? [StringCtor(url)] : [StringCtor(url), StringCtor(base)]) !== null;
    }
    static parse(url: unknown, base?: unknown): URL | null {
      try {
        return base === undefined ? new URL(url) : new URL(url, base);
      } catch {
        return null;
      }
    }
    static {
      // From its URLSearchParams (not a method, as above): the list changed, so the query is the list's.
      queryChanged = (url, query) => url.#set("search", query, true);
    }

    #set(part: keyof UrlParts, value: unknown, fromParams = false): void {
      const parts = urlParts([this.#parts.href, part, StringCtor(value)]);
      if (parts === null) throw new TypeErrorCtor(`Invalid URL: ${stringify(StringCtor(value))}`);
      const queryBefore = this.#parts.search;
      this.#parts = parts;
      if (!fromParams && this.#params !== null && parts.search !== queryBefore) {
        resetParams(this.#params, parts.search);
      }
    }

    get href(): string {
      return this.#parts.href;
    }
    set href(value: string) {
      this.#set("href", value);
    }
    get origin(): string {
      return this.#parts.origin;
    }
    get protocol(): string {
      return this.#parts.protocol;
    }
    set protocol(value: string) {
      this.#set("protocol", value);
    }
    get username(): string {
      return this.#parts.username;
    }
    set username(value: string) {
      this.#set("username", value);
    }
    get password(): string {
      return this.#parts.password;
    }
    set password(value: string) {
      this.#set("password", value);
    }
    get host(): string {
      return this.#parts.host;
    }
    set host(value: string) {
      this.#set("host", value);
    }
    get hostname(): string {
      return this.#parts.hostname;
    }
    set hostname(value: string) {
      this.#set("hostname", value);
    }
    get port(): string {
      return this.#parts.port;
    }
    set port(value: string) {
      this.#set("port", value);
    }
    get pathname(): string {
      return this.#parts.pathname;
    }
    set pathname(value: string) {
      this.#set("pathname", value);
    }
    get search(): string {
      return this.#parts.search;
    }
    set search(value: string) {
      this.#set("search", value);
    }
    get hash(): string {
      return this.#parts.hash;
    }
    set hash(value: string) {
      this.#set("hash", value);
    }
    get searchParams(): URLSearchParams {
      if (this.#params === null) {
        const params = new URLSearchParams(this.#parts.search);
        paramsOwner.set(params, this);
        this.#params = params;
      }
      return this.#params;
    }
    toString(): string {
      return this.#parts.href;
    }
    toJSON(): string {
      return this.#parts.href;
    }
    get [Symbol.toStringTag](): string {
      return "URL";
    }
  }

  // ---- crypto: random values ------------------------------------------------------
  // The bytes come from the host (Node's generator, one bridge call per draw) and are part of a durable run's
  // record, so a resumed run draws the same ones. No `crypto.subtle`: keys and signatures belong in tools.

  const INTEGER_ARRAYS = [
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    BigInt64Array,
    BigUint64Array,
  ];
  const parseHex = NumberCtor.parseInt;

  function getRandomValues<T>(...args: T[]): T {
    const array = args[0];
    if (args.length === 0 || !isView(array) || !INTEGER_ARRAYS.some((Ctor) => array instanceof Ctor)) {
      throw webError(
        "TypeMismatchError",
        "crypto.getRandomValues(): expects an integer typed array (Uint8Array, Uint32Array, BigUint64Array, …)",
      );
    }
    const { buffer, byteOffset, byteLength } = array as ArrayBufferView;
    if (byteLength > 65536) {
      throw webError(
        "QuotaExceededError",
        `crypto.getRandomValues(): the array has ${byteLength} bytes; at most 65536 can be filled at a time`,
      );
    }
    if (byteLength === 0) return array;
    const hex = randomHex(byteLength, "drew random bytes");
    const bytes = new Uint8ArrayCtor(buffer, byteOffset, byteLength);
    for (let i = 0; i < byteLength; i++) bytes[i] = parseHex(hex.slice(2 * i, 2 * i + 2), 16);
    return array;
  }

  /** A version 4 UUID from 16 random bytes, lower case, as `crypto.randomUUID()` gives it. */
  function randomUUID(): string {
    const hex = randomHex(16, "drew random bytes");
    const variant = (8 | (parseHex(hex.charAt(16), 16) & 3)).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  const crypto = create(null) as Record<string | symbol, unknown>;
  defineProperty(crypto, "getRandomValues", { ...method, value: getRandomValues });
  defineProperty(crypto, "randomUUID", { ...method, value: randomUUID });
  defineProperty(crypto, Symbol.toStringTag, { value: "Crypto", configurable: true });

  // ---- the global object -----------------------------------------------------------

  const cyrnel = freeze(assign(create(null), { services: openTable(services, (id) => makeService(id, [])), output }));
  const console = freeze(
    assign(create(null), {
      log: logger("stdout"),
      info: logger("stdout"),
      debug: logger("stdout"),
      warn: logger("stderr"),
      error: logger("stderr"),
    }),
  );
  // V8's own `console` is inert without an inspector, and WebAssembly is not
  // part of the surface; both are removed rather than left half-working.
  delete global.console;
  delete global.WebAssembly;
  // isolated-vm 5 cannot host Atomics.waitAsync: with a timeout it aborts the
  // whole sandbox process (failing every execution in it), and a waiter woken
  // by Atomics.notify never resumes. The rest of Atomics works.
  delete (global.Atomics as Record<string, unknown> | undefined)?.waitAsync;
  const install = (name: string, value: unknown) =>
    defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });
  install("cyrnel", cyrnel);
  install("console", console);
  install("setTimeout", setTimeout);
  install("clearTimeout", clearTimeout);
  install("Date", DateShim);
  install("atob", atob);
  install("btoa", btoa);
  install("TextEncoder", TextEncoder);
  install("TextDecoder", TextDecoder);
  install("structuredClone", structuredClone);
  install("URL", URL);
  install("URLSearchParams", URLSearchParams);
  install("crypto", crypto);

  /** The user's line in a captured stack (`code.ts:3:20`), or "" when it has none. */
  function siteOf(holder: { stack?: unknown }): string {
    try {
      const frame = userFrames(holder.stack).split("\n")[1] ?? "";
      const at = /\(([^()]*)\)\s*$/.exec(frame)?.[1] ?? frame.trim().replace(/^at /, "");
      return at;
    } catch {
      return "";
    }
  }

  /**
   * What the program waits for, for the message of a run that timed out while it awaited: each tool call in flight
   * and each timer, with the line that started it (JSON `[{what, at}]`). Called only while the isolate is idle.
   */
  function waitingFor(): string {
    const waits: { what: string; at: string }[] = [];
    for (const id of keys(pendingCalls)) {
      const call = pendingCalls[NumberCtor(id)] as PendingCall;
      waits.push({ what: call.what, at: siteOf(call.error) });
    }
    for (const id of keys(timers)) {
      const timer = timers[NumberCtor(id)] as (typeof timers)[number];
      waits.push({ what: `a timer of ${timer.delay} ms`, at: siteOf(timer.site) });
    }
    return stringify(waits);
  }

  function deliver(kind: HostDelivery, id: number, payload: string): void {
    if (kind === "toolResult") settleToolCall(id, payload);
    else if (kind === "timer") fireTimer(id);
    else if (kind === "waiting") checkWaiting();
  }

  return freeze(assign(create(null), { deliver, run, replay, waitingFor }));
}
