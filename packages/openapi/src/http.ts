import { STATUS_CODES } from "node:http";
import { AdapterError, fetchFollowingRedirects, secretForms } from "@cyrnel/sdk";
import type { BodyBytes } from "./body.js";
import { isJsonType } from "./media-types.js";
import { nodeRequest } from "./node-request.js";
import { isRecord } from "./records.js";

/**
 * Stage 7 (see the README's table): one HTTP exchange with Node's global fetch.
 *
 * - One deadline (`timeoutMs`) covers connecting, redirects and reading
 *   the body; the adapter's teardown cancels exchanges still in flight.
 * - Redirects (at most 5) are followed by the SDK's `fetchFollowingRedirects`,
 *   the rules every adapter shares: one to another origin fails the call
 *   unless the service allows it (`crossOriginRedirects`); allowed, it never
 *   goes to a link-local or metadata address, and the credential headers
 *   and cookies stay behind (credential query parameters were never part of
 *   the `Location`). 303, and 301/302 after a POST, continue as GET.
 * - Bodies: none for HEAD, 204, 205 and 304 or an empty body (`null`); JSON
 *   when the content type says so (text if it does not parse); text
 *   otherwise. A body is read as it streams and never held past
 *   `maxResponseBytes`: a longer 2xx body fails the call, a longer error
 *   body is cut to {@link MAX_ERROR_BODY_BYTES} (it only travels on the
 *   error), and the rest is not downloaded.
 * - Messages name the method and the URL without credentials (cut to
 *   {@link MAX_URL_CHARS}); any secret value is scrubbed from messages and
 *   from returned bodies.
 */

const MAX_REDIRECTS = 5;
const REDACTED = "[redacted]";
/** Most of an error body kept on the thrown error. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Most of a URL shown in a message (a huge query parameter would otherwise make a huge message). */
export const MAX_URL_CHARS = 2000;
const numberFormat = new Intl.NumberFormat("en-US");

export interface Exchange {
  method: string;
  url: string;
  /** The URL as shown in messages: without credential query parameters. */
  displayUrl: string;
  headers: Headers;
  body?: BodyBytes;
  timeoutMs: number;
  /** Largest body accepted (see the module comment). */
  maxResponseBytes: number;
  /**
   * Aborted when the adapter is torn down, or when the host stops waiting for the call (the `signal` of its
   * `InvokeInput`): the exchange ends at once (see {@link callSignal}).
   */
  cancel?: Cancel;
  /** Follow redirects to another origin (never to a link-local address); false: such a redirect fails the call. */
  crossOriginRedirects?: boolean;
  /** Lower-case header names that carry credentials (dropped on cross-origin redirects). */
  credentialHeaders: string[];
  /** Secret values to scrub from messages and results. */
  secrets: string[];
}

export interface Reply {
  status: number;
  statusText: string;
  /** The response headers, names lower case (repeated ones joined with `, `), secrets redacted. */
  headers: Record<string, string>;
  body: unknown;
}

/** A non-2xx answer from the upstream service; the host passes its status and body on to the caller. */
export class UpstreamError extends AdapterError {
  declare readonly status: number;
  constructor(message: string, status: number, body: unknown) {
    super(message, { status, body });
    this.name = "UpstreamError";
  }
}

/** Replace every occurrence of a secret, in any form it travels in (see `secretForms`), in strings inside `value`. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const needles = secretForms(secrets);
  if (needles.length === 0) return value;
  const scrub = (item: unknown): unknown => {
    if (typeof item === "string") return needles.reduce((text, needle) => text.replaceAll(needle, REDACTED), item);
    if (Array.isArray(item)) return item.map(scrub);
    if (isRecord(item)) {
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) {
        Object.defineProperty(out, scrub(key) as string, {
          value: scrub(entry),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return item;
  };
  return scrub(value) as T;
}

/** The URL without user info, cut to {@link MAX_URL_CHARS}, for messages. */
export function displayUrl(url: string): string {
  let shown = url;
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    shown = parsed.href;
  } catch {
    // Not a URL: shown as it is.
  }
  if (shown.length <= MAX_URL_CHARS) return shown;
  return `${shown.slice(0, MAX_URL_CHARS)}… [cut: ${numberFormat.format(shown.length - MAX_URL_CHARS)} more characters]`;
}

function describeFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  return cause?.message || (error instanceof Error ? error.message : String(error));
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CallSignal {
  signal: AbortSignal;
  /** Why `signal` aborted, once it has. */
  readonly reason: "timeout" | "canceled" | null;
  /** What a cancel said when it aborted (a string reason given to `abort()`), once one has. */
  readonly canceledBecause: string | null;
  /** Stop the deadline timer and forget `cancel`; call when the exchange is over. */
  dispose(): void;
}

/**
 * The signal of one outbound call: it aborts at the deadline, or at once
 * when `cancel` aborts. An abandoned call must not outlive the adapter:
 * its open socket would keep the host process alive after shutdown (the
 * host stops waiting for a slow call, but only the adapter can end it).
 * The listener on the long-lived `cancel` signal is removed by `dispose`.
 */
/** What cancels a call: one signal, or several (the adapter's lifetime and the caller's). */
export type Cancel = AbortSignal | readonly (AbortSignal | undefined)[] | undefined;

