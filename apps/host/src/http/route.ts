/**
 * One definition per route: its path, its request schemas (params, query,
 * body) and every response schema. The same objects drive request
 * validation, the handler's TypeScript types and `GET /openapi.json`, so the
 * published contract cannot drift from what the server enforces.
 */
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { Context } from "hono";
import type { ErrorCode } from "../errors.js";

export type HttpMethod = "get" | "post" | "patch" | "put" | "delete";

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
  /** Escape hatch for the rare handler that needs the raw request (e.g. the MCP transport). */
  context: Context;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface Reply {
  status: number;
  body?: unknown;
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
  /** Routes that carry service definitions accept bigger bodies. */
  bodyLimit?: "default" | "definition";
  /** No bearer auth (only `GET /health`). */
  public?: boolean;
  responses: Record<number, RouteResponse>;
  /** Error codes this route can answer with (documented in the OpenAPI description). */
  errors?: ErrorCode[];
  handler(input: HandlerInput<P, Q, B>): Promise<Reply | Response> | Reply | Response;
}

/** Identity function that lets TypeScript infer the handler's input types from the schemas. */
export function defineRoute<
  P extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(route: RouteDefinition<P, Q, B>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export const json = (status: number, body: unknown): Reply => ({ status, body });
export const text = (status: number, body: string, contentType: string): Reply => ({ status, body, contentType });
export const noContent = (): Reply => ({ status: 204 });
