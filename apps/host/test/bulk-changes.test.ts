import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * What an operator does many times at once, end to end over HTTP: switching many tools of a service
 * (`POST /services/{id}/tools/enabled`), and deciding many approvals with one reason (`POST /approvals/decisions`),
 * found with the list's filters. The approvals are real: a process's concurrent calls of an `ask` tool, sent to a
 * real upstream that counts what reaches it.
 */
const SHOP_KEY = "shop-key-bulk-5c2e9a";
const API_KEY = "bulk-api-key-77e1";
const APPROVAL_TIMEOUT_MS = 600_000;

let host: TestHost;
let shop: ShopApi;

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY, CYRNEL_APPROVAL_TIMEOUT_MS: String(APPROVAL_TIMEOUT_MS) } });
  const petstore = readFileSync(
    createRequire(import.meta.url).resolve("@readme/oas-examples/3.0/json/petstore.json"),
    "utf8",
  );
  expect((await host.api("POST", "/services", { id: "pets", adapter: "openapi", definition: petstore })).status).toBe(
    201,
  );
  expect(
    (await host.api("POST", "/services", { id: "shop", adapter: "openapi", definition: shop.definition })).status,
  ).toBe(201);
  expect((await host.api("PATCH", "/services/shop/secrets", { shopKey: SHOP_KEY })).status).toBe(200);
  expect((await host.api("POST", "/services/shop/enabled", { enabled: true })).status).toBe(200);
});
afterAll(async () => {
  await host?.stop();
  await shop?.close();
});

const toolsOf = async (serviceId: string) =>
  (await host.api("GET", `/tools?serviceId=${serviceId}&limit=1000`)).body.items as {
    id: string;
    enabled: boolean;
    annotations: { destructive?: boolean };
  }[];
const disabledIds = async (serviceId: string) =>
  (await toolsOf(serviceId))
    .filter((tool) => !tool.enabled)
    .map((tool) => tool.id)
    .sort();

