/**
 * One outbound HTTP exchange of a tool call, with redirects followed by
 * hand under the host's rules, for every adapter that speaks HTTP (the
 * bundled openapi adapter uses it; a module author's adapter should too):
 *
 * - A redirect to another origin (scheme, host or port) fails the call
 *   unless the service allows it (`crossOriginRedirects`): an open redirect
 *   on an allowed service would otherwise reach whatever the host can reach
 *   (its own ports, its network, a cloud's metadata service).
 * - Allowed, a cross-origin hop still never goes to a link-local or
 *   metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254,
 *   100.100.100.200), checked on every address the name resolves to.
 * - Credentials never leave the first origin: on a cross-origin hop the
 *   credential headers (`authorization`, `proxy-authorization`, `cookie`
 *   and the ones the adapter names) are dropped.
 * - 303, and 301/302 after a POST, continue as GET without a body; at most
 *   `maxRedirects` (5) hops.
 * - The caller's `signal` covers every hop: pass the `signal` of
 *   `InvokeInput`, so a run that ends (kill, timeout, shutdown) ends its
 *   calls at once.
 *
 * A refused redirect throws {@link AdapterError} with the redirect's status,
 * which the host passes on to the caller.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { AdapterError } from "./adapter-error.js";

/** One hop as sent. The body must be re-sendable (bytes, text, `FormData`, `URLSearchParams`), not a stream. */
export interface OutboundRequest {
  method: string;
  headers: Headers;
  body?: string | Uint8Array | FormData | URLSearchParams | Blob;
  signal?: AbortSignal;
}

export interface RedirectRules {
  /** Follow redirects to another origin (never to a link-local or metadata address). Default false. */
  crossOriginRedirects?: boolean;
  /** More lower-case header names that carry credentials, dropped on a cross-origin hop. */
  credentialHeaders?: readonly string[];
  /** Most redirects followed; default 5. */
  maxRedirects?: number;
  /** Names the request in messages (e.g. `GET https://api.example.com/x`, without credentials); default the URL's origin. */
  label?: string;
  /** Said after a refused cross-origin redirect: how an operator allows it. */
  allowHint?: string;
  /** Sends one hop without following redirects; default `fetch(url, { …, redirect: "manual" })`. */
  send?: (url: string, request: OutboundRequest) => Promise<Response>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ALWAYS_CREDENTIALS = ["authorization", "proxy-authorization", "cookie"];

/** Sends `request` to `url`, following redirects under the rules above; the final answer, never a redirect one. */
export async function fetchFollowingRedirects(
  url: string,
  request: OutboundRequest,
  rules: RedirectRules = {},
): Promise<Response> {
  const send = rules.send ?? ((target, hop) => fetch(target, { ...hop, redirect: "manual" }));
  const maxRedirects = rules.maxRedirects ?? 5;
  const label = rules.label ?? `${request.method} ${new URL(url).origin}`;
  const origin = new URL(url).origin;
  const headers = new Headers(request.headers);
  let { method, body } = request;
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await send(current, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel();
    if (hop >= maxRedirects) throw new AdapterError(`${label} → too many redirects`, { status: response.status });
    const next = new URL(location, current);
    if (next.origin !== origin) {
      if (!rules.crossOriginRedirects) {
        const hint = rules.allowHint ? `; ${rules.allowHint}` : "";
        throw new AdapterError(
          `${label} → ${response.status} redirect to another origin (${next.origin}) refused${hint}`,
          { status: response.status },
        );
      }
      const forbidden = await forbiddenAddress(next.hostname);
      if (forbidden !== null) {
        throw new AdapterError(
          `${label} → ${response.status} redirect to a ${forbidden} address (${next.hostname}) refused`,
          { status: response.status },
        );
      }
      for (const name of [...ALWAYS_CREDENTIALS, ...(rules.credentialHeaders ?? [])]) headers.delete(name);
    }
    if (
      (response.status === 303 && method !== "HEAD") ||
      ((response.status === 301 || response.status === 302) && method === "POST")
    ) {
      method = "GET";
      body = undefined;
      headers.delete("content-type");
    }
    current = next.href;
  }
}

/** Cloud metadata services outside the link-local ranges (AWS over IPv6, Alibaba Cloud). */
const METADATA_ADDRESSES = new Set(["fd00:ec2::254", "100.100.100.200"]);

/**
 * Why no tool call may be redirected to `hostname` — `"link-local"` or
 * `"metadata"` — or null. A name is judged by every address it resolves to
 * (one that does not resolve is left to fail when it is fetched).
 */
export async function forbiddenAddress(hostname: string): Promise<"link-local" | "metadata" | null> {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const addresses =
    isIP(bare) !== 0
      ? [bare]
      : await lookup(bare, { all: true }).then(
          (found) => found.map((entry) => entry.address.toLowerCase()),
          () => [],
        );
  for (const address of addresses) {
    const v4 = mappedV4(address) ?? address;
    if (METADATA_ADDRESSES.has(v4)) return "metadata";
    if (/^169\.254\./.test(v4) || /^fe[89ab][0-9a-f]:/.test(address)) return "link-local";
  }
  return null;
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:1.2.3.4` or, as URLs write it, `::ffff:102:304`). */
function mappedV4(address: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) return dotted[1] as string;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (!hex) return null;
  const high = Number.parseInt(hex[1] as string, 16);
  const low = Number.parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
