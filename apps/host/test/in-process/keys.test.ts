import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryDatabase } from "../support/database.js";
import type { ApiResponse } from "../support/host.js";
import { type InProcessHost, rebuild, startInProcess } from "../support/in-process.js";
import { enableRecorder, installRecorded } from "../support/recorder.js";

/**
 * Stored API keys, roles per route and process ownership, through the host
 * built in-process (every JSON answer checked against its declared schema,
 * every error code against the route's declared ones).
 */
const BOOTSTRAP = "bootstrap-key-for-keys-tests";

type Access = "public" | "agent" | "admin";

/** What an agent key may call (docs/agents.md); every other route needs an admin key. */
const AGENT_OPERATIONS = [
  "openapi",
  "listServices",
  "getService",
  "listTools",
  "getTool",
  "getToolDocs",
  "invokeTool",
  "getEnvironmentDocs",
  "getEnvironmentTypes",
  "createProcess",
  "listProcesses",
  "getProcess",
  "getProcessCode",
  "getProcessOutput",
  "getProcessStdout",
  "getProcessStderr",
  "getProcessResults",
  "getProcessText",
  "followProcess",
  "listProcessCalls",
  "listApprovals",
  "getApproval",
  "runProcess",
  "killProcess",
  "deleteProcess",
  "startConnection",
  "listConnections",
  "deleteConnection",
].sort();

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** Whether the answer is about the key (its absence or its role) rather than the request. */
const refusedForKey = (response: ApiResponse) => response.status === 401 || response.status === 403;

async function createKey(host: InProcessHost, body: Record<string, unknown>, as?: string) {
  const response = await host.api("POST", "/keys", body, as === undefined ? {} : bearer(as));
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string; key: string; [field: string]: unknown };
}

function keyRows(dataDir: string): Promise<Record<string, unknown>[]> {
  return queryDatabase(dataDir, "select * from api_keys");
}

async function setExpiry(dataDir: string, id: string, expiresAt: string) {
  await queryDatabase(dataDir, "update api_keys set expires_at = ? where id = ?", [expiresAt, id]);
}

