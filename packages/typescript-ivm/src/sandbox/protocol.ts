/**
 * The wire between the host and the in-isolate prelude. Only primitives cross
 * it: structured data travels as JSON strings, and neither side ever holds a
 * live object of the other beyond these two functions.
 */

/** Calls the sandbox makes to the host, multiplexed over one synchronous `ivm.Callback`. */
export type SandboxCall =
  /** `payload`: JSON `{ serviceId, toolId, parameters }`; `id` names the pending call. */
  | "invoke"
  /** `payload`: one formatted console line (without its newline). */
  | "stdout"
  | "stderr"
  /** `payload`: the JSON of one `cyrnel.output(...)` patch. */
  | "output"
  /** A single `cyrnel.output(...)` patch was larger than the output limit; `id` is its length in UTF-16 units. */
  | "outputTooLarge"
  /** `id`: the timer; `payload`: how long to wait in milliseconds (its delay, less the time that passed since it was set on replay). */
  | "setTimer"
  | "clearTimer"
  /** Nothing but the entries of the call's fourth argument (sent when many wait, and when the run ends). */
  | "replay"
  /**
   * When the run ends: the UTF-8 bytes of console text the prelude dropped past its own cap and never sent,
   * `payload` `"<stdout>,<stderr>"` (the host counts what it cuts of what it was sent).
   */
  | "dropped"
  /** On replay, the program did something the record does not have; `payload`: JSON `[what the record had, what the program did]`. */
  | "diverged"
  /**
   * Parse a URL with the WHATWG parser: `payload` JSON `[input]`, `[input, base]`, or `[href, part, value]` to
   * set one part of a parsed URL; answered with the JSON of its parts, or `null` when it is not a valid URL.
   */
  | "url"
  /** `id` bytes (1 to 65536) from the host's cryptographic generator, answered as hex. */
  | "randomBytes";

/**
 * The host side of {@link SandboxCall}s. Runs synchronously on the host's
 * main thread while the isolate waits (which also throttles floods of
 * console lines). Returns `null` when accepted, otherwise a message the
 * prelude throws inside the sandbox.
 *
 * `replay` is what the prelude recorded for durable runs since its last
 * call (a JSON array of entries, see the prelude), or `""`: the host passes
 * it on before it handles the call itself.
 */
export type SendToHost = (kind: SandboxCall, id: number, payload: string, replay: string) => string | null;

/** What the host pushes into the sandbox, through `PreludeHandle.deliver`. */
export type HostDelivery =
  /** `id`: the pending tool call; `payload`: JSON {@link ToolOutcome}. */
  | "toolResult"
  /** `id`: the timer that is due. */
  | "timer"
  /**
   * On replay: the next recorded delivery has not arrived and the isolate
   * is idle; the prelude checks that the program waits for something that
   * can bring it (see worker/replay-order.ts).
   */
  | "waiting";

/** The settled value of one tool call, as the host sends it back. */
export type ToolOutcome =
  | { ok: true; value?: unknown }
  | { ok: false; error: { message: string; status?: number; code?: string; details?: unknown } };

/** How the user's code ended, as the prelude reports it (JSON). */
export type RunOutcome = { ok: true } | { ok: false; error: string };

/** What the prelude returns to the host (held only as `ivm.Reference`s). */
export interface PreludeHandle {
  deliver(kind: HostDelivery, id: number, payload: string): void;
  /**
   * Fills `cyrnel.services` from the run's catalog (JSON ServiceCatalog),
   * then runs the compiled user function; resolves with a JSON
   * {@link RunOutcome}, never rejects.
   */
  run(fn: unknown, servicesJson: string): Promise<string>;
  /** On a resumed run, before its code is compiled: the entries of earlier attempts (JSON array of strings). */
  replay(entriesJson: string): void;
  /** What the program awaits (JSON `[{what, at}]`: tool calls in flight, timers), for a run that timed out idle. */
  waitingFor(): string;
}

/** Limits the prelude enforces before anything crosses to the host. */
export interface PreludeLimits {
  maxTimers: number;
  /** Per stream; lengths are counted in UTF-16 units, which never exceed UTF-8 bytes. */
  maxLogChars: number;
  maxOutputChars: number;
  /** File name the user's code is compiled under; stack frames from other files are hidden. */
  userFilename: string;
}
