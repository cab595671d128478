import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everyRowText, queryDatabase, testDialect } from "./support/database.js";
import { installFixtureModule, startHost, type TestHost } from "./support/host.js";
import { followProcess, readEvents } from "./support/process-events.js";
import { type ShopApi, shopDocument, startShopApi } from "./support/shop-api.js";

/**
 * Governance end to end: the built host, the typescript-ivm sandbox and the
 * openapi adapter calling a real local API that records every request it
 * gets (support/shop-api.ts), so "nothing was sent" is counted at the
 * upstream. Policies (allow/ask/deny), approvals that suspend a process,
 * and the record of every call.
 */
const SHOP_KEY = "shop-key-governance-7d1f0a93";
/** Code must never contain the secret itself (the code is stored): it builds it from parts. */
const SHOP_KEY_IN_CODE = `["shop-key", "governance", "7d1f0a93"].join("-")`;
const API_KEY = "governance-api-key-4be1";
/** Pending approvals one key may have (CYRNEL_PENDING_APPROVALS_LIMIT), small so a case can reach it. */
const PENDING_LIMIT = 3;

let host: TestHost;
let shop: ShopApi;

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY, CYRNEL_PENDING_APPROVALS_LIMIT: String(PENDING_LIMIT) } });
  await install("shop");
});
afterAll(async () => {
  await host?.stop();
  await shop?.close();
});

async function install(id: string, definition = shop.definition): Promise<void> {
  const installed = await host.api("POST", "/services", { id, adapter: "openapi", definition });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("PATCH", `/services/${id}/secrets`, { shopKey: SHOP_KEY })).status).toBe(200);
  expect((await host.api("POST", `/services/${id}/enabled`, { enabled: true })).status).toBe(200);
}

const notesSent = () =>
  shop.requests.filter((request) => request.method === "POST" && request.path === "/notes").length;

