/**
 * Downloads for definitions, registry documents and module archives:
 * http/https only, a byte cap enforced while streaming, and at most 5
 * redirects (each re-checked).
 *
 * Two timeouts: an idle one (`timeoutMs`, CYRNEL_DOWNLOAD_TIMEOUT_MS) that
 * fires when no progress is made for that long (no connection, no headers, no
 * bytes), and a generous bound on the whole transfer (`totalTimeoutMs`,
 * CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS). A large document on a slow but steady
 * link therefore arrives (13 MB at 1 MB/s takes 13 s), a stalled one fails
 * quickly, and a body that drips (a byte now and then, never idle) fails
 * once it has had the idle window to get going and still averages under
 * {@link MIN_BYTES_PER_SECOND}: a trickle holds a request for seconds, not
 * for the total bound. Each failure names the setting that would change it.
 *
 * Failures are classified: what the caller sent or what came back is wrong
 * (a bad or non-http URL, an HTTP 4xx, a body over the cap) is always a 400;
 * the remote end failing (connection refused or reset, timeout, redirect
 * loop, HTTP 5xx) is reported with `upstreamFailure`: a 400 by default, for
 * a URL the caller passed in this very request, or a 502 `upstream_error`
 * when the host reads a registry on the caller's behalf.
 *
 * The URL the operator gives may be private: operators install services that
 * live on their own networks. A redirect may not lead into a private range
 * from a public URL, though: a redirect to another host is refused when that
 * host resolves to a loopback, private, link-local or otherwise non-public
 * address (public-address.ts), unless the URL given is itself non-public
 * (the operator already trusts that network). With `denyPrivate`
 * (CYRNEL_DOWNLOAD_DENY_PRIVATE=1) every hop, the first included, must be
 * public. The checks run before each request; a name whose DNS answer
 * changes between the check and the connection (DNS rebinding) is not caught
 * by them, so hard guarantees need an egress firewall as well.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { CyrnelError, type ErrorCode } from "../errors.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-nesting.js";
import { nonPublicKind } from "./public-address.js";

export interface DownloadOptions {
  maxBytes: number;
  /** Idle timeout: the longest wait for the connection, the headers or the next bytes (CYRNEL_DOWNLOAD_TIMEOUT_MS). */
  timeoutMs: number;
  /** The bound on the whole transfer, redirects included (CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS); default 5 minutes. */
  totalTimeoutMs?: number;
  maxRedirects?: number;
  /** What is being downloaded, for error messages ("definition", "registry index", …). */
  what: string;
  accept?: string;
  /** The code for a failure of the remote end (see the file comment); default `bad_request`. */
  upstreamFailure?: Extract<ErrorCode, "bad_request" | "upstream_error">;
  /** Refuse hops whose host resolves to a non-public address (CYRNEL_DOWNLOAD_DENY_PRIVATE). */
  denyPrivate?: boolean;
  /** Classifies addresses for `denyPrivate`: why one is not public, or null. Tests substitute their own. */
  addressKind?: (address: string) => string | null;
}

export async function download(
  url: string,
  options: DownloadOptions,
): Promise<{ body: Buffer; url: string; contentType: string | null }> {
  const maxRedirects = options.maxRedirects ?? 5;
  const upstream = options.upstreamFailure ?? "bad_request";
  const totalMs = options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const total = AbortSignal.timeout(totalMs);
  const idle = new ProgressTimer(options.timeoutMs);
  const signal = AbortSignal.any([total, idle.signal]);
  const given = checkUrl(url, options.what);
  let current = given;
  /** Whether the URL given resolves to a non-public address (asked at the first redirect to another host). */
  let givenIsPrivate: Promise<boolean> | undefined;
  try {
    for (let redirects = 0; ; redirects++) {
      if (options.denyPrivate)
        await refuseNonPublic(current, options, "CYRNEL_DOWNLOAD_DENY_PRIVATE=1 allows public addresses only");
      else if (redirects > 0 && new URL(current).host !== new URL(given).host) {
        givenIsPrivate ??= nonPublicAddress(given, options).then((found) => found !== null);
        if (!(await givenIsPrivate)) {
          await refuseNonPublic(
            current,
            options,
            "a download from a public URL is never redirected into a private range",
          );
        }
      }
      const response = await fetch(current, {
        redirect: "manual",
        signal,
        headers: { accept: options.accept ?? "*/*", "user-agent": "cyrnel" },
      });
      idle.progress();
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel();
        if (redirects >= maxRedirects) {
          throw failure(upstream, options.what, current, `more than ${maxRedirects} redirects`);
        }
        current = checkUrl(new URL(response.headers.get("location")!, current).href, options.what);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        // A 4xx means the URL points at nothing usable; a 5xx is the server failing.
        throw failure(
          response.status >= 500 ? upstream : "bad_request",
          options.what,
          current,
          `HTTP ${response.status}`,
        );
      }
      return {
        body: await readCapped(response, options, current, idle),
        url: current,
        contentType: response.headers.get("content-type"),
      };
    }
  } catch (error) {
    if (error instanceof CyrnelError) throw error;
    const reason = idle.signal.aborted
      ? idle.slowRate !== null
        ? `the body arrives at ${idle.slowRate} bytes/s, under the ${MIN_BYTES_PER_SECOND} bytes/s a download must ` +
          `keep after its first ${options.timeoutMs} ms (CYRNEL_DOWNLOAD_TIMEOUT_MS)`
        : `nothing arrived for ${options.timeoutMs} ms (the idle timeout, CYRNEL_DOWNLOAD_TIMEOUT_MS)`
      : total.aborted
        ? `not finished after ${totalMs} ms (CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS)`
        : causeOf(error);
    throw failure(upstream, options.what, current, reason);
  } finally {
    idle.stop();
  }
}