describe("POST /services/{id}/tools/enabled", () => {
  it("switches every destructive tool, named tools, or all of them, and says how many changed", async () => {
    const tools = await toolsOf("pets");
    const destructive = tools.filter((tool) => tool.annotations.destructive).map((tool) => tool.id);
    expect(destructive.length).toBeGreaterThan(0);
    expect(destructive.length).toBeLessThan(tools.length);

    const off = await host.api("POST", "/services/pets/tools/enabled", { enabled: false, destructive: true });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toEqual({ enabled: false, matched: destructive.length, changed: destructive.length });
    expect(await disabledIds("pets")).toEqual([...destructive].sort());
    // Again: selected, but nothing left to change.
    const again = await host.api("POST", "/services/pets/tools/enabled", { enabled: false, destructive: true });
    expect(again.body).toEqual({ enabled: false, matched: destructive.length, changed: 0 });

    // Named tools, narrowed to the ones not destructive: both must hold.
    const named = ["getPetById", "addPet", destructive[0]!];
    const some = await host.api("POST", "/services/pets/tools/enabled", {
      enabled: false,
      toolIds: named,
      destructive: false,
    });
    expect(some.body).toEqual({ enabled: false, matched: 2, changed: 2 });
    expect(await disabledIds("pets")).toEqual([...destructive, "getPetById", "addPet"].sort());

    const all = await host.api("POST", "/services/pets/tools/enabled", { enabled: true });
    expect(all.body).toEqual({ enabled: true, matched: tools.length, changed: destructive.length + 2 });
    expect(await disabledIds("pets")).toEqual([]);
  });

  it("changes nothing when a named tool does not exist, and refuses what is not a request", async () => {
    const unknown = await host.api("POST", "/services/pets/tools/enabled", {
      enabled: false,
      toolIds: ["getPetById", "noSuchTool"],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    expect(unknown.body.error).toContain("noSuchTool");
    expect(await disabledIds("pets")).toEqual([]);

    expect((await host.api("POST", "/services/nothing/tools/enabled", { enabled: false })).status).toBe(404);
    for (const body of [{}, { enabled: "no" }, { enabled: false, toolIds: [] }, { enabled: false, extra: 1 }]) {
      const refused = await host.api("POST", "/services/pets/tools/enabled", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect(await disabledIds("pets")).toEqual([]);
  });

  it("is an admin's: an agent key is refused", async () => {
    const agent = await host.api("POST", "/keys", { name: "bulk agent", role: "agent" });
    const refused = await host.api(
      "POST",
      "/services/pets/tools/enabled",
      { enabled: false },
      { authorization: `Bearer ${agent.body.key}` },
    );
    expect(refused.status).toBe(403);
    expect(await disabledIds("pets")).toEqual([]);
  });
});

describe("approvals in bulk", () => {
  const notesSent = () =>
    shop.requests.filter((request) => request.method === "POST" && request.path === "/notes").length;

  it("are found by service, tool and key, each with its expiry and its tool's annotations", async () => {
    expect(
      (await host.api("PUT", "/services/shop/policy", { rules: [{ tools: "createNote", action: "ask" }] })).status,
    ).toBe(200);
    const before = notesSent();
    // Five calls at once: five approvals pending together.
    const started = await host.api("POST", "/processes", {
      typecheck: false,
      timeoutMs: 60_000,
      code: `const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((n) =>
        cyrnel.services.shop.tools.createNote.invoke({ body: { text: "note " + n } })));
      cyrnel.output({ settled: settled.map((one) => one.status === "fulfilled" ? "created" : (one.reason as Error).message) });`,
    });
    expect(started.status, started.text).toBe(201);
    const processId = started.body.id as number;
    const pendingOf = async (query: string) =>
      (await host.api("GET", `/approvals?state=pending&processId=${processId}${query}`)).body.items as Record<
        string,
        any
      >[];
    await expect.poll(async () => (await pendingOf("")).length).toBe(5);

    const pending = await pendingOf("&serviceId=shop&toolId=createNote&keyId=bootstrap");
    expect(pending).toHaveLength(5);
    for (const approval of pending) {
      expect(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)).toBe(APPROVAL_TIMEOUT_MS);
      expect(approval.toolAnnotations).toMatchObject({ readOnly: false, destructive: false });
    }
    expect(await pendingOf("&toolId=getItem")).toEqual([]);
    expect(await pendingOf("&serviceId=pets")).toEqual([]);
    expect(await pendingOf("&keyId=some-other-key")).toEqual([]);

    // One is denied alone first; then the bulk approval names it, the other four, and one that does not exist.
    const [lone, ...rest] = pending.map((approval) => approval.id as number);
    expect((await host.api("POST", `/approvals/${lone}/deny`, { reason: "not this one" })).status).toBe(200);
    const approveIds = rest.slice(0, 3);
    const bulk = await host.api("POST", "/approvals/decisions", {
      ids: [...approveIds, lone, 2_000_000_000],
      decision: "approve",
      reason: "  checked together  ",
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.decided).toBe(3);
    expect(bulk.body.results.map((result: any) => [result.id, result.approval?.state ?? result.error.code])).toEqual([
      ...approveIds.map((id) => [id, "approved"]),
      [lone, "conflict"],
      [2_000_000_000, "not_found"],
    ]);
    for (const result of bulk.body.results.slice(0, 3)) {
      expect(result.approval).toMatchObject({ state: "approved", reason: "checked together", decidedBy: null });
    }

    const last = rest[3]!;
    const denied = await host.api("POST", "/approvals/decisions", {
      ids: [last, last],
      decision: "deny",
      reason: "enough",
    });
    expect(denied.body).toMatchObject({
      decided: 1,
      results: [{ id: last, approval: { state: "denied" }, error: null }],
    });

    await expect.poll(async () => (await host.api("GET", `/processes/${processId}`)).body.state).toBe("idle");
    const ended = (await host.api("GET", `/processes/${processId}`)).body;
    expect(ended.exitState, JSON.stringify(ended.error)).toBe("success");
    const output = (await host.api("GET", `/processes/${processId}/output`)).body.settled as string[];
    expect(Array.isArray(output), JSON.stringify(output)).toBe(true);
    expect(output.filter((line) => line === "created")).toHaveLength(3);
    expect(output.filter((line) => line.includes("not this one"))).toHaveLength(1);
    expect(output.filter((line) => line.includes("enough"))).toHaveLength(1);
    expect(notesSent()).toBe(before + 3);
    // Each decision is on record exactly as the single route leaves it.
    const decided = (await host.api("GET", `/approvals?processId=${processId}`)).body.items as Record<string, any>[];
    expect(decided.map((approval) => [approval.state, approval.reason, approval.expiresAt]).sort()).toEqual(
      [
        ["approved", "checked together", null],
        ["approved", "checked together", null],
        ["approved", "checked together", null],
        ["denied", "enough", null],
        ["denied", "not this one", null],
      ].sort(),
    );
  });

  it("refuses what is not a bulk decision", async () => {
    for (const body of [
      { ids: [], decision: "approve" },
      { ids: [1], decision: "maybe" },
      { ids: [0], decision: "deny" },
      { ids: Array.from({ length: 1001 }, (_, i) => i + 1), decision: "deny" },
      { ids: [1], decision: "deny", reason: "x".repeat(2001) },
    ]) {
      const refused = await host.api("POST", "/approvals/decisions", body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
  });
});
