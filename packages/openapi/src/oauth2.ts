import { readCapped, redact, statusTextOf, withinDeadline } from "./http.js";
import { isRecord } from "./records.js";

/**
 * OAuth2 client-credentials tokens for one service, in memory only.
 *
 * A token is requested from the scheme's `tokenUrl` (`grant_type=
 * client_credentials`, the requirement's scopes, the client authenticated
 * with HTTP basic or, on request, in the form body), reused until shortly
 * before `expires_in` runs out (a tenth of its lifetime, at most 30 s,
 * early), and requested again after that or after `invalidate` (the adapter
 * calls it when the upstream answers 401 to a cached token). Concurrent
 * callers share one token request. Without `expires_in` a token is kept
 * until invalidated or the service is re-hydrated.
 *
 * A token endpoint on the API's own origin also gets the service's secret
 * headers (its gateway may want them on every request), under the headers
 * the token request sets itself; one on another origin never does.
 */

export interface TokenRequest {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  clientAuthentication: "basic" | "body";
  /** The service's secret headers, when the token endpoint is on the API's origin (not part of the cache key). */
  headers?: readonly [string, string][];
  timeoutMs: number;
  /** Aborted when the adapter is torn down (not part of the cache key). */
  cancel?: AbortSignal;
}

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is refreshed; `null`: no expiry given. */
  refreshAt: number | null;
}

const MAX_EARLY_REFRESH_MS = 30_000;
/** A token response is a few hundred bytes; anything this large is not one. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

function cacheKey(request: TokenRequest): string {
  return JSON.stringify([request.tokenUrl, request.clientId, [...request.scopes].sort()]);
}

/** `application/x-www-form-urlencoded` component (RFC 6749 appendix B). */
function formEncode(text: string): string {
  return encodeURIComponent(text).replaceAll("%20", "+");
}

export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A valid access token; `fresh` tells whether it was just fetched. */
  async get(request: TokenRequest): Promise<{ token: string; fresh: boolean }> {
    const key = cacheKey(request);
    const cached = this.tokens.get(key);
    if (cached && (cached.refreshAt === null || this.now() < cached.refreshAt))
      return { token: cached.token, fresh: false };
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.fetchToken(request).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    const token = await pending;
    this.tokens.set(key, token);
    return { token: token.token, fresh: true };
  }

  invalidate(request: TokenRequest): void {
    this.tokens.delete(cacheKey(request));
  }

  private async fetchToken(request: TokenRequest): Promise<CachedToken> {
    const label = `OAuth2 token request to ${request.tokenUrl}`;
    const form = ["grant_type=client_credentials"];
    if (request.scopes.length > 0) form.push(`scope=${formEncode(request.scopes.join(" "))}`);
    const headers = new Headers(request.headers?.map(([name, value]) => [name, value]));
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    headers.set("Accept", "application/json");
    const secrets = [request.clientSecret, ...(request.headers ?? []).map(([, value]) => value)];
    if (request.clientAuthentication === "body") {
      form.push(`client_id=${formEncode(request.clientId)}`, `client_secret=${formEncode(request.clientSecret)}`);
    } else {
      const pair = Buffer.from(`${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`).toString(
        "base64",
      );
      headers.set("Authorization", `Basic ${pair}`);
      secrets.push(pair);
    }
    const started = this.now();
    const { response, text } = await withinDeadline(
      label,
      request.timeoutMs,
      request.cancel,
      secrets,
      async (signal) => {
        const response = await fetch(request.tokenUrl, {
          method: "POST",
          headers,
          body: form.join("&"),
          signal,
          redirect: "error",
        });
        const { text, complete } = await readCapped(response, MAX_TOKEN_RESPONSE_BYTES);
        if (!complete) {
          throw new Error(
            `the token response is larger than ${MAX_TOKEN_RESPONSE_BYTES.toLocaleString("en-US")} bytes`,
          );
        }
        return { response, text };
      },
    );
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined;
    }
    if (!response.ok) {
      const code = isRecord(payload) && typeof payload.error === "string" ? ` (${payload.error})` : "";
      const status = `${response.status} ${statusTextOf(response)}`.trim();
      throw new Error(redact(`${label} failed: ${status}${code}`, secrets));
    }
    const token = isRecord(payload) ? payload.access_token : undefined;
    if (typeof token !== "string" || token === "") throw new Error(`${label} returned no access_token`);
    const expiresIn = isRecord(payload) ? Number(payload.expires_in) : Number.NaN;
    if (!Number.isFinite(expiresIn) || expiresIn <= 0) return { token, refreshAt: null };
    const lifetime = expiresIn * 1000;
    return { token, refreshAt: started + lifetime - Math.min(MAX_EARLY_REFRESH_MS, lifetime / 10) };
  }
}
