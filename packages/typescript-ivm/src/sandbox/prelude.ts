import type { HostDelivery, PreludeHandle, PreludeLimits, RunOutcome, SendToHost, ToolOutcome } from "./protocol.js";

type Callable = (...args: unknown[]) => unknown;
type Stream = "stdout" | "stderr";
interface PendingCall {
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  /** Created when `invoke` was called, so a rejection's stack points at the caller's line. */
  error: Error & { status?: number; code?: string; details?: unknown };
}

/**
 * The in-isolate half of the bridge: it builds the sandbox surface
 * (`cyrnel`, `console`, `setTimeout`, `clearTimeout`) in a fresh context and
 * returns the two functions the host drives the run with.
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
export function prelude(send: SendToHost, limitsJson: string): PreludeHandle {
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

  // ---- run lifecycle ---------------------------------------------------------

  let failRun: (thrown: unknown) => void = () => {};

  function run(fn: unknown, servicesJson: string): Promise<string> {
    fillServices(servicesJson);
    return new PromiseCtor<string>((resolve) => {
      let done = false;
      const finish = (outcome: RunOutcome) => {
        if (done) return;
        done = true;
        reportLeftovers();
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

  function startToolCall(serviceId: string, toolId: string, params: unknown, frameBoundary: Callable) {
    const error: PendingCall["error"] = new ErrorCtor("tool call failed");
    captureStackTrace(error, frameBoundary);
    return new ToolCallPromise((resolve, reject) => {
      const parameters = params === undefined ? {} : params;
      if (parameters === null || typeof parameters !== "object" || isArray(parameters)) {
        throw new TypeErrorCtor(`invoke() expects a parameters object, got ${typeName(parameters)}`);
      }
      const json = serialise(parameters, "invoke() parameters");
      const id = ++callSeq;
      const payload = `{"serviceId":${stringify(serviceId)},"toolId":${stringify(toolId)},"parameters":${json}}`;
      pendingCalls[id] = { resolve, reject, error };
      const refused = send("invoke", id, payload);
      if (refused !== null) {
        delete pendingCalls[id];
        throw new RangeErrorCtor(refused);
      }
    });
  }

  function settleToolCall(id: number, payload: string): void {
    const call = pendingCalls[id];
    if (call === undefined) return;
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
    const invoke = (params?: unknown): Promise<unknown> => startToolCall(serviceId, toolId, params, invoke);
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

  function writeLine(stream: Stream, line: string): void {
    const used = logged[stream];
    // Past the limit the host has already written its truncation marker.
    if (used > limits.maxLogChars) return;
    // One unit past the limit is enough for the host to notice the overflow.
    const room = limits.maxLogChars - used + 1;
    const text = line.length > room ? line.slice(0, room) : line;
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

  const timers: Record<number, { callback: Callable; args: unknown[] }> = create(null);
  let timerSeq = 0;
  let activeTimers = 0;

  function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
    if (typeof callback !== "function") throw new TypeErrorCtor("setTimeout() expects a function");
    if (activeTimers >= limits.maxTimers) {
      throw new RangeErrorCtor(`setTimeout(): more than ${limits.maxTimers} timers are pending`);
    }
    const ms = Number(delay);
    const id = ++timerSeq;
    const refused = send("setTimer", id, StringCtor(mathMax(ms, 0)));
    if (refused !== null) throw new RangeErrorCtor(refused);
    timers[id] = { callback: callback as Callable, args };
    activeTimers++;
    return id;
  }

  function clearTimeout(id?: unknown): void {
    if (typeof id !== "number" || timers[id] === undefined) return;
    delete timers[id];
    activeTimers--;
    send("clearTimer", id, "");
  }

  function fireTimer(id: number): void {
    const timer = timers[id];
    if (timer === undefined) return;
    delete timers[id];
    activeTimers--;
    try {
      apply(timer.callback, undefined, timer.args);
    } catch (thrown) {
      failRun(thrown);
    }
  }

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

  function deliver(kind: HostDelivery, id: number, payload: string): void {
    if (kind === "toolResult") settleToolCall(id, payload);
    else if (kind === "timer") fireTimer(id);
  }

  return freeze(assign(create(null), { deliver, run }));
}