async function setPolicy(policy: unknown, service = "shop") {
  const response = await host.api("PUT", `/services/${service}/policy`, policy);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/**
 * Starts a process without waiting for it. Unchecked: some programs here make wrong calls on purpose, for the gate
 * to refuse and record.
 */
async function start(code: string, timeoutMs = 60_000): Promise<number> {
  const response = await host.api("POST", "/processes", { code, timeoutMs, typecheck: false });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

async function waitIdle(id: number): Promise<Record<string, any>> {
  await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe("idle");
  return (await host.api("GET", `/processes/${id}`)).body;
}

/** Waits until the process has a pending approval; returns it. */
async function pendingApproval(processId: number): Promise<Record<string, any>> {
  let found: Record<string, any> | undefined;
  await expect
    .poll(async () => {
      const page = await host.api("GET", `/approvals?state=pending&processId=${processId}`);
      found = page.body.items[0];
      return found !== undefined;
    }, {})
    .toBe(true);
  return found!;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function createKey(name: string): Promise<{ id: string; key: string }> {
  const response = await host.api("POST", "/keys", { name, role: "agent", services: ["shop"] });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Starts a process as an agent key (unchecked, as `start`). */
async function startAs(key: string, code: string): Promise<number> {
  const response = await host.api("POST", "/processes", { code, timeoutMs: 60_000, typecheck: false }, bearer(key));
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

const createNoteCatching = (text: string) => createNoteOf(JSON.stringify(text));

/** Creates a note whose text is what `expression` evaluates to in the code (code is at most 100 KiB: big texts are built there). */
const createNoteOf = (expression: string) => `
  try {
    const note = await cyrnel.services.shop.tools.createNote.invoke({ body: { text: ${expression} } });
    cyrnel.output({ note });
  } catch (error) {
    const e = error as { status?: number; code?: string; message: string };
    cyrnel.output({ failed: { status: e.status, code: e.code, message: e.message } });
  }`;

describe("annotations", () => {
  it("come from the methods of a real document (petstore) and show on tool records and docs", async () => {
    const petstore = readFileSync(
      createRequire(import.meta.url).resolve("@readme/oas-examples/3.0/json/petstore.json"),
      "utf8",
    );
    expect((await host.api("POST", "/services", { id: "pets", adapter: "openapi", definition: petstore })).status).toBe(
      201,
    );
    const tools = (await host.api("GET", "/tools?serviceId=pets")).body.items as Record<string, any>[];
    const byId = Object.fromEntries(tools.map((tool) => [tool.id, tool]));
    const open = { openWorld: true };
    expect(byId.getPetById.annotations).toEqual({ readOnly: true, destructive: false, idempotent: false, ...open });
    expect(byId.addPet.annotations).toEqual({ readOnly: false, destructive: false, idempotent: false, ...open });
    expect(byId.updatePet.annotations).toEqual({ readOnly: false, destructive: false, idempotent: true, ...open });
    expect(byId.deletePet.annotations).toEqual({ readOnly: false, destructive: true, idempotent: true, ...open });
    expect(tools.every((tool) => tool.policy === "allow")).toBe(true);
    expect((await host.api("GET", "/tools/pets/deletePet")).body).toMatchObject({
      annotations: { destructive: true },
      policy: "allow",
    });
    const docs = await host.api("GET", "/tools/pets/getPetById/docs");
    expect(docs.text).toContain(
      "**Policy: `allow`** — calls run at once. Effect: read-only, reaches an outside service.",
    );
  });
});

describe("policies", () => {
  it("default to allowing everything, and refuse what is not a policy with a 400 naming it", async () => {
    expect((await host.api("GET", "/services/shop/policy")).body).toEqual({
      default: "allow",
      rules: [],
      approvalTimeoutMs: null,
    });
    expect((await host.api("GET", "/services/nope/policy")).status).toBe(404);
    expect((await host.api("PUT", "/services/nope/policy", { default: "deny" })).status).toBe(404);
    for (const [body, names] of [
      [{ rules: [{ tools: "get-item", action: "deny" }] }, "tools"],
      [{ rules: [{ tools: "get(.*)", action: "deny" }] }, "tools"],
      [{ rules: [{ tools: "*", action: "maybe" }] }, "action"],
      [{ rules: [{ tools: "*" }] }, "action"],
      [{ default: "sometimes" }, "default"],
      [{ rules: [{ tools: "*", action: "deny", method: "GET" }] }, "method"],
      [{ default: "deny", extra: 1 }, "extra"],
    ] as const) {
      const response = await host.api("PUT", "/services/shop/policy", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toContain(names);
    }
    expect((await host.api("GET", "/services/shop/policy")).body).toEqual({
      default: "allow",
      rules: [],
      approvalTimeoutMs: null,
    });
  });

  it("decide each tool's policy (first matching rule, else the default), shown on records and docs", async () => {
    const policy = {
      default: "ask",
      rules: [
        { readOnly: true, action: "allow" },
        { tools: "create*", action: "deny" },
        { tools: "refundEverything", action: "deny" },
      ],
      approvalTimeoutMs: null,
    };
    expect(await setPolicy(policy)).toEqual(policy);
    expect((await host.api("GET", "/services/shop/policy")).body).toEqual(policy);
    const tools = (await host.api("GET", "/tools?serviceId=shop")).body.items as Record<string, any>[];
    expect(Object.fromEntries(tools.map((tool) => [tool.id, tool.policy]))).toEqual({
      getItem: "allow",
      createNote: "deny",
      slowThing: "allow",
      broken: "allow",
    });
    expect((await host.api("GET", "/tools/shop/createNote")).body.policy).toBe("deny");
    expect((await host.api("GET", "/tools/shop/createNote/docs")).text).toContain("**Policy: `deny`**");
    await setPolicy({ rules: [] });
  });

  it("stay through updates of the service and go with it when it is deleted", async () => {
    await install("shop2");
    const policy = { default: "deny", rules: [{ tools: "getItem", action: "allow" }], approvalTimeoutMs: 86_400_000 };
    await setPolicy(policy, "shop2");
    const document = shopDocument(shop.url) as { paths: Record<string, unknown> };
    const { "/broken": _gone, ...paths } = document.paths;
    const updated = await host.api("PATCH", "/services/shop2", { definition: JSON.stringify({ ...document, paths }) });
    expect(updated.body).toMatchObject({ updated: true });
    expect((await host.api("GET", "/services/shop2/policy")).body).toEqual(policy);
    expect((await host.api("GET", "/tools/shop2/createNote")).body.policy).toBe("deny");

    expect((await host.api("DELETE", "/services/shop2")).status).toBe(204);
    await install("shop2");
    expect((await host.api("GET", "/services/shop2/policy")).body).toEqual({
      default: "allow",
      rules: [],
      approvalTimeoutMs: null,
    });
    expect((await host.api("GET", "/tools/shop2/createNote")).body.policy).toBe("allow");
    expect((await host.api("DELETE", "/services/shop2")).status).toBe(204);
  });
});

describe("deny", () => {
  it("refuses the call with 403 tool_denied before any request, from unchecked code and from a direct invoke", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "deny" }] });
    const before = notesSent();
    const run = await host.api("POST", "/processes", {
      code: createNoteCatching("denied"),
      block: true,
      typecheck: false,
    });
    expect(run.body.exitState).toBe("success");
    expect(run.body.output.failed).toMatchObject({ status: 403, code: "tool_denied" });
    expect(run.body.output.failed.message).toContain('denies tool "createNote"');

    const direct = await host.api("POST", "/tools/shop/createNote/invoke", { parameters: { body: { text: "x" } } });
    expect(direct.status).toBe(403);
    expect(direct.body.code).toBe("tool_denied");
    expect(notesSent()).toBe(before);
    await setPolicy({ rules: [] });
  });

  it("fails the type check of code that calls a denied tool: nothing runs, not even the calls before it", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "deny" }] });
    try {
      const before = notesSent();
      const code = `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "a" });\n${createNoteCatching("denied")}`;
      const run = await host.api("POST", "/processes", { code, block: true });
      expect(run.body.exitState).toBe("failed");
      expect(run.body.error).toMatch(
        /^Type check failed with 1 type error, so the code did not run:\ncode\.ts:4:\d+ TS2339 Tool 'createNote' of service 'shop' is denied by the service's policy: every call fails with 403 tool_denied/,
      );
      expect((await host.api("GET", `/processes/${run.body.id}/calls`)).body.items).toEqual([]);
      expect(notesSent()).toBe(before);
      // What an agent reads says so before it writes the code.
      const types = (await host.api("GET", "/environment/types?serviceId=shop")).text;
      expect(types).toContain('readonly createNote: CyrnelDeniedTool<"shop", "createNote">');
      expect((await host.api("GET", "/tools/shop/createNote")).body.policy).toBe("deny");
    } finally {
      await setPolicy({ rules: [] });
    }
    // Allowed again, the same code is checked again (not answered from the cache) and runs.
    const code = `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "a" });\n${createNoteCatching("allowed")}`;
    const again = await host.api("POST", "/processes", { code, block: true });
    expect(again.body.exitState, again.body.error).toBe("success");
    expect(again.body.output.note).toBeDefined();
  });
});

