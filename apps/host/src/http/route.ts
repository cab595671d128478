/**
 * One definition per route: its path, its request schemas (params, query,
 * body) and every response schema. The same objects drive request
 * validation, the handler's TypeScript types and `GET /openapi.json`, so the
 * published contract cannot drift from what the server enforces.
 */
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { Context } from "hono";
import type { Caller } from "../domain/governance/caller.js";
import type { ErrorCode } from "../errors.js";

export type HttpMethod = "get" | "post" | "patch" | "put" | "delete";

/**
 * Who may call a route: `public` needs no key, `agent` any valid key (agent
 * or admin), `admin` an admin key (an agent key gets `403 forbidden`).
 */
export type Access = "public" | "agent" | "admin";

export interface RouteResponse {
  description: string;
  /** JSON body schema; omit for empty bodies. */
  schema?: TSchema;
  /** Non-JSON bodies (e.g. `text/markdown`); `schema` then describes a string. */
  contentType?: string;
}

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

export interface HandlerInput<P, Q, B> {
  params: StaticOr<P, Record<string, never>>;
  query: StaticOr<Q, Record<string, never>>;
  body: StaticOr<B, undefined>;
  /** Who is asking (its role already passed the route's `access`). */
  caller: Caller;
  /** Escape hatch for the rare handler that needs the raw request (e.g. the MCP transport). */
  context: Context;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface Reply {
  status: number;
  body?: unknown;
  /**
   * A body that is not JSON. For a status whose declared response is JSON,
   * another representation of it (the page a browser is shown instead), not
   * checked against the schema.
   */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDefinition<
  P extends TObject | undefined = TObject | undefined,
  Q extends TObject | undefined = TObject | undefined,
  B extends TSchema | undefined = TSchema | undefined,
> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/services/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The answer carries a key or other secret material (a new API key, an authorization URL with its single-use
   * state): it is sent with `Cache-Control: no-store`, so no browser, proxy or disk cache keeps a copy.
   */
  noStore?: boolean;
  /** Routes that carry service definitions accept bigger bodies. */
  bodyLimit?: "default" | "definition";
  /**
   * Who may call it. Every route says so (it is published as
   * `x-cyrnel-access` and tests read it); a definition that slips through
   * without one is treated as `admin`.
   */
  access: Access;
  responses: Record<number, RouteResponse>;
  /**
   * Error codes this route's parameters, query and handler can answer with,
   * besides the implicit ones every route of its kind shares (`implicitErrors`).
   * They are listed in `/openapi.json`, and with `validateResponses` any other
   * code fails the request.
   */
  errors?: ErrorCode[];
  handler(input: HandlerInput<P, Q, B>): Promise<Reply | Response> | Reply | Response;
}

/**
 * Codes a route answers without declaring them, because they come from what
 * routes share rather than from the route itself: `internal` (a bug, on any
 * route), `unauthorized` and `shutting_down` (the bearer key and the refusal
 * during shutdown, on every route but the public ones), `database_unavailable`
 * and `insufficient_storage` (a storage fault, on every route that reads or
 * writes the database: all but the public ones), `cross_site_refused` (a
 * host without keys refusing another web site: http/cross-site.ts, all but
 * the public ones), `rate_limited` (a stored key past its request rate:
 * http/key-limits.ts, all but the public ones), `forbidden` (an
 * agent key on an admin route), and for a route that
 * takes a JSON body, what reading it can answer: `payload_too_large`,
 * `unsupported_media_type` (not sent as application/json),
 * `bad_request` (missing, not JSON, malformed, nested too deep, not UTF-8)
 * and `validation_failed` (against the body schema); for a route with path
 * or query parameters, `validation_failed` (against their schemas, or a
 * NUL in one).
 */
export function implicitErrors(route: Pick<RouteDefinition, "access" | "body" | "params" | "query">): ErrorCode[] {
  const access = accessOf(route);
  return [
    "internal",
    ...(access === "public"
      ? []
      : ([
          "unauthorized",
          "issuer_unavailable",
          "shutting_down",
          "database_unavailable",
          "insufficient_storage",
          "cross_site_refused",
          "rate_limited",
        ] as const)),
    ...(access === "admin" ? (["forbidden"] as const) : []),
    ...(route.body
      ? (["bad_request", "payload_too_large", "unsupported_media_type", "validation_failed"] as const)
      : route.params || route.query
        ? (["validation_failed"] as const)
        : []),
  ];
}

/** The route's access level; `admin` when a definition has none, so a route can only be too closed. */
export const accessOf = (route: Pick<RouteDefinition, "access">): Access => route.access ?? "admin";

/** Whether the caller's role passes the access level (the key itself was checked by the auth middleware). */
export const permits = (caller: Caller, access: Access): boolean => access !== "admin" || caller.role === "admin";

/** Every code a route may answer: what it declares and its implicit ones. */
export function answerableErrors(route: RouteDefinition): Set<ErrorCode> {
  return new Set([...(route.errors ?? []), ...implicitErrors(route)]);
}

/** Identity function that lets TypeScript infer the handler's input types from the schemas. */
export function defineRoute<
  P extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(route: RouteDefinition<P, Q, B>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

/** A JSON reply. A promise is refused at compile time: await it first (it would serialise as `{}`). */
export const json = <T>(status: number, body: T extends PromiseLike<unknown> ? never : T): Reply => ({ status, body });
export const text = (status: number, body: string, contentType: string): Reply => ({ status, body, contentType });
export const noContent = (): Reply => ({ status: 204 });
