/**
 * Downloads for definitions, registry documents and module archives:
 * http/https only, a byte cap enforced while streaming, a timeout covering
 * the whole transfer, and at most 5 redirects (each re-checked).
 */
import { CyrnelError } from "../errors.js";

export interface DownloadOptions {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  /** What is being downloaded, for error messages ("definition", "registry index", …). */
  what: string;
  accept?: string;
}

export async function download(
  url: string,
  options: DownloadOptions,
): Promise<{ body: Buffer; url: string; contentType: string | null }> {
  const maxRedirects = options.maxRedirects ?? 5;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = checkUrl(url, options.what);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(current, {
        redirect: "manual",
        signal,
        headers: { accept: options.accept ?? "*/*", "user-agent": "cyrnel" },
      });
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel();
        if (redirects >= maxRedirects) throw failure(options.what, current, `more than ${maxRedirects} redirects`);
        current = checkUrl(new URL(response.headers.get("location")!, current).href, options.what);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw failure(options.what, current, `HTTP ${response.status}`);
      }
      return {
        body: await readCapped(response, options, current),
        url: current,
        contentType: response.headers.get("content-type"),
      };
    }
  } catch (error) {
    if (error instanceof CyrnelError) throw error;
    const reason = signal.aborted ? `timed out after ${options.timeoutMs} ms` : causeOf(error);
    throw failure(options.what, current, reason);
  }
}

export async function downloadText(url: string, options: DownloadOptions): Promise<string> {
  const { body } = await download(url, options);
  return body.toString("utf8");
}

export async function downloadJson(url: string, options: DownloadOptions): Promise<unknown> {
  const text = await downloadText(url, { accept: "application/json", ...options });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CyrnelError("bad_request", `${options.what} at ${url} is not valid JSON: ${(error as Error).message}`);
  }
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

async function readCapped(response: Response, options: DownloadOptions, url: string): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > options.maxBytes) {
    await response.body?.cancel();
    throw tooLarge(options, url);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > options.maxBytes) throw tooLarge(options, url);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const tooLarge = (options: DownloadOptions, url: string) =>
  new CyrnelError("bad_request", `${options.what} at ${url} is larger than ${options.maxBytes} bytes`);

/** Download failures are the caller's input pointing somewhere unusable: 400 naming the URL and the reason. */
const failure = (what: string, url: string, reason: string) =>
  new CyrnelError("bad_request", `could not download ${what} from ${url}: ${reason}`);

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}