describe("ask", () => {
  it("refuses a direct invoke with 403 approval_required, sending nothing", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const before = notesSent();
    const direct = await host.api("POST", "/tools/shop/createNote/invoke", { parameters: { body: { text: "x" } } });
    expect(direct.status).toBe(403);
    expect(direct.body.code).toBe("approval_required");
    expect(notesSent()).toBe(before);
    expect((await host.api("GET", "/approvals?state=pending")).body.items).toEqual([]);
  });

  it("suspends the process until approved; the call then reaches the upstream exactly once", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const before = notesSent();
    const id = await start(createNoteCatching("hello"));
    const approval = await pendingApproval(id);
    expect(approval).toMatchObject({
      processId: id,
      keyId: null,
      serviceId: "shop",
      toolId: "createNote",
      parameters: { body: { text: "hello" } },
      state: "pending",
      decidedAt: null,
      decidedBy: null,
      reason: null,
    });
    const suspended = (await host.api("GET", `/processes/${id}`)).body;
    expect(suspended).toMatchObject({ state: "suspended", pendingApprovalIds: [approval.id] });
    expect((await host.api("GET", "/processes?state=suspended")).body.items.map((p: any) => p.id)).toContain(id);
    expect(notesSent()).toBe(before);

    const approved = await host.api("POST", `/approvals/${approval.id}/approve`, { reason: "looks fine" });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ state: "approved", decidedBy: null, reason: "looks fine" });
    expect(approved.body.decidedAt).toEqual(expect.any(String));
    for (const verb of ["approve", "deny"]) {
      const again = await host.api("POST", `/approvals/${approval.id}/${verb}`, {});
      expect(again.status).toBe(409);
      expect(again.body.error).toContain("already approved");
    }

    const done = await waitIdle(id);
    expect(done).toMatchObject({ exitState: "success", pendingApprovalIds: [] });
    expect((await host.api("GET", `/processes/${id}/output`)).body.note).toMatchObject({ text: "hello" });
    expect(notesSent()).toBe(before + 1);
    expect((await host.api("GET", `/approvals/${approval.id}`)).body.state).toBe("approved");
    // The program's stderr says the call went out because an operator approved it.
    expect((await host.api("GET", `/processes/${id}/stderr`)).text).toBe(
      `[cyrnel] the call to shop.createNote was approved by the bootstrap key (looks fine) (approval ${approval.id}); it is sent\n`,
    );
  });

  it("denied: the call throws 403 approval_denied with the operator's reason, sending nothing", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const before = notesSent();
    const id = await start(createNoteCatching("on a friday"));
    const approval = await pendingApproval(id);
    const denied = await host.api("POST", `/approvals/${approval.id}/deny`, { reason: "not on a Friday" });
    expect(denied.body).toMatchObject({ state: "denied", reason: "not on a Friday" });
    const done = await waitIdle(id);
    expect(done.exitState).toBe("success");
    const { failed } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(failed).toMatchObject({ status: 403, code: "approval_denied" });
    expect(failed.message).toContain("not on a Friday");
    expect(notesSent()).toBe(before);
  });

  it("pauses the process's timeout while it is suspended", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const timeoutMs = 1_500;
    const id = await start(createNoteCatching("patient"), timeoutMs);
    const approval = await pendingApproval(id);
    await sleep(2 * timeoutMs);
    expect((await host.api("GET", `/processes/${id}`)).body.state).toBe("suspended");
    await host.api("POST", `/approvals/${approval.id}/approve`, {});
    const done = await waitIdle(id);
    expect(done.exitState, done.error).toBe("success");
    expect((await host.api("GET", `/processes/${id}/output`)).body.note).toMatchObject({ text: "patient" });
  });

  it("killing a suspended process cancels it and expires its approvals", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const before = notesSent();
    const id = await start(createNoteCatching("never"));
    const approval = await pendingApproval(id);
    const killed = await host.api("POST", `/processes/${id}/signals/kill`);
    expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled", pendingApprovalIds: [] });
    const expired = (await host.api("GET", `/approvals/${approval.id}`)).body;
    expect(expired).toMatchObject({ state: "expired", decidedBy: null, reason: "the process was canceled" });
    expect((await host.api("POST", `/approvals/${approval.id}/approve`, {})).status).toBe(409);
    expect(notesSent()).toBe(before);
  });
});