export const DEFAULT_TOTAL_TIMEOUT_MS = 300_000;

/** The slowest average a body may keep once it has had the idle window to get going. */
export const MIN_BYTES_PER_SECOND = 1024;

/**
 * Aborts its signal when `progress()` has not been called for `ms` (started
 * at once), or when the body, counted from its first byte, still averages
 * under {@link MIN_BYTES_PER_SECOND} after `ms` (`slowRate` then says how fast).
 */
class ProgressTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private bodyStartedAt: number | null = null;
  private bytes = 0;
  /** The body's average rate (bytes/s) when it was abandoned for being too slow; null otherwise. */
  slowRate: number | null = null;
  readonly signal = this.controller.signal;

  constructor(private readonly ms: number) {
    this.progress();
  }

  progress(bytes?: number): void {
    clearTimeout(this.timer);
    if (bytes !== undefined) {
      const now = performance.now();
      this.bodyStartedAt ??= now;
      this.bytes += bytes;
      const elapsed = now - this.bodyStartedAt;
      const rate = (this.bytes * 1000) / Math.max(1, elapsed);
      if (elapsed >= this.ms && rate < MIN_BYTES_PER_SECOND) {
        this.slowRate = Math.round(rate);
        this.controller.abort(new Error("too slow"));
        return;
      }
    }
    this.timer = setTimeout(() => this.controller.abort(new Error("idle timeout")), this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** `expected`: what the text should be (for the message when it is a web page instead, see `refuseWebPage`). */
export async function downloadText(url: string, options: DownloadOptions & { expected: string }): Promise<string> {
  const response = await download(url, options);
  refuseWebPage(response, options.what, options.expected);
  return response.body.toString("utf8");
}

/**
 * An HTML page where a document was expected is the usual mistake behind a definition URL: the page of a
 * repository or a documentation site showing the file rather than the file. Said plainly here, it would otherwise
 * surface as a parse error about a `<` far from its cause. Judged by the body (after optional whitespace and a
 * byte-order mark, `<!doctype html`, `<html` or `<head`), so a JSON or YAML file served with a wrong
 * `text/html` type still passes.
 */
function refuseWebPage(
  response: { body: Buffer; url: string; contentType: string | null },
  what: string,
  expected: string,
) {
  const start = response.body
    .subarray(0, 512)
    .toString("utf8")
    .replace(/^\uFEFF?\s*/, "");
  if (!/^<(!doctype\s+html|html[\s>]|head[\s>])/i.test(start)) return;
  const type = response.contentType?.split(";")[0]?.trim() || "no content type";
  throw new CyrnelError(
    "bad_request",
    `${what} at ${response.url} answered an HTML page (${type}), not ${expected}: check that the URL points at the ` +
      "raw file, not at a web page that shows it",
  );
}

/** Downloads and parses JSON; `url` is where it was finally served from (after redirects). */
export async function downloadJson(url: string, options: DownloadOptions): Promise<{ value: unknown; url: string }> {
  const response = await download(url, { accept: "application/json", ...options });
  refuseWebPage(response, options.what, "a JSON document");
  const text = response.body.toString("utf8");
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new CyrnelError("bad_request", `${options.what} at ${url} nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return { value: JSON.parse(text), url: response.url };
  } catch (error) {
    throw new CyrnelError("bad_request", `${options.what} at ${url} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The first of the URL's addresses that is not public, with its kind, or null (a name that does not resolve: null). */
async function nonPublicAddress(
  url: string,
  options: DownloadOptions,
): Promise<{ host: string; address: string; kind: string } | null> {
  const kindOf = options.addressKind ?? nonPublicKind;
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true, verbatim: true }).then(
        (found) => found.map((a) => a.address),
        () => [],
      );
  for (const address of addresses) {
    const kind = kindOf(address);
    if (kind !== null) return { host, address, kind };
  }
  return null;
}

/** Refuses the URL if any of its host's addresses is not public; `rule` says why that is refused. */
async function refuseNonPublic(url: string, options: DownloadOptions, rule: string): Promise<void> {
  const found = await nonPublicAddress(url, options);
  if (found === null) return;
  const { host, address, kind } = found;
  const where = address === host ? `it is ${address}` : `${host} resolves to ${address}`;
  throw new CyrnelError(
    "bad_request",
    `could not download ${options.what} from ${url}: ${where}, a ${kind} address, and ${rule}`,
  );
}

function checkUrl(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CyrnelError("bad_request", `${what} URL "${raw}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CyrnelError("bad_request", `${what} URL must be http or https, got "${url.protocol}"`);
  }
  return url.href;
}

async function readCapped(
  response: Response,
  options: DownloadOptions,
  url: string,
  idle: ProgressTimer,
): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > options.maxBytes) {
    await response.body?.cancel();
    throw tooLarge(options, url);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body) {
    idle.progress(chunk.byteLength);
    if (idle.signal.aborted) throw idle.signal.reason;
    size += chunk.byteLength;
    if (size > options.maxBytes) throw tooLarge(options, url);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const tooLarge = (options: DownloadOptions, url: string) =>
  new CyrnelError("bad_request", `${options.what} at ${url} is larger than ${options.maxBytes} bytes`);

/** A failed download, naming the URL and the reason. */
const failure = (code: ErrorCode, what: string, url: string, reason: string) =>
  new CyrnelError(code, `could not download ${what} from ${url}: ${reason}`);

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}
