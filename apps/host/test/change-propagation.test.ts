/**
 * Changes reach every host: two real hosts (`cyrnel start`, spawned) share one
 * fresh PostgreSQL database and one CYRNEL_SECRETS_KEY; every change is made
 * through host A and its effect is observed through host B — what B lists,
 * what B's calls send upstream (a local HTTP server records every request),
 * what B refuses without sending anything, which module version B runs and
 * which files B has on disk.
 *
 * PostgreSQL only: these run in the suites' PostgreSQL pass
 * (`CYRNEL_TEST_DIALECT=postgres`, a throw-away server started by
 * test/support/postgres-setup.ts) and are skipped on SQLite, whose database
 * is one host's file. No assertion is timed: each waits for the effect it
 * expects (`until`), and the test's timeout is the only clock; the 1 s
 * propagation target is measured in bench/propagation.mjs.
 */
import { cpSync, existsSync, readFileSync, symlinkSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { serveRegistry } from "../../../examples/registry/serve.mjs";
import { databaseEnv, queryDatabase, testDialect } from "./support/database.js";
import { type ApiResponse, fixturesDir, restart, startHost, type TestHost, tempDir } from "./support/host.js";

const ADMIN_KEY = "cyrnel-test-admin-key-shared-by-both-hosts";
const SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** The upstream every service calls: records each request, answers `{path}` as JSON. */
async function startUpstream(): Promise<{ url: string; requests: Received[]; close(): Promise<void> }> {
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An OpenAPI service with two tools behind a bearer token, at `baseUrl`. */
function echoApi(baseUrl: string): string {
  const operation = (operationId: string) => ({
    get: {
      operationId,
      responses: {
        200: { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  });
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Echo", version: "1.0.0" },
    servers: [{ url: baseUrl }],
    components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } },
    security: [{ token: [] }],
    paths: { "/ping": operation("ping"), "/pong": operation("pong") },
  });
}

/** What a wait saw last: printed when the test fails, since a timeout alone says nothing. */
let waitingFor: { what: string; last: unknown } | null = null;

/** Calls `attempt` until it answers something other than undefined (no deadline: the test's timeout is it). */
async function until<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  waitingFor = { what, last: undefined };
  for (;;) {
    const value = await attempt();
    if (value !== undefined) {
      waitingFor = null;
      return value;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Until a response of `host` to the request matches `accept` (the response seen last is kept for a failure). */
function untilResponse(
  host: TestHost,
  what: string,
  request: [method: string, path: string, body?: unknown, headers?: Record<string, string>],
  accept: (response: ApiResponse) => boolean,
): Promise<ApiResponse> {
  return until(what, async () => {
    const response = await host.api(...request);
    if (waitingFor) waitingFor.last = { status: response.status, body: response.body };
    return accept(response) ? response : undefined;
  });
}

describe.skipIf(testDialect() !== "postgres")("changes made through one host reach another", () => {
  let a: TestHost;
  let b: TestHost;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let registry: { url: string; close(): Promise<void> };
  let shared: string;

  const invokeOnB = (toolId = "ping", headers: Record<string, string> = {}) =>
    b.api("POST", `/tools/echo/${toolId}/invoke`, { parameters: {} }, headers);

  beforeAll(async () => {
    upstream = await startUpstream();
    registry = await serveRegistry({
      root: join(import.meta.dirname, "..", "..", "..", "examples", "registry", "public"),
    });
    shared = tempDir("cyrnel-shared-db-");
    const env = {
      ...(await databaseEnv(shared)),
      CYRNEL_SECRETS_KEY: SECRETS_KEY,
      CYRNEL_API_KEY: ADMIN_KEY,
    };
    [a, b] = await Promise.all([startHost({ env }), startHost({ env })]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream?.close();
    await registry?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state !== "fail") return;
    if (waitingFor) console.error(`still waiting for ${waitingFor.what}; last seen:`, JSON.stringify(waitingFor.last));
    // What the hosts complained of says most about why.
    for (const [name, host] of [
      ["A", a],
      ["B", b],
    ] as const) {
      const lines = host?.logs().filter((line) => line.level === "warn" || line.level === "error") ?? [];
      console.error(`host ${name} warnings and errors:\n${lines.map((line) => JSON.stringify(line)).join("\n")}`);
    }
    waitingFor = null;
  });

  it("a service installed and enabled through A is listed by B, and B invokes it", async () => {
    const installed = await a.api("POST", "/services", {
      id: "echo",
      adapter: "openapi",
      definition: echoApi(upstream.url),
    });
    expect(installed.status, installed.text).toBe(201);
    // The adapter sends nothing without the bearer token.
    expect((await a.api("PATCH", "/services/echo/secrets", { token: "first-secret-value" })).status).toBe(200);
    expect((await a.api("POST", "/services/echo/enabled", { enabled: true })).status).toBe(200);
    const listed = await b.api("GET", "/services");
    expect(listed.body.items.map((service: { id: string }) => service.id)).toContain("echo");
    expect((await b.api("GET", "/tools?serviceId=echo")).body.items).toHaveLength(2);

    const before = upstream.requests.length;
    const invoked = await untilResponse(
      b,
      "B to invoke echo.ping",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 200,
    );
    expect(invoked.body).toMatchObject({ result: { path: "/ping" } });
    expect(upstream.requests.slice(before).map((request) => request.path)).toContain("/ping");
    expect(upstream.requests.at(-1)?.headers.authorization).toBe("Bearer first-secret-value");
  });

  it("config and secrets patched through A are what B's next call sends", async () => {
    expect((await a.api("PATCH", "/services/echo/config", { headers: { "x-tenant": "blue" } })).status).toBe(200);
    await until("B to send x-tenant: blue", async () => {
      const response = await invokeOnB();
      return response.status === 200 && upstream.requests.at(-1)?.headers["x-tenant"] === "blue" ? true : undefined;
    });

    const patched = await a.api("PATCH", "/services/echo/secrets", { token: "another-secret-value" });
    expect(patched.status, patched.text).toBe(200);
    await until("B to send the new token", async () => {
      const response = await invokeOnB();
      const sent = upstream.requests.at(-1)?.headers.authorization;
      return response.status === 200 && sent === "Bearer another-secret-value" ? true : undefined;
    });
    // B reads the names of the secrets (never their values) from the shared database.
    expect((await b.api("GET", "/services/echo/secrets")).body).toEqual({ set: ["token"] });

    // A second change of both: B follows again (its hydration is replaced, not merged).
    expect((await a.api("PATCH", "/services/echo/config", { headers: { "x-tenant": "green" } })).status).toBe(200);
    expect((await a.api("PATCH", "/services/echo/secrets", { token: "second-secret-value" })).status).toBe(200);
    await until("B to send x-tenant: green with the second token", async () => {
      const response = await invokeOnB();
      const last = upstream.requests.at(-1)?.headers;
      return response.status === 200 &&
        last?.["x-tenant"] === "green" &&
        last.authorization === "Bearer second-secret-value"
        ? true
        : undefined;
    });
  });

  it("a service disabled through A is refused by B without a request upstream, and enabled again it works", async () => {
    // B has called echo (its lookups are cached): the change must reach them.
    expect((await invokeOnB()).status).toBe(200);
    expect((await a.api("POST", "/services/echo/enabled", { enabled: false })).status).toBe(200);
    const refused = await untilResponse(
      b,
      "B to refuse the disabled service",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 409,
    );
    expect(refused.body).toMatchObject({ code: "service_disabled" });
    // Calls made while the change was on its way may have gone out; once B knows, a refusal sends nothing.
    const before = upstream.requests.length;
    expect((await invokeOnB()).status).toBe(409);
    expect(upstream.requests.length).toBe(before);

    expect((await a.api("POST", "/services/echo/enabled", { enabled: true })).status).toBe(200);
    await untilResponse(
      b,
      "B to call the enabled service",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 200,
    );
    expect(upstream.requests.at(-1)?.headers.authorization).toBe("Bearer second-secret-value");
  });

  it("a tool switched off through A is refused by B with no request upstream; on again, it is called", async () => {
    expect((await invokeOnB()).status).toBe(200);
    expect((await a.api("POST", "/tools/echo/ping/enabled", { enabled: false })).status).toBe(200);
    const refused = await untilResponse(
      b,
      "B to refuse the switched-off tool",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 409,
    );
    expect(refused.body).toMatchObject({ code: "tool_disabled" });
    // Once B knows (calls made while the change was on its way may have gone out), a refusal sends nothing, and
    // the other tool of the service is still called.
    const before = upstream.requests.length;
    expect((await invokeOnB()).status).toBe(409);
    expect((await invokeOnB("pong")).status).toBe(200);
    expect(upstream.requests.slice(before).map((request) => request.path)).toEqual(["/pong"]);

    expect((await a.api("POST", "/tools/echo/ping/enabled", { enabled: true })).status).toBe(200);
    await untilResponse(
      b,
      "B to call the tool again",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 200,
    );
  });

  it("a policy set through A applies on B: denied calls are 403 tool_denied and send nothing", async () => {
    expect((await invokeOnB()).status).toBe(200);
    const policy = await a.api("PUT", "/services/echo/policy", {
      default: "allow",
      rules: [{ tools: "ping", action: "deny" }],
    });
    expect(policy.status, policy.text).toBe(200);
    const denied = await untilResponse(
      b,
      "B to deny echo.ping",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 403,
    );
    expect(denied.body).toMatchObject({ code: "tool_denied" });
    const before = upstream.requests.length;
    expect((await invokeOnB()).status).toBe(403);
    expect(upstream.requests.length).toBe(before);
    // What B shows of the tool says so too.
    expect((await b.api("GET", "/tools/echo/ping")).body).toMatchObject({ policy: "deny" });

    expect((await a.api("PUT", "/services/echo/policy", { default: "allow", rules: [] })).status).toBe(200);
    await untilResponse(
      b,
      "B to allow echo.ping again",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 200,
    );
  });

  it("a key created through A authenticates on B; revoked through A, B answers 401", async () => {
    const created = await a.api("POST", "/keys", { name: "agent on B", role: "agent", services: ["echo"] });
    expect(created.status, created.text).toBe(201);
    const bearer = { authorization: `Bearer ${created.body.key}` };
    const listed = await b.api("GET", "/tools?serviceId=echo", undefined, bearer);
    expect(listed.status, listed.text).toBe(200);
    expect((await invokeOnB("ping", bearer)).status).toBe(200);

    expect((await a.api("DELETE", `/keys/${created.body.id}`)).status).toBe(204);
    const refused = await b.api("GET", "/tools", undefined, bearer);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: "unauthorized" });
  });

  it("a module's config patched through A restarts it on B with that config", async () => {
    // The openapi module's bound on a definition's size: B must refuse what it accepted before.
    const big = echoApi(upstream.url).replace(
      '"paths":{',
      `"x-padding":${JSON.stringify(Array.from({ length: 1500 }, (_, i) => i))},"paths":{`,
    );
    const patched = await a.api("PATCH", "/modules/openapi/config", { maxDefinitionValues: 1000 });
    expect(patched.status, patched.text).toBe(200);
    const refused = await untilResponse(
      b,
      "B's openapi module to refuse a definition over 1,000 values",
      ["POST", "/services", { id: "bigecho", adapter: "openapi", definition: big }],
      // A call while the module restarts may meet it stopped: the limit's own message is what is awaited.
      (r) => r.status === 400 && /more than 1.?000 values/.test(r.text),
    );
    expect(refused.body).toMatchObject({ code: "bad_request" });
    // B's services were hydrated again after the restart: echo still answers through B.
    await untilResponse(
      b,
      "B to call echo after the restart",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 200,
    );

    expect((await a.api("PATCH", "/modules/openapi/config", { maxDefinitionValues: null })).status).toBe(200);
    const accepted = await untilResponse(
      b,
      "B's openapi module to take the definition again",
      ["POST", "/services", { id: "bigecho", adapter: "openapi", definition: big }],
      (r) => r.status === 201,
    );
    expect(accepted.body).toMatchObject({ id: "bigecho" });
    expect((await a.api("DELETE", "/services/bigecho")).status).toBe(204);
  });

  it("a custom module installed from a registry through A runs on B in the same version; updated, B runs the new one; deleted, it is gone from B", async () => {
    const source = `${registry.url}/modules/json-http/descriptor.json`;
    const installed = await a.api("POST", "/modules/install", { source, version: "1.0.0" });
    expect(installed.status, installed.text).toBe(201);
    const onB = await untilResponse(
      b,
      "B to load json-http 1.0.0",
      ["GET", "/modules/json-http"],
      (r) => r.status === 200 && r.body.version === "1.0.0" && r.body.missing === false,
    );
    expect(onB.body).toMatchObject({ source, enabled: false, active: false, error: null });
    // B's own folder holds the module's files, unpacked from the database.
    const onBDisk = join(b.dataDir, "modules", "json-http", "module.json");
    expect(JSON.parse(readFileSync(onBDisk, "utf8")).version).toBe("1.0.0");

    expect((await a.api("POST", "/modules/json-http/enabled", { enabled: true })).status).toBe(200);
    await untilResponse(b, "B to start json-http", ["GET", "/modules/json-http"], (r) => r.body.active === true);
    const descriptor = JSON.stringify({
      name: "Echo over json-http",
      baseUrl: upstream.url,
      endpoints: [
        { id: "hello", method: "GET", path: "/hello", input: { type: "object" }, output: { type: "object" } },
      ],
    });
    const service = await a.api("POST", "/services", {
      id: "jsonecho",
      adapter: "json-http",
      definition: descriptor,
      enabled: true,
    });
    expect(service.status, service.text).toBe(201);
    // json-http 1.0.0 answers the upstream's body itself.
    const v1 = await untilResponse(
      b,
      "B to call jsonecho with json-http 1.0.0",
      ["POST", "/tools/jsonecho/hello/invoke", {}],
      (r) => r.status === 200,
    );
    expect(v1.body.result).toEqual({ path: "/hello" });

    const updated = await a.api("POST", "/modules/json-http/update", { version: "2.0.0" });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ updated: true, fromVersion: "1.0.0", toVersion: "2.0.0" });
    await untilResponse(
      b,
      "B to run json-http 2.0.0",
      ["GET", "/modules/json-http"],
      (r) => r.body.version === "2.0.0" && r.body.active === true,
    );
    expect(JSON.parse(readFileSync(onBDisk, "utf8")).version).toBe("2.0.0");
    // 2.0.0's code runs on B: its result is `{status, body}`.
    const v2 = await untilResponse(
      b,
      "B to call jsonecho with json-http 2.0.0",
      ["POST", "/tools/jsonecho/hello/invoke", {}],
      (r) => r.status === 200 && r.body.result?.status === 200,
    );
    expect(v2.body.result).toEqual({ status: 200, body: { path: "/hello" } });

    expect((await a.api("DELETE", "/modules/json-http")).status).toBe(204);
    await untilResponse(b, "B to forget json-http", ["GET", "/modules/json-http"], (r) => r.status === 404);
    expect(existsSync(join(b.dataDir, "modules", "json-http"))).toBe(false);
    // Its services went with it (deleted by A in the database, let go of by B).
    expect((await b.api("GET", "/services/jsonecho")).status).toBe(404);
    expect(await queryDatabase(shared, "select module_id from cluster_module_archives")).toEqual([]);
  });

  it("a module dropped into A's folder is shared by POST /modules/reload; one that cannot be shared is a 400", async () => {
    cpSync(join(fixturesDir, "modules", "recorder"), join(a.dataDir, "modules", "recorder"), { recursive: true });
    const reloaded = await a.api("POST", "/modules/reload");
    expect(reloaded.status, reloaded.text).toBe(200);
    const onB = await untilResponse(
      b,
      "B to load the recorder from the database",
      ["GET", "/modules/recorder"],
      (r) => r.status === 200 && r.body.missing === false,
    );
    expect(onB.body).toMatchObject({ version: "1.0.0", type: "adapter", error: null });
    expect(existsSync(join(b.dataDir, "modules", "recorder", "index.mjs"))).toBe(true);

    // Enabled, configured and given a secret through A, it runs on B too and B restarts it for each: the recorder
    // appends a line per setup to the file its config names, from whichever host runs it.
    const hookLog = join(tempDir("cyrnel-hooks-"), "hooks.jsonl");
    const setups = () =>
      existsSync(hookLog)
        ? readFileSync(hookLog, "utf8")
            .split("\n")
            .filter((line) => line.includes('"hook":"setup"')).length
        : 0;
    expect((await a.api("PATCH", "/modules/recorder/config", { hookLog })).status).toBe(200);
    expect((await a.api("POST", "/modules/recorder/enabled", { enabled: true })).status).toBe(200);
    await untilResponse(b, "B to start the recorder", ["GET", "/modules/recorder"], (r) => r.body.active === true);
    await until("both hosts to have set the recorder up", async () => (setups() >= 2 ? true : undefined));
    const before = setups();
    expect((await a.api("PATCH", "/modules/recorder/secrets", { apiKey: "module-secret" })).status).toBe(200);
    // A restarts it for the patch, B when it hears of it: one setup each, and none more.
    await until("both hosts to restart the recorder with its new secret", async () =>
      setups() >= before + 2 ? true : undefined,
    );
    expect(setups()).toBe(before + 2);

    // A link could point anywhere on A's disk: the rescan refuses to share it, and changes nothing.
    cpSync(join(fixturesDir, "modules", "echo-env"), join(a.dataDir, "modules", "echo-env"), { recursive: true });
    symlinkSync("/etc/hostname", join(a.dataDir, "modules", "echo-env", "linked"));
    const refused = await a.api("POST", "/modules/reload");
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toContain('module "echo-env" cannot be shared');
    expect((await a.api("GET", "/modules/echo-env")).status).toBe(404);
  });

  it("after B's listening connection is killed, B reloads everything and ends up consistent", async () => {
    expect((await invokeOnB()).status).toBe(200);
    // Written straight into the database: no host publishes these, so only B's reload after the gap finds them.
    await queryDatabase(shared, "update tools set enabled = false where service_id = 'echo' and id = 'ping'");
    await queryDatabase(
      shared,
      `update services set config = '{"headers":{"x-tenant":"after-gap"}}' where id = 'echo'`,
    );
    // B's cache still answers from before (nothing told it): the reload is what changes it.
    expect((await invokeOnB()).status).toBe(200);

    const started = b.logs().find((line) => line.msg === "following changes from other hosts sharing the database");
    const hostId = started?.hostId as string;
    expect(hostId).toMatch(/^h[0-9a-f]{16}$/);
    const killed = await queryDatabase<{ killed: boolean }>(
      shared,
      "select pg_terminate_backend(pid) as killed from pg_stat_activity where application_name = ?",
      [`cyrnel listen ${hostId}`],
    );
    expect(killed).toEqual([{ killed: true }]);
    // And a change through A while B may still be reconnecting: B must end up with it either way.
    expect((await a.api("POST", "/tools/echo/pong/enabled", { enabled: false })).status).toBe(200);

    await b.waitForLog(
      (line) => line.msg === "changes from other hosts may have been missed; reloading everything from the database",
    );
    const refused = await untilResponse(
      b,
      "B to refuse the tool switched off in the database",
      ["POST", "/tools/echo/ping/invoke", {}],
      (r) => r.status === 409,
    );
    expect(refused.body).toMatchObject({ code: "tool_disabled" });
    await untilResponse(b, "B to refuse pong", ["POST", "/tools/echo/pong/invoke", {}], (r) => r.status === 409);

    expect((await a.api("POST", "/tools/echo/ping/enabled", { enabled: true })).status).toBe(200);
    await until("B to send the config written during the gap", async () => {
      const response = await invokeOnB();
      return response.status === 200 && upstream.requests.at(-1)?.headers["x-tenant"] === "after-gap"
        ? true
        : undefined;
    });
    // B listens again: a later change through A reaches it as before.
    expect((await a.api("PATCH", "/services/echo/config", { headers: { "x-tenant": "back" } })).status).toBe(200);
    await until("B to send x-tenant: back", async () => {
      const response = await invokeOnB();
      return response.status === 200 && upstream.requests.at(-1)?.headers["x-tenant"] === "back" ? true : undefined;
    });
  });

  it("a host started later brings its module folders from the database; one deleted while it was down is dropped", async () => {
    const env = { ...(await databaseEnv(shared)), CYRNEL_SECRETS_KEY: SECRETS_KEY, CYRNEL_API_KEY: ADMIN_KEY };
    let c = await startHost({ env });
    try {
      // Loaded from files it never had: the recorder (shared by A's reload), started as its row says.
      expect((await c.api("GET", "/modules/recorder")).body).toMatchObject({
        missing: false,
        active: true,
        error: null,
      });
      expect(readFileSync(join(c.dataDir, "modules", "recorder", "module.json"), "utf8")).toBe(
        readFileSync(join(a.dataDir, "modules", "recorder", "module.json"), "utf8"),
      );
      expect((await c.api("POST", "/tools/echo/ping/invoke", {})).status).toBe(200);

      await c.stop();
      expect((await a.api("DELETE", "/modules/recorder")).status).toBe(204);
      await untilResponse(b, "B to forget the recorder", ["GET", "/modules/recorder"], (r) => r.status === 404);
      c = await restart(c, { env });
      expect((await c.api("GET", "/modules/recorder")).status).toBe(404);
      expect(existsSync(join(c.dataDir, "modules", "recorder"))).toBe(false);
    } finally {
      await c.stop();
    }
  });
});
