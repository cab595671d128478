/**
 * Per-key request rate: each stored key (and each OAuth subject, `oauth:<sub>`) may send `perSecond` requests a
 * second on average, in bursts of up to `burst` (a token bucket per key,
 * per host). Past it a request is `429 rate_limited` with `Retry-After`,
 * before its route runs. The bootstrap caller (`CYRNEL_API_KEY`, or a host
 * without keys) is the operator and is not limited; public routes
 * (`GET /health`) neither.
 *
 * The other per-key limits live where their resource is counted: in-flight
 * tool calls in the tool gate (domain/services/tool-gate.ts), concurrent
 * processes at submission (domain/processes/process-admission.ts).
 */
import type { MiddlewareHandler } from "hono";
import { rateLimited } from "../errors.js";
import { callerOf } from "./auth.js";

export interface RequestRate {
  perSecond: number;
  burst: number;
}

/** Buckets untouched for this long are forgotten (a full bucket and a forgotten one are the same). */
const IDLE_FORGET_MS = 10 * 60_000;

export function keyRequestLimits(
  rate: RequestRate,
  now: () => number = performance.now.bind(performance),
): MiddlewareHandler {
  const buckets = new Map<string, { tokens: number; at: number }>();
  let swept = now();
  return async (c, next) => {
    const { keyId } = callerOf(c);
    if (keyId === null) return next();
    const at = now();
    if (at - swept > IDLE_FORGET_MS) {
      for (const [key, bucket] of buckets) if (at - bucket.at > IDLE_FORGET_MS) buckets.delete(key);
      swept = at;
    }
    const bucket = buckets.get(keyId) ?? { tokens: rate.burst, at };
    bucket.tokens = Math.min(rate.burst, bucket.tokens + ((at - bucket.at) / 1000) * rate.perSecond);
    bucket.at = at;
    buckets.set(keyId, bucket);
    if (bucket.tokens < 1) {
      const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / rate.perSecond));
      throw rateLimited(
        `this key sent more than ${rate.burst} requests at once or ${rate.perSecond} a second ` +
          "(CYRNEL_KEY_REQUESTS_BURST, CYRNEL_KEY_REQUESTS_PER_SECOND)",
        seconds,
      );
    }
    bucket.tokens -= 1;
    return next();
  };
}
