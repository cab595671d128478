/**
 * Bearer authentication: every request but those to public routes names its
 * key, and the caller it stands for (domain/governance/caller.ts) is set on
 * the context for the route's access check (mount.ts) and its handler.
 * Without `CYRNEL_API_KEY`, OAuth and stored keys, anyone is the bootstrap admin. A
 * bearer token is a key or, with `CYRNEL_OAUTH_ISSUER`, an access token (api-keys.ts).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { ApiKeys } from "../domain/governance/api-keys.js";
import { BOOTSTRAP_CALLER, type Caller } from "../domain/governance/caller.js";
import { CyrnelError } from "../errors.js";

declare module "hono" {
  interface ContextVariableMap {
    caller: Caller;
  }
}

/** Public routes (`GET /health`) read no key; their handlers get a caller that may do nothing. */
const ANONYMOUS: Caller = Object.freeze({ keyId: null, role: "agent", services: [] });

/**
 * A token that opens one route only (`CYRNEL_METRICS_TOKEN` for `GET /metrics`): the caller it stands for on that
 * route, or null when the token is not it (then it is read as a key, as any other).
 */
export type RouteToken = (method: string, path: string, token: string) => Caller | null;

export function bearerAuth(
  keys: ApiKeys,
  isPublic: (method: string, path: string) => boolean,
  routeToken: RouteToken = () => null,
): MiddlewareHandler {
  return async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) c.set("caller", ANONYMOUS);
    else if (!(await keys.required())) c.set("caller", BOOTSTRAP_CALLER);
    else {
      const match = /^Bearer\s+(.+)$/i.exec((c.req.header("authorization") ?? "").trim());
      if (!match) throw new CyrnelError("unauthorized", "missing Authorization: Bearer <API key or access token>");
      const token = match[1]!;
      c.set("caller", routeToken(c.req.method, c.req.path, token) ?? (await keys.authenticate(token)));
    }
    return next();
  };
}

/**
 * `CYRNEL_METRICS_TOKEN`: on `GET /metrics` only, an admin without a key id (no per-key limits) and without services
 * (it sees none). Compared in constant time, by digest, so the comparison tells nothing of its length.
 */
export function metricsToken(token: string | null): RouteToken {
  if (token === null) return () => null;
  const expected = createHash("sha256").update(token).digest();
  return (method, path, offered) =>
    (method === "GET" || method === "HEAD") &&
    path === "/metrics" &&
    timingSafeEqual(createHash("sha256").update(offered).digest(), expected)
      ? METRICS_SCRAPER
      : null;
}

const METRICS_SCRAPER: Caller = Object.freeze({ keyId: null, role: "admin", services: [] });

/** The caller the middleware set; routes are mounted behind it, so a missing one is a wiring bug. */
export function callerOf(c: Context): Caller {
  const caller = c.get("caller") as Caller | undefined;
  if (caller === undefined) throw new Error("no caller on the request: the auth middleware must run before the routes");
  return caller;
}