describe("keys", () => {
  it("approvals and call records name the agent key that ran the code; decidedBy names the deciding key", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const created = async (body: Record<string, unknown>) => {
      const response = await host.api("POST", "/keys", body);
      expect(response.status, response.text).toBe(201);
      return response.body as { id: string; key: string };
    };
    const agent = await created({ name: "governance-agent", role: "agent", services: ["shop"] });
    const operator = await created({ name: "governance-operator", role: "admin" });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });

    const started = await host.api(
      "POST",
      "/processes",
      { code: createNoteCatching("keyed"), typecheck: false },
      as(agent.key),
    );
    expect(started.status, started.text).toBe(201);
    const id = started.body.id as number;
    const approval = await pendingApproval(id);
    expect(approval).toMatchObject({ processId: id, keyId: agent.id });
    // Approvals are the operator's: the agent key that waits for one cannot decide it, nor read the log.
    expect((await host.api("POST", `/approvals/${approval.id}/approve`, {}, as(agent.key))).status).toBe(403);
    expect((await host.api("GET", "/calls", undefined, as(agent.key))).status).toBe(403);
    // It reads what its own calls wait for — parameters and expiry — and nobody else's.
    const mine = await host.api("GET", `/approvals?processId=${id}`, undefined, as(agent.key));
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.items).toEqual([
      expect.objectContaining({
        id: approval.id,
        toolId: "createNote",
        parameters: { body: { text: "keyed" } },
        expiresAt: expect.any(String),
      }),
    ]);
    expect((await host.api("GET", `/approvals/${approval.id}`, undefined, as(agent.key))).status).toBe(200);
    const other = await created({ name: "governance-other", role: "agent", services: ["shop"] });
    expect((await host.api("GET", `/approvals/${approval.id}`, undefined, as(other.key))).status).toBe(404);
    expect((await host.api("GET", `/approvals?processId=${id}`, undefined, as(other.key))).body.items).toEqual([]);
    expect((await host.api("GET", `/approvals?keyId=${agent.id}`, undefined, as(other.key))).body.items).toEqual([]);

    const approved = await host.api("POST", `/approvals/${approval.id}/approve`, {}, as(operator.key));
    expect(approved.body).toMatchObject({ state: "approved", decidedBy: operator.id });
    expect((await waitIdle(id)).exitState).toBe("success");
    // The owner reads its process's calls; the record names its key.
    const calls = await host.api("GET", `/processes/${id}/calls`, undefined, as(agent.key));
    expect(calls.status, calls.text).toBe(200);
    expect(calls.body.items).toEqual([
      expect.objectContaining({ toolId: "createNote", outcome: "ok", keyId: agent.id }),
    ]);
    expect((await host.api("GET", `/calls?keyId=${agent.id}`)).body.items.map((call: any) => call.processId)).toEqual([
      id,
    ]);
  });
});

