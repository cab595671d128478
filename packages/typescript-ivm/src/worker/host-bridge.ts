import { randomBytes } from "node:crypto";
import type { InvokeInput, Logger } from "@cyrnel/sdk";
import { clampMessage, nondeterministicReplay, outputTooLarge } from "../messages.js";
import type { HostDelivery, SandboxCall } from "../sandbox/protocol.js";

/** Where a run's effects go. In the worker each of these becomes an IPC message to the host process. */
export interface RunReporter {
  /** Resolves with a JSON ToolOutcome (see tool-outcome.ts); never rejects. */
  invokeTool(executionId: number, input: InvokeInput): Promise<string>;
  setError(executionId: number, message: string): void;
  emitStdout(executionId: number, chunk: string): void;
  emitStderr(executionId: number, chunk: string): void;
  emitOutput(executionId: number, patch: Record<string, unknown>): void;
  /** Entries the prelude recorded for durable runs, in order; passed on before anything reported after them. */
  recordReplay(executionId: number, entries: string[]): void;
  /** The run waits for nothing but its timers, the first due at `wakeAt` (see `EnvironmentBindings.sleeping`). */
  sleeping(executionId: number, wakeAt: number): void;
  /** A stream was cut at `maxLogBytes`; `bytes` dropped past it so far (see `EnvironmentBindings.streamDropped`). */
  streamDropped(executionId: number, stream: "stdout" | "stderr", bytes: number): void;
}

export interface BridgeLimits {
  maxTimers: number;
  maxPendingToolCalls: number;
  maxLogBytes: number;
  maxOutputBytes: number;
}

/** What the bridge needs from the execution it serves. */
export interface BridgeOwner {
  readonly executionId: number;
  /** Whether the run is still going; once false, calls are refused and results dropped. */
  isRunning(): boolean;
  /**
   * Pushes a value into the sandbox (asynchronously; the isolate runs it
   * when it is free). Dropped once the run has ended.
   */
  deliver(kind: HostDelivery, id: number, payload: string): void;
  /** Ends the run as `failed` with `message`, from the host side (uncatchable by user code). */
  fail(message: string): void;
  /** On replay: whether the record has timer `id` firing ahead, so it fires on its turn instead of after its delay. */
  firesOnTurn(timerId: number): boolean;
  /** Something the run waits for changed (a timer set, cleared or fired; a call sent or answered). */
  waitChanged(): void;
}

const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * The Node end of the sandbox's calls (see protocol.ts), in the worker
 * process. Everything that arrives is untrusted: types are checked and sizes
 * are bounded here, before anything travels on to the host process.
 */
export class HostBridge {
  private readonly timers = new Map<number, { handle: NodeJS.Timeout; dueAt: number }>();
  private pendingToolCalls = 0;
  private readonly logBytes = { stdout: 0, stderr: 0 };
  private readonly logCut = { stdout: false, stderr: false };
  /** Bytes of each stream dropped past the cut, and how many of them the host was told of. */
  private readonly logDropped = { stdout: 0, stderr: 0 };
  private readonly logDroppedTold = { stdout: 0, stderr: 0 };
  private readonly outputSizes = new Map<string, number>();
  /** Byte length of the merged output as JSON: `{}` plus each `"key":value` and the commas between them. */
  private outputBytes = 2;
  /** Counts every call from the isolate and every answer to it: unchanged over a wait, nothing happened in it. */
  private activity = 0;

  constructor(
    private readonly owner: BridgeOwner,
    private readonly reporter: RunReporter,
    private readonly limits: BridgeLimits,
    private readonly logger: Logger,
  ) {}

  /** The function handed to the isolate as an `ivm.Callback`; runs synchronously while the isolate waits. */
  readonly receive = (kind: unknown, id: unknown, payload: unknown, replay: unknown): string | null => {
    if (!this.owner.isRunning()) return "the execution has ended";
    this.activity++;
    if (
      typeof kind !== "string" ||
      typeof id !== "number" ||
      !Number.isSafeInteger(id) ||
      typeof payload !== "string" ||
      typeof replay !== "string"
    ) {
      return "cyrnel: malformed bridge call";
    }
    try {
      // First: the host must have what the program read before anything it did afterwards.
      if (replay !== "" && !this.recordReplay(replay)) return "cyrnel: malformed bridge call";
      switch (kind as SandboxCall) {
        case "invoke":
          return this.startToolCall(id, payload);
        case "stdout":
        case "stderr":
          this.writeLog(kind as "stdout" | "stderr", payload);
          return null;
        case "output":
          return this.writeOutput(payload);
        case "outputTooLarge":
          return this.failOutput();
        case "setTimer":
          return this.setTimer(id, payload);
        case "clearTimer":
          this.clearTimer(id);
          return null;
        case "replay":
          return null;
        case "dropped":
          this.addUnsent(payload);
          return null;
        case "diverged":
          return this.diverged(payload);
        case "url":
          return urlParts(payload);
        case "randomBytes":
          return id >= 1 && id <= 65536 ? randomBytes(id).toString("hex") : null;
        default:
          return "cyrnel: unknown bridge call";
      }
    } catch (error) {
      this.logger.error("typescript-ivm: bridge call failed", {
        executionId: this.owner.executionId,
        kind,
        error: error instanceof Error ? error.message : String(error),
      });
      return "cyrnel: the host could not handle this call";
    }
  };