describe("with CYRNEL_API_KEY", () => {
  let host: InProcessHost;
  let agent: { id: string; key: string };
  let admin: { id: string; key: string };

  beforeAll(async () => {
    host = await startInProcess({ modules: ["recorder", "echo-env"], env: { CYRNEL_API_KEY: BOOTSTRAP } });
    expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
    await enableRecorder(host);
    await installRecorded(host, "svc", [{ id: "ok" }], { enabled: true });
    agent = await createKey(host, { name: "matrix agent", role: "agent" });
    admin = await createKey(host, { name: "matrix admin", role: "admin" });
  });
  afterAll(() => host?.stop());

  it("answers a new key with Cache-Control: no-store, so no cache keeps a copy; a list of keys holds none", async () => {
    const created = await host.api("POST", "/keys", { name: "not cached", role: "agent" });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect((await host.api("GET", "/keys")).headers.get("cache-control")).toBeNull();
    expect((await host.api("DELETE", `/keys/${created.body.id}`)).status).toBe(204);
  });

  describe("role matrix, from /openapi.json", () => {
    let operations: { method: string; path: string; operationId: string; access: Access; request: string }[];

    beforeAll(async () => {
      const document = (await host.api("GET", "/openapi.json")).body;
      operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          operationId: operation.operationId,
          access: operation["x-cyrnel-access"],
          // Ids nothing has: an allowed call answers 4xx about its input, never about the key.
          request: path.replace(/\{(\w+)\}/g, (_match, name: string) => {
            const parameter = operation.parameters.find((p: any) => p.name === name && p.in === "path");
            return parameter.schema.type === "integer" ? "987654" : "nothing_here";
          }),
        })),
      );
    });

    it("has an access level on every operation, and exactly the agent operations of the contract", () => {
      const undeclared = operations.filter((op) => !["public", "agent", "admin"].includes(op.access));
      expect(undeclared.map((op) => `${op.method} ${op.path}`)).toEqual([]);
      expect(operations.filter((op) => op.access === "public").map((op) => op.operationId)).toEqual([
        "health",
        "oauthProtectedResource",
        "oauthProtectedResourceMcp",
        "connectionCallback",
      ]);
      expect(
        operations
          .filter((op) => op.access === "agent")
          .map((op) => op.operationId)
          .sort(),
      ).toEqual(AGENT_OPERATIONS);
    });

    const send = (op: { method: string; request: string }, headers: Record<string, string>) =>
      host.api(op.method, op.request, ["POST", "PATCH", "PUT"].includes(op.method) ? {} : undefined, headers);

    it("answers every route without a key 401, but the public ones", async () => {
      for (const op of operations) {
        const response = await send(op, { authorization: "" });
        const label = `${op.method} ${op.path}`;
        // The OAuth metadata is public too; without CYRNEL_OAUTH_ISSUER (as here) there is none: 404, never 401. The
        // connections' callback is public (the provider's redirect carries no key): without a state, 400.
        const publicStatus = { health: 200, connectionCallback: 400 }[op.operationId as string] ?? 404;
        if (op.access === "public") expect([label, response.status]).toEqual([label, publicStatus]);
        else expect([label, response.status, response.body.code]).toEqual([label, 401, "unauthorized"]);
      }
    });

    it("answers an agent key 403 forbidden on every admin route, and lets it through to the others", async () => {
      for (const op of operations) {
        const response = await send(op, bearer(agent.key));
        const label = `${op.method} ${op.path}`;
        if (op.access === "admin") {
          expect([label, response.status, response.body.code]).toEqual([label, 403, "forbidden"]);
        } else expect([label, refusedForKey(response)]).toEqual([label, false]);
      }
    });

    it("lets admin keys, stored and bootstrap, through to every route", async () => {
      for (const key of [admin.key, BOOTSTRAP]) {
        for (const op of operations) {
          const label = `${op.method} ${op.path}`;
          expect([label, refusedForKey(await send(op, bearer(key)))]).toEqual([label, false]);
        }
      }
    });

    it("lets an agent key use /mcp, and refuses it without a key", async () => {
      const rpc = { jsonrpc: "2.0", id: 1, method: "tools/list" };
      const headers = { accept: "application/json, text/event-stream" };
      expect((await host.api("POST", "/mcp", rpc, { ...headers, ...bearer(agent.key) })).status).toBe(200);
      expect((await host.api("POST", "/mcp", rpc, { ...headers, authorization: "" })).status).toBe(401);
    });
  });

  describe("keys", () => {
    it("shows the key once; lists and reads never show it; the database holds only its SHA-256", async () => {
      const created = await host.api("POST", "/keys", {
        name: "  reporting agent ",
        role: "agent",
        services: ["svc", "svc", "later"],
        expiresAt: "2999-01-01T00:00:00+01:00",
      });
      expect(created.status, created.text).toBe(201);
      const { key, ...record } = created.body;
      expect(key).toMatch(/^cyk_[A-Za-z0-9_-]{43}$/);
      expect(record).toEqual({
        id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
        name: "reporting agent",
        role: "agent",
        services: ["svc", "later"],
        createdAt: expect.any(String),
        expiresAt: "2998-12-31T23:00:00.000Z",
        lastUsedAt: null,
        revokedAt: null,
        revokedBy: null,
      });

      const read = await host.api("GET", `/keys/${record.id}`);
      expect(read.body).toEqual(record);
      const listed = await host.api("GET", "/keys?limit=1000");
      expect(listed.body.items).toContainEqual(record);
      for (const text of [read.text, listed.text]) expect(text).not.toContain(key);

      const row = (await keyRows(host.dataDir)).find((r) => r.id === record.id);
      expect(row?.hash).toBe(createHash("sha256").update(key).digest("hex"));
      for (const file of ["data.db", "data.db-wal"]) {
        const path = join(host.dataDir, file);
        if (existsSync(path)) expect(readFileSync(path).includes(key)).toBe(false);
      }
    });

    it("pages the list oldest first", async () => {
      const first = await host.api("GET", "/keys?limit=1");
      expect(first.body.items).toHaveLength(1);
      expect(first.body.items[0].name).toBe("matrix agent");
      const rest = await host.api("GET", `/keys?limit=1000&cursor=${first.body.nextCursor}`);
      expect(rest.body.items.map((k: any) => k.name)).not.toContain("matrix agent");
      expect(rest.body.items[0].name).toBe("matrix admin");
    });

    it("records when a key was last used, at most once a minute", async () => {
      const fresh = await createKey(host, { name: "used", role: "agent" });
      expect((await host.api("GET", "/services", undefined, bearer(fresh.key))).status).toBe(200);
      const first = (await host.api("GET", `/keys/${fresh.id}`)).body.lastUsedAt;
      expect(Date.parse(first)).toBeGreaterThan(0);
      expect((await host.api("GET", "/tools", undefined, bearer(fresh.key))).status).toBe(200);
      expect((await host.api("GET", `/keys/${fresh.id}`)).body.lastUsedAt).toBe(first);
    });

    it("refuses a revoked key with 401 at once, as an unknown key, and a second revoke with 404", async () => {
      const doomed = await createKey(host, { name: "doomed", role: "agent" });
      expect((await host.api("GET", "/services", undefined, bearer(doomed.key))).status).toBe(200);
      expect((await host.api("DELETE", `/keys/${doomed.id}`)).status).toBe(204);
      const unknown = await host.api("GET", "/services", undefined, bearer(`cyk_${"x".repeat(43)}`));
      const refused = await host.api("GET", "/services", undefined, bearer(doomed.key));
      expect([refused.status, refused.body]).toEqual([401, { error: "invalid API key", code: "unauthorized" }]);
      expect(refused.body).toEqual(unknown.body);
      const rpc = { jsonrpc: "2.0", id: 1, method: "tools/list" };
      const mcp = await host.api("POST", "/mcp", rpc, {
        accept: "application/json, text/event-stream",
        ...bearer(doomed.key),
      });
      expect(mcp.status).toBe(401);
      expect((await host.api("POST", "/processes", { code: "a" }, bearer(doomed.key))).status).toBe(401);
      const again = await host.api("DELETE", `/keys/${doomed.id}`);
      expect([again.status, again.body.code]).toEqual([404, "not_found"]);
      expect(again.body.error).toContain("already revoked");
      // Still readable, as revoked, by CYRNEL_API_KEY; the row (and its hash) is kept.
      const read = await host.api("GET", `/keys/${doomed.id}`);
      expect(read.body).toMatchObject({ name: "doomed", revokedAt: expect.any(String), revokedBy: "bootstrap" });
      expect((await keyRows(host.dataDir)).find((row) => row.id === doomed.id)?.hash).toBe(
        createHash("sha256").update(doomed.key).digest("hex"),
      );
    });

    it("lists revoked keys as revoked, with who revoked them; ?revoked= keeps one kind", async () => {
      const kept = await createKey(host, { name: "kept", role: "agent" });
      const gone = await createKey(host, { name: "gone", role: "agent" });
      expect((await host.api("DELETE", `/keys/${gone.id}`, undefined, bearer(admin.key))).status).toBe(204);
      const all = (await host.api("GET", "/keys?limit=1000")).body.items;
      expect(all.find((k: any) => k.id === gone.id)).toMatchObject({
        name: "gone",
        revokedAt: expect.any(String),
        revokedBy: admin.id,
      });
      expect(all.find((k: any) => k.id === kept.id)).toMatchObject({ revokedAt: null, revokedBy: null });
      const live = (await host.api("GET", "/keys?limit=1000&revoked=false")).body.items;
      expect(live.map((k: any) => k.id)).toContain(kept.id);
      expect(live.every((k: any) => k.revokedAt === null)).toBe(true);
      const revoked = (await host.api("GET", "/keys?limit=1000&revoked=true")).body.items;
      expect(revoked.map((k: any) => k.id)).toContain(gone.id);
      expect(revoked.every((k: any) => k.revokedAt !== null)).toBe(true);
      expect(live.length + revoked.length).toBe(all.length);
      // Paging walks revoked keys as any other.
      const first = await host.api("GET", "/keys?limit=1&revoked=true");
      const rest = await host.api("GET", `/keys?limit=1000&revoked=true&cursor=${first.body.nextCursor}`);
      expect([...first.body.items, ...rest.body.items].map((k: any) => k.id)).toEqual(revoked.map((k: any) => k.id));
      expect((await host.api("GET", "/keys?revoked=maybe")).status).toBe(400);
    });

    it("refuses an expired key with 401", async () => {
      const aging = await createKey(host, { name: "aging", role: "admin" });
      expect((await host.api("GET", "/keys", undefined, bearer(aging.key))).status).toBe(200);
      await setExpiry(host.dataDir, aging.id, new Date(Date.now() - 1000).toISOString());
      const refused = await host.api("GET", "/keys", undefined, bearer(aging.key));
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ code: "unauthorized", error: expect.stringContaining("expired") });
    });

    it.each([
      ["an empty name", { name: "  ", role: "agent" }, 400, "name"],
      ["a name over 100 characters", { name: "n".repeat(101), role: "agent" }, 400, "name"],
      ["an unknown role", { name: "x", role: "root" }, 400, "role"],
      ["services on an admin key", { name: "x", role: "admin", services: ["svc"] }, 400, "agent keys only"],
      ["a service id that is no identifier", { name: "x", role: "agent", services: ["no-dash"] }, 400, "no-dash"],
      ["an expiry in the past", { name: "x", role: "agent", expiresAt: "2001-01-01T00:00:00Z" }, 400, "future"],
      ["an expiry that is no date-time", { name: "x", role: "agent", expiresAt: "next week" }, 400, "expiresAt"],
      ["an unknown field", { name: "x", role: "agent", key: "cyk_mine" }, 400, "key"],
    ])("refuses %s", async (_label, body, status, mentions) => {
      const response = await host.api("POST", "/keys", body);
      expect(response.status, response.text).toBe(status);
      expect(response.body.error).toContain(mentions);
    });
  });

  describe("processes belong to the key that created them", () => {
    let mine: { id: string; key: string };
    let theirs: { id: string; key: string };
    const as = (key: string, method: string, path: string, body?: unknown) => host.api(method, path, body, bearer(key));
    const start = async (key: string, code: string): Promise<ApiResponse> => {
      const response = await as(key, "POST", "/processes", { code, block: true });
      expect(response.status, response.text).toBe(201);
      return response;
    };

    beforeAll(async () => {
      mine = await createKey(host, { name: "mine", role: "agent" });
      theirs = await createKey(host, { name: "theirs", role: "agent" });
    });

    it("records the key on the process, null for CYRNEL_API_KEY", async () => {
      expect((await start(mine.key, "a")).body.keyId).toBe(mine.id);
      expect((await start(BOOTSTRAP, "b")).body.keyId).toBeNull();
      expect((await start(admin.key, "c")).body.keyId).toBe(admin.id);
    });

    it("answers another agent's process 404 on every route, as a process that does not exist", async () => {
      const id = (await start(mine.key, "private")).body.id;
      const missing = await as(theirs.key, "GET", "/processes/987654");
      for (const [method, suffix, body] of [
        ["GET", ""],
        ["GET", "/code"],
        ["GET", "/output"],
        ["GET", "/stdout"],
        ["GET", "/stderr"],
        ["GET", "/results"],
        ["GET", "/text?stream=stdout"],
        ["GET", "/events"],
        ["GET", "/calls"],
        ["POST", "/signals/run", { force: true }],
        ["POST", "/signals/kill"],
        ["DELETE", ""],
      ] as const) {
        const response = await as(theirs.key, method, `/processes/${id}${suffix}`, body);
        expect([method, suffix, response.status, response.body.code]).toEqual([method, suffix, 404, "not_found"]);
        expect(response.body.error).toBe(missing.body.error.replace("987654", String(id)));
      }
      // Its owner and admins still reach it.
      expect((await as(mine.key, "GET", `/processes/${id}/code`)).text).toBe("private");
      expect((await as(mine.key, "GET", `/processes/${id}/calls`)).body).toMatchObject({ items: [] });
      expect((await as(admin.key, "GET", `/processes/${id}`)).status).toBe(200);
      expect((await as(mine.key, "DELETE", `/processes/${id}`)).status).toBe(204);
    });

    it("lets an agent kill its own process", async () => {
      const created = await as(mine.key, "POST", "/processes", { code: "sleep:60000" });
      expect((await as(theirs.key, "POST", `/processes/${created.body.id}/signals/kill`)).status).toBe(404);
      const killed = await as(mine.key, "POST", `/processes/${created.body.id}/signals/kill`);
      expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled" });
    });

    it("lists an agent's own processes only; an admin sees all and filters by key", async () => {
      const own = (await start(theirs.key, "theirs")).body.id;
      const ids = async (key: string, query = "") =>
        (await as(key, "GET", `/processes?limit=1000${query}`)).body.items.map((p: any) => p.id);
      expect(await ids(theirs.key)).toEqual([own]);
      expect(await ids(theirs.key, `&keyId=${mine.id}`)).toEqual([]);
      expect(await ids(theirs.key, `&keyId=${theirs.id}`)).toEqual([own]);
      const all = await ids(admin.key);
      expect(all).toContain(own);
      expect(all.length).toBeGreaterThan(1);
      expect(await ids(BOOTSTRAP, `&keyId=${theirs.id}`)).toEqual([own]);
    });

    it("refuses the tool calls of a process whose key was revoked", async () => {
      const short = await createKey(host, { name: "short-lived", role: "agent" });
      const ran = await start(short.key, "call:svc.ok");
      expect(ran.body.output).toMatchObject({ result: expect.anything() });
      expect((await host.api("DELETE", `/keys/${short.id}`)).status).toBe(204);
      // An admin runs it again: it still runs as the key that created it.
      const again = await host.api("POST", `/processes/${ran.body.id}/signals/run`, { force: true, block: true });
      expect(again.body.output.error).toMatchObject({ status: 403, code: "forbidden" });
      expect(again.body.output.error.message).toContain("revoked");
    });

    it("refuses the tool calls of a process whose key expired", async () => {
      const aging = await createKey(host, { name: "aging agent", role: "agent" });
      const ran = await start(aging.key, "call:svc.ok");
      expect(ran.body.output).toMatchObject({ result: expect.anything() });
      await setExpiry(host.dataDir, aging.id, new Date(Date.now() - 1000).toISOString());
      const again = await host.api("POST", `/processes/${ran.body.id}/signals/run`, { force: true, block: true });
      expect(again.body.output.error).toMatchObject({ status: 403, code: "forbidden" });
      expect(again.body.output.error.message).toContain("expired");
    });
  });
});