export function callSignal(timeoutMs: number, cancel: Cancel): CallSignal {
  const cancels = (Array.isArray(cancel) ? cancel : [cancel]).filter((one): one is AbortSignal => one !== undefined);
  const controller = new AbortController();
  let reason: CallSignal["reason"] = null;
  let canceledBecause: string | null = null;
  const stop = (why: "timeout" | "canceled") => {
    if (reason !== null) return;
    reason = why;
    controller.abort();
  };
  // Node runs longer timers after 1 ms; ~24.8 days is "no deadline" in practice.
  const timer = setTimeout(() => stop("timeout"), Math.min(timeoutMs, MAX_TIMER_MS));
  timer.unref();
  const onCancel = (event: Event) => {
    const why = (event.target as AbortSignal).reason;
    if (reason === null && typeof why === "string") canceledBecause = why;
    stop("canceled");
  };
  for (const one of cancels) {
    if (one.aborted) onCancel({ target: one } as unknown as Event);
    else one.addEventListener("abort", onCancel, { once: true });
  }
  return {
    signal: controller.signal,
    get reason() {
      return reason;
    },
    get canceledBecause() {
      return canceledBecause;
    },
    dispose() {
      clearTimeout(timer);
      for (const one of cancels) one.removeEventListener("abort", onCancel);
    },
  };
}

const CANCELED = "the caller stopped waiting for it";

/**
 * Run one outbound call under {@link callSignal}: an abort becomes "canceled"
 * or "timed out", any other failure (except an {@link UpstreamError}) "failed"
 * with its cause; every message names `label` and no secret.
 */
export async function withinDeadline<T>(
  label: string,
  timeoutMs: number,
  cancel: Cancel,
  secrets: readonly string[],
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const call = callSignal(timeoutMs, cancel);
  try {
    return await run(call.signal);
  } catch (error) {
    // The upstream's answer, or a redirect the rules refused: passed on with its status.
    if (error instanceof AdapterError) throw error;
    if (call.reason === "canceled") throw new Error(`${label} was canceled: ${call.canceledBecause ?? CANCELED}`);
    if (call.reason === "timeout") throw new Error(`${label} timed out after ${timeoutMs} ms`);
    throw new Error(redact(`${label} failed: ${describeFailure(error)}`, secrets));
  } finally {
    call.dispose();
  }
}

/** The reason phrase, or the standard one when the server sent none. */
export function statusTextOf(response: Response): string {
  return response.statusText || STATUS_CODES[response.status] || "";
}

export async function send(exchange: Exchange): Promise<Reply> {
  const label = `${exchange.method} ${exchange.displayUrl}`;
  return withinDeadline(label, exchange.timeoutMs, exchange.cancel, exchange.secrets, async (signal) => {
    const response = await follow(exchange, signal, label);
    const body = await readBody(response, exchange.method, exchange.maxResponseBytes);
    // The reason phrase is the upstream's text too: it ends up in messages.
    const statusText = redact(statusTextOf(response), exchange.secrets);
    const headers = Object.fromEntries(
      [...response.headers].map(([name, value]) => [name, redact(value, exchange.secrets)] as const),
    );
    return { status: response.status, statusText, headers, body: redact(body, exchange.secrets) };
  });
}

/** The exchange's answer after the redirects it may follow (the rules are the SDK's, shared by every adapter). */
function follow(exchange: Exchange, signal: AbortSignal, label: string): Promise<Response> {
  const { method, headers, body } = exchange;
  return fetchFollowingRedirects(
    exchange.url,
    { method, headers, ...(body === undefined ? {} : { body }), signal },
    {
      crossOriginRedirects: exchange.crossOriginRedirects === true,
      credentialHeaders: exchange.credentialHeaders,
      maxRedirects: MAX_REDIRECTS,
      label,
      allowHint: "the service's config followCrossOriginRedirects allows it",
      // fetch refuses a body on GET/HEAD; node:http sends it (see node-request.ts).
      send: (url, hop) =>
        hop.body !== undefined && (hop.method === "GET" || hop.method === "HEAD")
          ? nodeRequest(url, { method: hop.method, headers: hop.headers, body: hop.body as BodyBytes, signal })
          : fetch(url, { ...hop, redirect: "manual" }),
    },
  );
}

async function readBody(response: Response, method: string, maxBytes: number): Promise<unknown> {
  if (method === "HEAD" || [204, 205, 304].includes(response.status)) {
    await response.body?.cancel();
    return null;
  }
  const success = response.status >= 200 && response.status < 300;
  const limit = success ? maxBytes : Math.min(maxBytes, MAX_ERROR_BODY_BYTES);
  const tooLarge = () =>
    new Error(`the response is larger than ${numberFormat.format(limit)} bytes (the service's maxResponseBytes)`);
  if (success && Number(response.headers.get("content-length")) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const { text, complete } = await readCapped(response, limit);
  if (!complete) {
    if (success) throw tooLarge();
    return `${text}… [cut: the body is longer than ${numberFormat.format(limit)} bytes]`;
  }
  if (text === "") return null;
  if (!isJsonType(response.headers.get("content-type"))) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The body as UTF-8 text, reading at most `limit` bytes: past that the
 * stream is canceled, so the rest is never downloaded, and `complete` is
 * false with `text` holding the first `limit` bytes.
 */
export async function readCapped(response: Response, limit: number): Promise<{ text: string; complete: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: "", complete: true };
  const decoder = new TextDecoder();
  let text = "";
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), complete: true };
    if (received + value.byteLength > limit) {
      text += decoder.decode(value.subarray(0, limit - received));
      await reader.cancel();
      return { text, complete: false };
    }
    received += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
}

/** 2xx → the body; anything else → {@link UpstreamError} with status and body. */
export function successBody(
  exchange: Pick<Exchange, "method" | "displayUrl">,
  reply: Pick<Reply, "status" | "statusText" | "body">,
): unknown {
  if (reply.status >= 200 && reply.status < 300) return reply.body;
  const message = `${exchange.method} ${exchange.displayUrl} → ${reply.status}${reply.statusText ? ` ${reply.statusText}` : ""}`;
  throw new UpstreamError(message, reply.status, reply.body);
}