describe("events", () => {
  it("the process's event stream carries approvals and each ended call, and the end its call counts", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const id = await start(`
      await cyrnel.services.shop.tools.createNote.invoke({ body: { text: "streamed" } });
      await cyrnel.services.shop.tools.getItem.invoke({ id: "a1" });
      await cyrnel.services.shop.tools.getItem.invoke({}).catch(() => undefined);`);
    const approval = await pendingApproval(id);
    // Events are live: a reader that comes while the process is suspended is told about the pending approval first.
    const reader = await followProcess(host, id);
    const [first] = await readEvents(reader, () => true);
    expect(first).toMatchObject({ type: "approval", id: approval.id, state: "pending", toolId: "createNote" });
    await host.api("POST", `/approvals/${approval.id}/approve`, { reason: "ok" });
    const events = await readEvents(reader, (event) => event.type === "end");

    expect(events[0]).toMatchObject({ type: "approval", id: approval.id, state: "approved", reason: "ok" });
    const calls = events.filter((event) => event.type === "call");
    expect(calls.map((call) => [call.toolId, call.outcome])).toEqual([
      ["createNote", "ok"],
      ["getItem", "ok"],
      ["getItem", "validation_failed"],
    ]);
    expect(calls[1]).toMatchObject({ processId: id, keyId: null, serviceId: "shop", parameters: { id: "a1" } });
    expect(events.at(-1)!.process).toMatchObject({
      exitState: "success",
      calls: {
        count: 3,
        failed: 1,
        byTool: { "shop.getItem": { count: 2, failed: 1 }, "shop.createNote": { count: 1, failed: 0 } },
      },
    });
  });
});

