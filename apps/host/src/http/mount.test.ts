import { Type } from "@sinclair/typebox";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { BOOTSTRAP_CALLER, type Caller } from "../domain/governance/caller.js";
import { CyrnelError, type ErrorCode } from "../errors.js";
import { createLogger } from "../log.js";
import { errorHandler } from "./error-handler.js";
import { mountRoutes } from "./mount.js";
import { buildOpenApiDocument } from "./openapi-document.js";
import { defineRoute, type RouteDefinition } from "./route.js";

/**
 * Declared error codes are part of a route's contract: in test mode
 * (`validateResponses`) a code the route does not declare, and that is not
 * implicit for its kind of route, fails the request like an undeclared body
 * does, so declarations cannot drift from what handlers throw.
 */
const throwing = (code: ErrorCode, extra: Partial<RouteDefinition> = {}) =>
  defineRoute({
    method: "post",
    path: "/things",
    operationId: "makeThing",
    access: "admin",
    summary: "Throws whatever the test asks for",
    tags: ["test"],
    responses: { 200: { description: "Never", schema: Type.Object({}) } },
    errors: ["conflict"],
    handler: () => {
      throw new CyrnelError(code, `refused with ${code}`);
    },
    ...extra,
  });

const withBody = { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) };

const AGENT: Caller = { keyId: "key_agent", role: "agent", services: null };

/** What the auth middleware (auth.ts) does for a valid key. */
function authenticateAs(app: Hono, caller: Caller) {
  app.use("*", async (c, next) => {
    c.set("caller", caller);
    return next();
  });
}

function appWith(route: RouteDefinition, validateResponses: boolean, caller: Caller = BOOTSTRAP_CALLER) {
  const logged: Record<string, unknown>[] = [];
  const logger = createLogger("error", { write: (line: string) => logged.push(JSON.parse(line)) });
  const app = new Hono();
  app.onError(errorHandler(logger));
  authenticateAs(app, caller);
  mountRoutes(app, [route], { bodyLimit: 64, definitionBodyLimit: 64, validateResponses });
  const post = (body: string) =>
    app.request("/things", { method: "POST", headers: { "content-type": "application/json" }, body });
  return { post, logged };
}

describe("declared error codes", () => {
  it("answers a declared code with its status", async () => {
    const { post } = appWith(throwing("conflict"), true);
    const response = await post("{}");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ error: "refused with conflict", code: "conflict" });
  });

  it("fails (500, logged with the route and code) on a code the route does not declare", async () => {
    const { post, logged } = appWith(throwing("invoke_timeout"), true);
    const response = await post("{}");
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "internal error", code: "internal" });
    expect(logged.map((line) => line.error)).toEqual([
      "makeThing answered invoke_timeout, which its definition does not declare: refused with invoke_timeout",
    ]);
  });

  it("answers the code unchanged outside test mode", async () => {
    const { post } = appWith(throwing("invoke_timeout"), false);
    expect((await post("{}")).status).toBe(504);
  });

  it.each([
    ["a body over the limit", JSON.stringify({ name: "x".repeat(100) }), 413, "payload_too_large"],
    ["malformed JSON", "{nope", 400, "bad_request"],
    ["a body its schema refuses", JSON.stringify({ name: 1 }), 400, "validation_failed"],
  ])(
    "takes what reading a JSON body answers as implicit for a route with a body: %s",
    async (_label, body, status, code) => {
      const { post } = appWith(throwing("conflict", withBody), true);
      const response = await post(body);
      expect(response.status).toBe(status);
      expect(((await response.json()) as { code: string }).code).toBe(code);
    },
  );

  it("publishes declared and implicit codes in /openapi.json", () => {
    const responses = (route: RouteDefinition) => {
      const paths = buildOpenApiDocument([route], "0.0.0").paths as Record<string, Record<string, any>>;
      return Object.fromEntries(
        Object.entries(paths["/things"]!.post.responses as Record<string, { description: string }>).map(
          ([status, response]) => [status, response.description],
        ),
      );
    };
    expect(responses(throwing("conflict"))).toEqual({
      "200": "Never",
      "401": "unauthorized",
      "403": "cross_site_refused, forbidden",
      "409": "conflict",
      "429": "rate_limited",
      "500": "internal",
      "503": "issuer_unavailable, shutting_down, database_unavailable",
      "507": "insufficient_storage",
    });
    expect(responses(throwing("conflict", { access: "agent" }))).toEqual({
      "200": "Never",
      "401": "unauthorized",
      "403": "cross_site_refused",
      "409": "conflict",
      "429": "rate_limited",
      "500": "internal",
      "503": "issuer_unavailable, shutting_down, database_unavailable",
      "507": "insufficient_storage",
    });
    expect(responses(throwing("conflict", { ...withBody, access: "public" }))).toEqual({
      "200": "Never",
      "400": "bad_request, validation_failed",
      "409": "conflict",
      "413": "payload_too_large",
      "415": "unsupported_media_type",
      "500": "internal",
    });
  });
});

describe("access", () => {
  it("answers an agent key on an admin route 403 forbidden, before reading the body", async () => {
    const { post } = appWith(throwing("conflict", withBody), true, AGENT);
    const response = await post("{not json");
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: "POST /things needs an admin key; this is an agent key",
      code: "forbidden",
    });
  });

  it("lets an agent key through to an agent route, and an admin key through to both", async () => {
    expect((await appWith(throwing("conflict", { access: "agent" }), true, AGENT).post("{}")).status).toBe(409);
    expect((await appWith(throwing("conflict"), true, BOOTSTRAP_CALLER).post("{}")).status).toBe(409);
  });

  it("treats a definition without an access level as admin-only and publishes no level for it", async () => {
    const undeclared = { ...throwing("conflict"), access: undefined } as unknown as RouteDefinition;
    expect((await appWith(undeclared, true, AGENT).post("{}")).status).toBe(403);
    const operation = (route: RouteDefinition) =>
      (buildOpenApiDocument([route], "0.0.0").paths as Record<string, Record<string, any>>)["/things"]!.post;
    expect(operation(undeclared)).not.toHaveProperty("x-cyrnel-access");
    expect(operation(throwing("conflict", { access: "agent" }))["x-cyrnel-access"]).toBe("agent");
  });
});

describe("query strings", () => {
  const echo = defineRoute({
    method: "get",
    path: "/echo",
    operationId: "echo",
    access: "public",
    summary: "Answers the query it was given",
    tags: ["test"],
    query: Type.Object({ tag: Type.Optional(Type.Array(Type.String())), limit: Type.Optional(Type.Integer()) }),
    responses: { 200: { description: "The query", schema: Type.Object({}, { additionalProperties: true }) } },
    errors: [],
    handler: ({ query }) => ({ status: 200, body: query }),
  });
  const app = new Hono();
  authenticateAs(app, BOOTSTRAP_CALLER);
  mountRoutes(app, [echo], { bodyLimit: 64, definitionBodyLimit: 64, validateResponses: true });
  const get = async (search: string) => (await app.request(`/echo${search}`)).json();

  it.each([
    ["", {}],
    ["?tag=a", { tag: ["a"] }],
    ["?tag=a&tag=b&tag=a", { tag: ["a", "b", "a"] }],
    ["?limit=5&limit=7", { limit: 7 }],
    ["?tag=x&other=1&other=2", { tag: ["x"], other: "2" }],
  ])("%s: a parameter declared as an array keeps every value, any other its last", async (search, expected) => {
    expect(await get(search)).toEqual(expected);
  });
});