  /** Cancels every pending timer; results of tool calls still in flight are dropped when they arrive. */
  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer.handle);
    this.timers.clear();
    // What was dropped since the cut was told: the exact totals, before the run's end.
    for (const stream of ["stdout", "stderr"] as const) this.tellDropped(stream);
  }

  /** What the prelude dropped without sending (`"<stdout>,<stderr>"` bytes), added to what was cut here. */
  private addUnsent(payload: string): void {
    const [stdout, stderr] = payload.split(",").map(Number);
    for (const [stream, bytes] of [
      ["stdout", stdout],
      ["stderr", stderr],
    ] as const) {
      if (bytes !== undefined && Number.isSafeInteger(bytes) && bytes > 0 && this.logCut[stream]) {
        this.logDropped[stream] += bytes;
      }
    }
  }

  private tellDropped(stream: "stdout" | "stderr"): void {
    const bytes = this.logDropped[stream];
    if (!this.logCut[stream] || bytes === this.logDroppedTold[stream]) return;
    this.logDroppedTold[stream] = bytes;
    this.reporter.streamDropped(this.owner.executionId, stream, bytes);
  }

  /** How many calls and answers crossed the bridge so far: the same count twice means nothing crossed between. */
  get crossings(): number {
    return this.activity;
  }

  /**
   * When the run's first timer fires (ms since the epoch), if the run waits for timers and nothing else: no tool
   * call in flight. Null otherwise. (Whether its isolate is idle too is for the execution to find out.)
   */
  timersOnlyUntil(): number | null {
    if (this.pendingToolCalls > 0 || this.timers.size === 0) return null;
    let first = Number.POSITIVE_INFINITY;
    for (const timer of this.timers.values()) first = Math.min(first, timer.dueAt);
    return first;
  }

  private recordReplay(text: string): boolean {
    const entries = parseJson(text);
    if (!Array.isArray(entries) || !entries.every((entry) => typeof entry === "string")) return false;
    if (entries.length > 0) this.reporter.recordReplay(this.owner.executionId, entries);
    return true;
  }

  private diverged(payload: string): string {
    const parts = parseJson(payload);
    const [had, did] = Array.isArray(parts) ? parts : [];
    const message = nondeterministicReplay(
      clampMessage(typeof had === "string" ? had : "something else", 200),
      clampMessage(typeof did === "string" ? did : "did something else", 200),
    );
    this.owner.fail(message);
    return message;
  }

  private startToolCall(id: number, payload: string): string | null {
    if (this.pendingToolCalls >= this.limits.maxPendingToolCalls) {
      return `more than ${this.limits.maxPendingToolCalls} tool calls are in flight; await some before starting more`;
    }
    const request = parseJson(payload) as
      | { serviceId?: unknown; toolId?: unknown; parameters?: unknown; withResponse?: unknown }
      | undefined;
    if (
      typeof request?.serviceId !== "string" ||
      typeof request.toolId !== "string" ||
      !isPlainObject(request.parameters)
    ) {
      return "cyrnel: malformed tool call";
    }
    const input: InvokeInput = { serviceId: request.serviceId, toolId: request.toolId, parameters: request.parameters };
    if (request.withResponse === true) input.withResponse = true;
    this.pendingToolCalls++;
    void this.reporter.invokeTool(this.owner.executionId, input).then((outcome) => this.finishToolCall(id, outcome));
    this.owner.waitChanged();
    return null;
  }

  private finishToolCall(id: number, outcome: string): void {
    this.pendingToolCalls--;
    this.activity++;
    this.owner.deliver("toolResult", id, outcome);
    this.owner.waitChanged();
  }

  private writeLog(stream: "stdout" | "stderr", text: string): void {
    const line = `${text}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.logCut[stream]) {
      this.logDropped[stream] += bytes;
      return;
    }
    const room = this.limits.maxLogBytes - this.logBytes[stream];
    if (bytes <= room) {
      this.logBytes[stream] += bytes;
      this.emit(stream, line);
      return;
    }
    // Cut: what fits goes out, the host is told how much is dropped (and again, exactly, when the run ends) and
    // marks the end itself (see the supervisor for a host that cannot).
    this.logCut[stream] = true;
    const head = utf8Prefix(line, room);
    this.logBytes[stream] += Buffer.byteLength(head);
    this.logDropped[stream] = bytes - Buffer.byteLength(head);
    if (head !== "") this.emit(stream, head);
    this.tellDropped(stream);
  }

  private emit(stream: "stdout" | "stderr", chunk: string): void {
    if (stream === "stdout") this.reporter.emitStdout(this.owner.executionId, chunk);
    else this.reporter.emitStderr(this.owner.executionId, chunk);
  }

  private writeOutput(payload: string): string | null {
    const patch = parseJson(payload);
    if (!isPlainObject(patch)) return "cyrnel.output() expects a plain object";
    // JSON.parse makes "__proto__" an own key; a host merging with Object.assign would treat it as the prototype.
    if (Object.hasOwn(patch, "__proto__")) Reflect.deleteProperty(patch, "__proto__");
    const sizes = new Map<string, number>();
    let total = this.outputBytes;
    for (const [key, value] of Object.entries(patch)) {
      const size = Buffer.byteLength(JSON.stringify(key)) + 1 + Buffer.byteLength(JSON.stringify(value));
      const previous = this.outputSizes.get(key);
      total += previous === undefined ? size + (this.outputSizes.size + sizes.size > 0 ? 1 : 0) : size - previous;
      sizes.set(key, size);
    }
    if (total > this.limits.maxOutputBytes) return this.failOutput();
    for (const [key, size] of sizes) this.outputSizes.set(key, size);
    this.outputBytes = total;
    this.reporter.emitOutput(this.owner.executionId, patch);
    return null;
  }

  private failOutput(): string {
    const message = outputTooLarge(this.limits.maxOutputBytes);
    this.owner.fail(message);
    return message;
  }

  private setTimer(id: number, payload: string): string | null {
    if (this.timers.size >= this.limits.maxTimers && !this.timers.has(id)) {
      return `setTimeout(): more than ${this.limits.maxTimers} timers are pending`;
    }
    this.clearTimer(id);
    if (this.owner.firesOnTurn(id)) {
      // Replaying a run that slept an hour must not sleep again: the record says this timer fired, so it is ready.
      this.owner.deliver("timer", id, "");
      return null;
    }
    const requested = Number(payload);
    const delay = Number.isFinite(requested) ? Math.min(Math.max(requested, 0), MAX_TIMER_DELAY_MS) : 0;
    const handle = setTimeout(() => {
      this.timers.delete(id);
      this.activity++;
      this.owner.deliver("timer", id, "");
      this.owner.waitChanged();
    }, delay);
    this.timers.set(id, { handle, dueAt: Date.now() + delay });
    this.owner.waitChanged();
    return null;
  }

  private clearTimer(id: number): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    clearTimeout(timer.handle);
    this.timers.delete(id);
    this.owner.waitChanged();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/** The parts of a URL the WHATWG way (Node's parser), for the sandbox's `URL`: `[input]`, `[input, base]`, `[href, part, value]`. */
const URL_PARTS = [
  "href",
  "origin",
  "protocol",
  "username",
  "password",
  "host",
  "hostname",
  "port",
  "pathname",
  "search",
  "hash",
] as const;
const SETTABLE = new Set<string>(URL_PARTS.filter((part) => part !== "origin"));

/** The JSON of the URL's parts, or null when the request does not make a valid URL. */
export function urlParts(payload: string): string | null {
  const request: unknown = JSON.parse(payload);
  if (!Array.isArray(request) || !request.every((item) => typeof item === "string")) return null;
  let url: URL;
  try {
    if (request.length === 3) {
      const [href, part, value] = request as [string, string, string];
      if (!SETTABLE.has(part)) return null;
      url = new URL(href);
      (url as unknown as Record<string, string>)[part] = value;
    } else if (request.length === 1 || request.length === 2) {
      url = new URL(request[0] as string, request[1] as string | undefined);
    } else return null;
  } catch {
    return null;
  }
  return JSON.stringify(Object.fromEntries(URL_PARTS.map((part) => [part, url[part]])));
}