describe("call records", () => {
  it("record allowed and refused calls, from code and direct invokes, with filters", async () => {
    await setPolicy({ rules: [{ tools: "broken", action: "deny" }] });
    const run = await host.api("POST", "/processes", {
      block: true,
      typecheck: false,
      code: `
        const outcome = (call: Promise<unknown>) => call.then(() => "ok", (error) => error.code);
        cyrnel.output({
          ok: await outcome(cyrnel.services.shop.tools.getItem.invoke({ id: "b2" })),
          invalid: await outcome(cyrnel.services.shop.tools.getItem.invoke({ id: 7 })),
          missing: await outcome(cyrnel.services.shop.tools.nope.invoke({})),
          noService: await outcome(cyrnel.services.nowhere.tools.nope.invoke({})),
          denied: await outcome(cyrnel.services.shop.tools.broken.invoke({})),
        });`,
    });
    expect(run.body.output).toEqual({
      ok: "ok",
      invalid: "validation_failed",
      missing: "not_found",
      noService: "not_found",
      denied: "tool_denied",
    });
    expect(run.body.calls).toEqual({
      count: 5,
      failed: 4,
      byTool: {
        "shop.getItem": { count: 2, failed: 1 },
        "shop.nope": { count: 1, failed: 1 },
        "nowhere.nope": { count: 1, failed: 1 },
        "shop.broken": { count: 1, failed: 1 },
      },
    });
    await host.api("POST", "/tools/shop/getItem/invoke", { parameters: { id: "direct" } });

    const own = (await host.api("GET", `/processes/${run.body.id}/calls`)).body;
    expect(own.nextCursor).toBeNull();
    expect(own.items.map((call: any) => [call.serviceId, call.toolId, call.outcome, call.status])).toEqual([
      ["shop", "broken", "tool_denied", null],
      ["nowhere", "nope", "not_found", null],
      ["shop", "nope", "not_found", null],
      ["shop", "getItem", "validation_failed", null],
      ["shop", "getItem", "ok", null],
    ]);
    const first = own.items.at(-1);
    expect(first).toMatchObject({ processId: run.body.id, keyId: null, parameters: { id: "b2" } });
    expect(first.durationMs).toEqual(expect.any(Number));
    expect(Date.parse(first.startedAt)).not.toBeNaN();

    const direct = (await host.api("GET", "/calls?serviceId=shop&toolId=getItem&limit=1")).body;
    expect(direct.items[0]).toMatchObject({ processId: null, outcome: "ok", parameters: { id: "direct" } });
    expect(direct.nextCursor).toEqual(expect.any(String));
    const next = (await host.api("GET", `/calls?serviceId=shop&toolId=getItem&limit=1&cursor=${direct.nextCursor}`))
      .body;
    expect(next.items[0].id).toBeLessThan(direct.items[0].id);

    const denied = (await host.api("GET", "/calls?outcome=tool_denied")).body.items;
    expect(denied.length).toBeGreaterThan(0);
    expect(denied.every((call: any) => call.outcome === "tool_denied")).toBe(true);
    expect((await host.api("GET", `/calls?processId=${run.body.id}`)).body.items).toHaveLength(5);
    expect((await host.api("GET", "/calls?since=2999-01-01T00:00:00Z")).body.items).toEqual([]);
    const since = first.startedAt.replace("Z", "+00:00");
    expect((await host.api("GET", `/calls?since=${encodeURIComponent(since)}`)).body.items.length).toBeGreaterThan(5);
    expect((await host.api("GET", "/calls?since=yesterday")).status).toBe(400);
    // A time range: the calls that started before a time, and within a window.
    const later = new Date(Date.parse(first.startedAt) + 1).toISOString();
    const upTo = (await host.api("GET", `/calls?processId=${run.body.id}&until=${encodeURIComponent(later)}`)).body;
    expect(upTo.items.map((call: any) => call.id)).toContain(first.id);
    expect(upTo.items.every((call: any) => Date.parse(call.startedAt) < Date.parse(later))).toBe(true);
    expect(
      (await host.api("GET", `/calls?until=${encodeURIComponent(first.startedAt)}&processId=${run.body.id}`)).body
        .items,
    ).not.toContainEqual(expect.objectContaining({ id: first.id }));
    expect((await host.api("GET", "/calls?until=soon")).status).toBe(400);
    expect((await host.api("GET", "/processes/999999/calls")).status).toBe(404);
    // Every outcome of the suites above is in the record.
    const outcomes = new Set(
      (await host.api("GET", "/calls?serviceId=shop&limit=1000")).body.items.map((call: any) => call.outcome),
    );
    for (const outcome of ["ok", "tool_denied", "approval_required", "approval_denied", "approval_expired"]) {
      expect(outcomes).toContain(outcome);
    }
    await setPolicy({ rules: [] });
  });

  it("cut a large parameter preview to 2048 characters of JSON", async () => {
    await host.api("POST", "/tools/shop/getItem/invoke", { parameters: { id: "x".repeat(10_000) } });
    const [call] = (await host.api("GET", "/calls?toolId=getItem&limit=1")).body.items;
    expect(typeof call.parameters).toBe("string");
    expect(call.parameters).toMatch(/^\{"id":"xxx/);
    expect(call.parameters).toMatch(/… \[cut: [\d,]+ more characters\]$/);
    expect(JSON.stringify(call.parameters).length).toBeLessThanOrEqual(2048);
  });

  it("never hold a secret value: in records, approvals, their answers or the database files", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const id = await start(`
      const secret = ${SHOP_KEY_IN_CODE};
      await cyrnel.services.shop.tools.getItem.invoke({ id: secret, verbose: true });
      await cyrnel.services.shop.tools.getItem.invoke({ id: encodeURIComponent(secret + " ") });
      await cyrnel.services.shop.tools.createNote.invoke({ body: { text: "key: " + secret, tags: [secret] } });`);
    const approval = await pendingApproval(id);
    expect(approval.parameters).toEqual({ body: { text: "key: [redacted]", tags: ["[redacted]"] } });
    await host.api("POST", `/approvals/${approval.id}/approve`, {});
    await waitIdle(id);
    await host.api("POST", "/tools/shop/getItem/invoke", { parameters: { id: SHOP_KEY } });

    const calls = await host.api("GET", `/processes/${id}/calls`);
    expect(calls.body.items.map((call: any) => call.parameters)).toEqual([
      { body: { text: "key: [redacted]", tags: ["[redacted]"] } },
      { id: "[redacted]%20" },
      { id: "[redacted]", verbose: true },
    ]);
    const answers = [
      calls.text,
      (await host.api("GET", "/calls?limit=1000")).text,
      (await host.api("GET", "/approvals?limit=1000")).text,
      (await host.api("GET", `/approvals/${approval.id}`)).text,
    ];
    for (const text of answers) expect(text).not.toContain(SHOP_KEY);
    // The database and its WAL, after the records were flushed (every read flushes).
    for (const file of readdirSync(host.dataDir).filter((name) => name.startsWith("data.db"))) {
      expect(readFileSync(join(host.dataDir, file)).includes(SHOP_KEY), file).toBe(false);
    }
    if (testDialect() === "postgres") expect(await everyRowText(host.dataDir)).not.toContain(SHOP_KEY);
    await setPolicy({ rules: [] });
  });
});

describe("bounded approvals", () => {
  it("list and stream a preview with the whole value's size and SHA-256; GET /approvals/:id has it whole", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const text = "y".repeat(100_000);
    const whole = { body: { text } };
    const wholeJson = JSON.stringify(whole);
    const id = await start(createNoteOf(`"y".repeat(${text.length})`));
    const listed = await pendingApproval(id);

    // The list: a cut preview (a string, at most 2048 characters of JSON), the size and digest of the whole.
    expect(typeof listed.parameters).toBe("string");
    expect(listed.parameters).toMatch(/^\{"body":\{"text":"yyy/);
    expect(listed.parameters).toMatch(/… \[cut: [\d,]+ more characters\]$/);
    expect(JSON.stringify(listed.parameters).length).toBeLessThanOrEqual(2048);
    expect(listed).toMatchObject({ parametersBytes: wholeJson.length, parametersSha256: sha256(wholeJson) });
    const page = await host.api("GET", `/approvals?processId=${id}`);
    expect(page.text.length).toBeLessThan(4096);

    // One approval: the parameters whole, which the digest is of.
    const one = await host.api("GET", `/approvals/${listed.id}`);
    expect(one.status).toBe(200);
    expect(one.body.parameters).toEqual(whole);
    expect(sha256(JSON.stringify(one.body.parameters))).toBe(listed.parametersSha256);
    expect(
      await queryDatabase(host.dataDir, "select parameters_bytes, parameters_sha256 from approvals where id = ?", [
        listed.id,
      ]),
    ).toEqual([{ parameters_bytes: wholeJson.length, parameters_sha256: sha256(wholeJson) }]);

    // The event stream carries the preview too, and so does the decision's answer.
    const reader = await followProcess(host, id);
    const [first] = await readEvents(reader, () => true);
    expect(first).toMatchObject({ type: "approval", id: listed.id, parameters: listed.parameters });
    const approved = await host.api("POST", `/approvals/${listed.id}/approve`, {});
    expect(approved.body).toMatchObject({ state: "approved", parameters: listed.parameters });
    await readEvents(reader, (event) => event.type === "end");

    // The call is made with the parameters whole.
    await waitIdle(id);
    expect((await host.api("GET", `/processes/${id}/output`)).body.note).toMatchObject({ text });
    const sent = shop.requests.filter((request) => request.method === "POST" && request.path === "/notes").at(-1)!;
    expect(JSON.parse(sent.body)).toEqual({ text });
  });

  it("refuse parameters past CYRNEL_BODY_LIMIT_BYTES with 413 payload_too_large, storing and sending nothing", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const before = notesSent();
    const run = await host.api("POST", "/processes", {
      block: true,
      typecheck: false,
      code: createNoteOf(`"z".repeat(${1024 * 1024 + 1})`),
    });
    expect(run.body.output.failed).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(run.body.output.failed.message).toContain("CYRNEL_BODY_LIMIT_BYTES");
    expect((await host.api("GET", `/approvals?processId=${run.body.id}`)).body.items).toEqual([]);
    expect(notesSent()).toBe(before);
  });

  it("cap the pending approvals of a key: past the limit a call fails 429 too_many_pending_approvals", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const agent = await createKey("pending-cap-agent");
    const before = notesSent();
    // One call more than the limit, at once: the count and the insert take turns, so exactly one is refused.
    const id = await startAs(
      agent.key,
      `
      const results = await Promise.all(
        Array.from({ length: ${PENDING_LIMIT + 1} }, (_, i) =>
          cyrnel.services.shop.tools.createNote.invoke({ body: { text: "capped " + i } }).then(
            () => "ok",
            (error) => ({ status: error.status, code: error.code, message: error.message, details: error.details }),
          ),
        ),
      );
      cyrnel.output({ results });`,
    );
    let refused: Record<string, any>[] = [];
    await expect
      .poll(async () => {
        refused = (await host.api("GET", `/calls?processId=${id}&outcome=too_many_pending_approvals`)).body.items;
        return refused.length;
      })
      .toBe(1);
    const pending = (await host.api("GET", `/approvals?state=pending&processId=${id}`)).body.items;
    expect(pending).toHaveLength(PENDING_LIMIT);
    expect(pending.every((approval: any) => approval.keyId === agent.id)).toBe(true);

    // Another key is not held back by this one's.
    const other = await start(createNoteCatching("another key"));
    const othersApproval = await pendingApproval(other);
    await host.api("POST", `/approvals/${othersApproval.id}/deny`, { reason: "not needed" });

    for (const approval of pending) await host.api("POST", `/approvals/${approval.id}/approve`, {});
    expect((await waitIdle(id)).exitState).toBe("success");
    const { results } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(results.filter((result: unknown) => result === "ok")).toHaveLength(PENDING_LIMIT);
    const failure = results.find((result: unknown) => result !== "ok");
    expect(failure).toMatchObject({
      status: 429,
      code: "too_many_pending_approvals",
      details: { pending: PENDING_LIMIT, limit: PENDING_LIMIT, retryAfterSeconds: expect.any(Number) },
    });
    expect(failure.message).toContain("CYRNEL_PENDING_APPROVALS_LIMIT");
    expect(notesSent()).toBe(before + PENDING_LIMIT);
    await waitIdle(other);
  });
});

describe("a revoked key's approvals", () => {
  it("expire when the key is revoked: the call fails approval_expired and nothing is sent", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const agent = await createKey("revoked-while-waiting");
    const before = notesSent();
    const id = await startAs(agent.key, createNoteCatching("after revocation"));
    const approval = await pendingApproval(id);
    expect((await host.api("DELETE", `/keys/${agent.id}`)).status).toBe(204);

    expect((await host.api("GET", `/approvals/${approval.id}`)).body).toMatchObject({
      state: "expired",
      decidedBy: null,
      reason: "the API key that started this process was revoked",
    });
    const late = await host.api("POST", `/approvals/${approval.id}/approve`, {});
    expect([late.status, late.body.code]).toEqual([409, "conflict"]);
    const done = await waitIdle(id);
    expect(done).toMatchObject({ exitState: "success", pendingApprovalIds: [] });
    const { failed } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(failed).toMatchObject({ status: 403, code: "approval_expired" });
    expect(failed.message).toContain("revoked");
    expect(notesSent()).toBe(before);
  });

  it("send nothing once approved if the key expired meanwhile: the key is read again after the decision", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const agent = await createKey("expired-while-waiting");
    const before = notesSent();
    const id = await startAs(agent.key, createNoteCatching("after expiry"));
    const approval = await pendingApproval(id);
    await queryDatabase(host.dataDir, "update api_keys set expires_at = ? where id = ?", [
      new Date(Date.now() - 60_000).toISOString(),
      agent.id,
    ]);
    const approved = await host.api("POST", `/approvals/${approval.id}/approve`, {});
    expect(approved.body.state).toBe("approved");
    expect((await waitIdle(id)).exitState).toBe("success");
    const { failed } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(failed).toMatchObject({ status: 403, code: "forbidden" });
    expect(failed.message).toContain("expired");
    expect(notesSent()).toBe(before);
    const [call] = (await host.api("GET", `/calls?processId=${id}`)).body.items;
    expect(call).toMatchObject({ toolId: "createNote", outcome: "forbidden" });
  });
});