describe("without CYRNEL_API_KEY", () => {
  let host: InProcessHost;
  let operator: { id: string; key: string };
  beforeAll(async () => {
    host = await startInProcess();
  });
  afterAll(() => host?.stop());

  it("serves anyone until the first key, which must be an admin key, turns authentication on", async () => {
    expect((await host.api("GET", "/services")).status).toBe(200);
    const agentFirst = await host.api("POST", "/keys", { name: "agent", role: "agent" });
    expect(agentFirst.status).toBe(409);
    expect(agentFirst.body.error).toContain("create an admin key first");
    expect(await keyRows(host.dataDir)).toEqual([]);

    operator = await createKey(host, { name: "operator", role: "admin" });
    const anonymous = await host.api("GET", "/services");
    expect([anonymous.status, anonymous.body.code]).toEqual([401, "unauthorized"]);
    expect((await host.api("GET", "/health")).status).toBe(200);
    // A load balancer's HEAD is as public as its GET.
    expect((await host.api("HEAD", "/health")).status).toBe(200);
    expect((await host.api("HEAD", "/services")).status).toBe(401);
    expect((await host.api("GET", "/services", undefined, bearer(operator.key))).status).toBe(200);
    const agent = await createKey(host, { name: "agent", role: "agent" }, operator.key);
    expect((await host.api("GET", "/services", undefined, bearer(agent.key))).status).toBe(200);
  });

  it("keeps the last admin key: revoking it is a 409 until another admin key exists", async () => {
    const as = bearer(operator.key);
    const refused = await host.api("DELETE", `/keys/${operator.id}`, undefined, as);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("last admin key");
    expect((await host.api("GET", "/keys", undefined, as)).status).toBe(200);

    const successor = await createKey(host, { name: "successor", role: "admin" }, operator.key);
    expect((await host.api("DELETE", `/keys/${operator.id}`, undefined, as)).status).toBe(204);
    expect((await host.api("GET", "/keys", undefined, as)).status).toBe(401);
    const remaining = await host.api("GET", "/keys?revoked=false", undefined, bearer(successor.key));
    expect(remaining.body.items.map((k: any) => k.name)).toEqual(["agent", "successor"]);
    const listed = await host.api("GET", "/keys", undefined, bearer(successor.key));
    expect(listed.body.items.map((k: any) => [k.name, k.revokedBy])).toEqual([
      ["operator", operator.id],
      ["agent", null],
      ["successor", null],
    ]);

    // The revoked operator key counts as no admin key: the successor is now the last one.
    const last = await host.api("DELETE", `/keys/${successor.id}`, undefined, bearer(successor.key));
    expect(last.status).toBe(409);
    expect(last.body.error).toContain("last admin key");
  });

  it("counts revoked keys as absent when deciding whether authentication is on and who must be first", async () => {
    // With CYRNEL_API_KEY every stored key can be revoked; a restart without it then finds no live key.
    let hosted = await startInProcess({ env: { CYRNEL_API_KEY: BOOTSTRAP } });
    try {
      const admin = await createKey(hosted, { name: "admin", role: "admin" });
      const agent = await createKey(hosted, { name: "agent", role: "agent" });
      for (const key of [admin, agent]) expect((await hosted.api("DELETE", `/keys/${key.id}`)).status).toBe(204);
      hosted = await rebuild(hosted, { env: {} });
      // As with no key stored: anyone is served, and the first key must again be an admin key.
      expect((await hosted.api("GET", "/services")).status).toBe(200);
      const agentFirst = await hosted.api("POST", "/keys", { name: "agent", role: "agent" });
      expect([agentFirst.status, agentFirst.body.error]).toEqual([409, expect.stringContaining("admin key first")]);
      expect((await keyRows(hosted.dataDir)).map((row) => row.revoked_at === null)).toEqual([false, false]);
      // The revoked keys stay refused should authentication come back on.
      const fresh = await createKey(hosted, { name: "fresh admin", role: "admin" });
      expect((await hosted.api("GET", "/services", undefined, bearer(admin.key))).status).toBe(401);
      expect((await hosted.api("GET", "/services", undefined, bearer(fresh.key))).status).toBe(200);
    } finally {
      await hosted.stop();
    }
  });
});
