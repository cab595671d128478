/**
 * Mounts route definitions on Hono: validates params, query and body with
 * ajv against the route's schemas, calls the handler, and (in tests)
 * checks every response against its declared status, schema and error codes.
 */
import type { TSchema } from "@sinclair/typebox";
import AjvModule, { type ValidateFunction } from "ajv";
import addFormatsPlugin from "ajv-formats";
import type { Context, Hono } from "hono";
import { ANY_TEXT } from "../contract/common.js";
import { CyrnelError } from "../errors.js";
import { relevantErrors, summariseIssues, type ValidationIssue } from "../lib/json-schema.js";
import { callerOf } from "./auth.js";
import { readJsonBody } from "./request-body.js";
import { accessOf, answerableErrors, permits, type Reply, type RouteDefinition } from "./route.js";

type AjvInstance = InstanceType<typeof AjvModule.default>;
const addFormats = addFormatsPlugin as unknown as (ajv: AjvInstance) => AjvInstance;

export interface MountOptions {
  bodyLimit: number;
  definitionBodyLimit: number;
  /**
   * Fail loudly (500, logged) when a route answers with a status or body its definition does not describe, or
   * with an error code it does not declare (on in tests).
   */
  validateResponses: boolean;
}

export function mountRoutes(app: Hono, routes: RouteDefinition[], options: MountOptions): void {
  // Query strings and path params are text: coerce "10" → 10 and "true" → true. Bodies are JSON: no coercion.
  const lenient = addFormats(new AjvModule.default({ coerceTypes: true, useDefaults: true, strict: false }));
  const exact = addFormats(new AjvModule.default({ useDefaults: true, strict: false, allErrors: true }));
  const responses = addFormats(new AjvModule.default({ strict: false }));
  const compile = (ajv: AjvInstance, schema: TSchema) => ajv.compile(JSON.parse(JSON.stringify(schema)));

  for (const route of routes) {
    const params = route.params && compile(lenient, route.params);
    const query = route.query && compile(lenient, route.query);
    const body = route.body && compile(exact, route.body);
    const limit = route.bodyLimit === "definition" ? options.definitionBodyLimit : options.bodyLimit;
    const responseChecks = new Map<number, ValidateFunction>();
    if (options.validateResponses) {
      for (const [status, response] of Object.entries(route.responses)) {
        if (response.schema && !response.contentType)
          responseChecks.set(Number(status), compile(responses, response.schema));
      }
    }

    const access = accessOf(route);
    const answer = async (c: Context): Promise<Response> => {
      // Before anything of the request is read: an agent learns nothing about an admin route's inputs.
      const caller = callerOf(c);
      if (!permits(caller, access)) {
        throw new CyrnelError(
          "forbidden",
          `${route.method.toUpperCase()} ${route.path} needs an admin key; this is an agent key`,
        );
      }
      const input = {
        caller,
        params: params ? check(params, withoutNul({ ...c.req.param() }, "path parameter"), "path parameter") : {},
        query: query
          ? check(
              query,
              withoutNul(queryObject(c.req.url, route.query!), "query parameter", route.query),
              "query parameter",
            )
          : {},
        body: undefined as unknown,
        context: c,
        signal: c.req.raw.signal,
      };
      if (body) {
        const read = await readJsonBody(c.req.raw, limit);
        input.body = check(body, read.present ? read.value : {}, "request body", !read.present);
      }
      const reply = await route.handler(input as never);
      if (!(reply instanceof Response) && options.validateResponses) checkResponse(route, reply, responseChecks);
      const response = reply instanceof Response ? reply : toResponse(reply);
      if (route.noStore) response.headers.set("cache-control", "no-store");
      return response;
    };

    const errors = answerableErrors(route);
    app.on(route.method.toUpperCase(), toHonoPath(route.path), async (c) => {
      if (!options.validateResponses) return answer(c);
      try {
        return await answer(c);
      } catch (error) {
        if (error instanceof CyrnelError && !errors.has(error.code)) {
          throw new Error(
            `${route.operationId} answered ${error.code}, which its definition does not declare: ${error.message}`,
          );
        }
        throw error;
      }
    });
  }
}

function check(validate: ValidateFunction, value: unknown, what: string, missing = false): unknown {
  if (validate(value)) return value;
  if (missing) throw new CyrnelError("bad_request", "a JSON request body is required");
  const issues: ValidationIssue[] = relevantErrors(validate.errors ?? []).map((error) => {
    const params = error.params as Record<string, unknown>;
    const at = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "";
    if (error.keyword === "additionalProperties") {
      return { path: at, message: `unknown field "${[at, params.additionalProperty].filter(Boolean).join(".")}"` };
    }
    if (error.keyword === "required") {
      return { path: at, message: `missing field "${[at, params.missingProperty].filter(Boolean).join(".")}"` };
    }
    return { path: at, message: `"${at || what}" ${error.message}` };
  });
  throw new CyrnelError("validation_failed", summariseIssues(`invalid ${what}`, dedupe(issues)), validate.errors);
}

/**
 * Path and query parameters never carry a NUL: no id, name or search has one, and PostgreSQL refuses it in a
 * parameter it compares as text (the query would fail, not match nothing), so it is refused here for every route
 * and both databases — except in a query parameter declared `AnyText` (contract/common.ts), which the store escapes.
 */
function withoutNul<T extends Record<string, string | string[]>>(values: T, what: string, schema?: TSchema): T {
  const declared = (schema?.properties ?? {}) as Record<string, TSchema>;
  for (const [name, value] of Object.entries(values)) {
    if (Object.hasOwn(declared, name) && declared[name]?.[ANY_TEXT] === true) continue;
    if ((Array.isArray(value) ? value : [value]).some((one) => one.includes("\u0000"))) {
      throw new CyrnelError("validation_failed", `${what} "${name}" must not contain a NUL character (%00)`);
    }
  }
  return values;
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => !seen.has(issue.message) && seen.add(issue.message));
}

function checkResponse(route: RouteDefinition, reply: Reply, checks: Map<number, ValidateFunction>) {
  const declared = route.responses[reply.status];
  if (!declared)
    throw new Error(`${route.operationId} answered ${reply.status}, which its definition does not declare`);
  // A JSON answer given in another representation (an HTML page for a browser, see Reply.contentType) is not JSON.
  if (reply.contentType !== undefined && declared.contentType === undefined) return;
  const validate = checks.get(reply.status);
  if (validate && !validate(structuredClone(reply.body))) {
    throw new Error(`${route.operationId} ${reply.status} body breaks its schema: ${JSON.stringify(validate.errors)}`);
  }
}

function toResponse(reply: Reply): Response {
  const headers = new Headers(reply.headers);
  if (reply.status === 204 || reply.body === undefined) return new Response(null, { status: reply.status, headers });
  if (reply.contentType) {
    headers.set("content-type", reply.contentType);
    return new Response(String(reply.body), { status: reply.status, headers });
  }
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(reply.body), { status: reply.status, headers });
}

/**
 * The query string as an object: a parameter the route declares as an array
 * keeps every value (`?tool=a/b&tool=c/d`), any other its last one.
 */
function queryObject(url: string, schema: TSchema): Record<string, string | string[]> {
  const search = new URL(url).searchParams;
  const declared = (schema.properties ?? {}) as Record<string, TSchema>;
  return Object.fromEntries(
    [...new Set(search.keys())].map((name) => {
      const values = search.getAll(name);
      return [name, Object.hasOwn(declared, name) && declared[name]!.type === "array" ? values : values.at(-1)!];
    }),
  );
}

/** `/services/{id}` → `/services/:id` */
export const toHonoPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");