describe("restarts and expiry", () => {
  it("a host that dies with a suspended process keeps the approval; past its time the resumed call expires", async () => {
    await setPolicy({ rules: [{ tools: "createNote", action: "ask" }] });
    const before = notesSent();
    const id = await start(createNoteCatching("lost"));
    const approval = await pendingApproval(id);
    await host.kill();
    host = await startHost({
      ...host.options,
      modules: [],
      dataDir: host.dataDir,
      env: { CYRNEL_API_KEY: API_KEY, CYRNEL_APPROVAL_TIMEOUT_MS: "1500" },
    });
    // The run is durable: it waits for its approval as rows (on PostgreSQL once the dead host's lease ran out), and
    // the approval, past its time, expires by its row; the run resumes from its journal and its call fails.
    const done = await waitIdle(id);
    expect(done).toMatchObject({ exitState: "success", pendingApprovalIds: [] });
    const { failed } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(failed).toMatchObject({ status: 403, code: "approval_expired" });
    expect((await host.api("GET", `/approvals/${approval.id}`)).body).toMatchObject({
      state: "expired",
      reason: "nobody decided within 1500 ms",
    });
    expect(notesSent()).toBe(before);
  });

  it("an approval that expires while the host starts resumes its run once the environment is up", async () => {
    const before = notesSent();
    const id = await start(createNoteCatching("slow start"));
    const approval = await pendingApproval(id);
    // A start whose modules take 5 s before the environment comes up (adapters first, one at a time): the approval
    // expires meanwhile, by its row, and its run must wait for the environment rather than end with none.
    await host.kill();
    installFixtureModule(host.dataDir, "slow-setup");
    const env = { CYRNEL_API_KEY: API_KEY };
    host = await startHost({
      ...host.options,
      modules: [],
      dataDir: host.dataDir,
      env: { ...env, CYRNEL_APPROVAL_TIMEOUT_MS: "600000" },
    });
    expect((await host.api("PATCH", "/modules/slow-setup/config", { delayMs: 5_000 })).status).toBe(200);
    expect((await host.api("POST", "/modules/slow-setup/enabled", { enabled: true })).status).toBe(200);
    await host.kill();
    host = await startHost({
      ...host.options,
      modules: [],
      dataDir: host.dataDir,
      env: { ...env, CYRNEL_APPROVAL_TIMEOUT_MS: "1500" },
    });
    const done = await waitIdle(id);
    expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success", pendingApprovalIds: [] });
    const { failed } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(failed).toMatchObject({ status: 403, code: "approval_expired" });
    expect((await host.api("GET", `/approvals/${approval.id}`)).body).toMatchObject({ state: "expired" });
    expect(notesSent()).toBe(before);
  });

  it("a call nobody decides in CYRNEL_APPROVAL_TIMEOUT_MS throws approval_expired", async () => {
    // The host above runs with CYRNEL_APPROVAL_TIMEOUT_MS=1500; the policy is still ask for createNote.
    const before = notesSent();
    const id = await start(createNoteCatching("too late"));
    const approval = await pendingApproval(id);
    const done = await waitIdle(id);
    expect(done.exitState).toBe("success");
    const { failed } = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(failed).toMatchObject({ status: 403, code: "approval_expired" });
    expect((await host.api("GET", `/approvals/${approval.id}`)).body).toMatchObject({
      state: "expired",
      reason: "nobody decided within 1500 ms",
    });
    expect(notesSent()).toBe(before);
  });
});
