/**
 * Per-request figures for the metrics: the route *template* a request
 * matched (Hono's pattern, `/services/:id`, never the raw URL, so the label
 * set is the host's routes), its method and status, and the time to its
 * response. A request no route matched is `unmatched`; a method outside
 * HTTP's usual ones is `other`.
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export interface AnsweredRequest {
  method: string;
  route: string;
}

/** Bounded labels of a request (read after it was answered). */
export function requestLabels(c: Context): AnsweredRequest {
  const method = METHODS.has(c.req.method) ? c.req.method : "other";
  // The middlewares (`app.use("*")`) match every path, before and after the route: the route is the last other one.
  const route = matchedRoutes(c).findLast((one) => one.path !== "*" && one.path !== "/*");
  return { method, route: route?.path ?? "unmatched" };
}
