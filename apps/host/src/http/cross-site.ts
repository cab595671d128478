/**
 * What keeps other web sites out of a host that has no keys (the quick
 * start's default: anyone who can reach it is its admin, so only local
 * tools may). A browser lets any page send a "simple" cross-site request —
 * a POST without preflight, `text/plain` or no Content-Type — and lets a page
 * whose domain re-resolves to 127.0.0.1 (DNS rebinding) read the answers. So:
 *
 * - a request with a body must say `Content-Type: application/json` (else
 *   `415 unsupported_media_type`, checked where the body is read:
 *   http/request-body.ts), which no simple request can;
 * - while authentication is off, a request whose `Origin` is not the host's
 *   own, or whose `Host` is a name that is neither a loopback name nor the
 *   configured address, is refused `403 cross_site_refused`. IP literals
 *   pass: a rebinding page's requests carry its own domain name.
 *
 * With keys, a browser cannot add the bearer key to a cross-site request
 * without the preflight the host never answers, so nothing more is needed.
 * `GET /health` is exempt: load balancers ask it under any name.
 */
import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { CyrnelError } from "../errors.js";

export interface CrossSiteOptions {
  /** Whether requests need a key now (keys can be created while the host runs). */
  authenticated(): Promise<boolean>;
  /** Names the host is reached by, besides loopback names and IP literals (`CYRNEL_HOST`, `CYRNEL_ADVERTISE_URL`). */
  names: readonly string[];
  /** Paths answered whatever the Origin and Host (public routes). */
  exempt(path: string): boolean;
}

export function crossSiteGuard(options: CrossSiteOptions): MiddlewareHandler {
  const names = new Set(options.names.map((name) => name.toLowerCase()));
  return async (c, next) => {
    if (options.exempt(c.req.path) || (await options.authenticated())) return next();
    // Browsers always send Host; a client that does not (HTTP/1.0, an in-process request) is no web page.
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    const hostname = hostnameOf(host);
    if (hostname === null || !(isLoopbackName(hostname) || isIP(hostname) !== 0 || names.has(hostname))) {
      throw new CyrnelError(
        "cross_site_refused",
        `Host "${host}" is not a loopback name or this host's configured address: a host without API keys answers ` +
          "local tools only (a page on another domain could be reading it); set CYRNEL_API_KEY to serve others",
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !sameOrigin(origin, host)) {
      throw new CyrnelError(
        "cross_site_refused",
        `Origin "${origin}" is not this host: a host without API keys refuses requests from other web sites; ` +
          "set CYRNEL_API_KEY to serve them",
      );
    }
    return next();
  };
}

/** The name of a `Host` header (`name:port`, `[v6]:port`), lower-cased; null when it is not one. */
function hostnameOf(host: string): string | null {
  if (host === "" || /[\s/\\@?#]/.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return null;
  }
}

function isLoopbackName(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "127.0.0.1" || hostname === "::1";
}

/** An Origin equal to the scheme-less Host it was sent to (`http://host:port` or `https://…`). */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}
