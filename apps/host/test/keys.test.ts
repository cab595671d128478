import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, restart, startHost, type TestHost } from "./support/host.js";
import { type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * Agent keys against the built host: the bundled openapi adapter calling a
 * real upstream (support/shop-api.ts) with a stored secret, the bundled
 * TypeScript sandbox running code, MCP over Streamable HTTP. The same shop
 * is installed twice, as `shop` and `vault`; one agent key may reach `shop`
 * only, another every service.
 */
const API_KEY = "keys-suite-bootstrap-key";
const SHOP_KEY = "shop-key-for-keys-suite";

let host: TestHost;
let shop: ShopApi;
/** Where an agent would like the host to send the shop's secret. */
let attacker: { url: string; requests: string[]; server: Server };
let scoped: { id: string; key: string };
let unscoped: { id: string; key: string };

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const as = (key: string, method: string, path: string, body?: unknown) => host.api(method, path, body, bearer(key));

async function createKey(body: Record<string, unknown>) {
  const response = await host.api("POST", "/keys", body);
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string; key: string };
}

async function install(id: string) {
  const installed = await host.api("POST", "/services", { id, adapter: "openapi", definition: shop.definition });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("PATCH", `/services/${id}/secrets`, { shopKey: SHOP_KEY })).status).toBe(200);
  expect((await host.api("POST", `/services/${id}/enabled`, { enabled: true })).status).toBe(200);
}

/** Runs code as `key` and waits for its results (unchecked: the cases call services that do not type-check). */
async function run(key: string, code: string) {
  const response = await as(key, "POST", "/processes", { code, block: true, typecheck: false });
  expect(response.status, response.text).toBe(201);
  expect(response.body.exitState, response.body.error ?? "").toBe("success");
  return response.body;
}

/** The answer for `missing` (a service that does not exist), with its id swapped for `hidden`'s. */
const asIfMissing = (answer: ApiResponse, missing: string, hidden: string) =>
  JSON.parse(JSON.stringify(answer.body).replaceAll(missing, hidden));

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  attacker = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY } });
  await install("shop");
  await install("vault");
  scoped = await createKey({ name: "shop agent", role: "agent", services: ["shop"] });
  unscoped = await createKey({ name: "any agent", role: "agent" });
});
afterAll(async () => {
  await host?.stop();
  await shop?.close();
  attacker?.server.close();
});

describe("an agent key cannot administer the host", () => {
  it.each([
    ["PATCH", "/services/shop/config", { baseUrl: "http://attacker.invalid" }],
    ["GET", "/services/shop/config", undefined],
    ["PATCH", "/services/shop/secrets", { shopKey: "mine" }],
    ["GET", "/services/shop/secrets", undefined],
    ["POST", "/services/shop/enabled", { enabled: false }],
    ["POST", "/tools/shop/broken/enabled", { enabled: true }],
    ["POST", "/services", { id: "mine", adapter: "openapi", definition: "{}" }],
    ["DELETE", "/services/shop", undefined],
    ["POST", "/modules/openapi/enabled", { enabled: false }],
    ["POST", "/registries", { url: "http://127.0.0.1:1" }],
    ["POST", "/keys", { name: "escalate", role: "admin" }],
    ["GET", "/keys", undefined],
  ])("%s %s → 403 forbidden", async (method, path, body) => {
    const response = await as(unscoped.key, method, path, body);
    expect([response.status, response.body.code]).toEqual([403, "forbidden"]);
  });

  it("cannot point a service at another host: the stored secret still goes to the real upstream only", async () => {
    const moved = await as(unscoped.key, "PATCH", "/services/shop/config", { baseUrl: attacker.url });
    expect(moved.status).toBe(403);
    expect((await host.api("GET", "/services/shop/config")).body.config.baseUrl).toBe(shop.url);
    const before = shop.requests.length;
    const invoked = await as(unscoped.key, "POST", "/tools/shop/getItem/invoke", { parameters: { id: "1" } });
    expect(invoked.status, invoked.text).toBe(200);
    expect(shop.requests.slice(before).map((r) => r.headers["x-shop-key"])).toEqual([SHOP_KEY]);
    expect(attacker.requests).toEqual([]);
  });

  it("cannot switch on a tool the operator switched off, nor revoke its own key", async () => {
    expect((await host.api("POST", "/tools/shop/broken/enabled", { enabled: false })).status).toBe(200);
    expect((await as(unscoped.key, "POST", "/tools/shop/broken/enabled", { enabled: true })).status).toBe(403);
    const invoked = await as(unscoped.key, "POST", "/tools/shop/broken/invoke", {});
    expect([invoked.status, invoked.body.code]).toEqual([409, "tool_disabled"]);
    expect((await as(unscoped.key, "DELETE", `/keys/${unscoped.id}`)).status).toBe(403);
    expect((await as(unscoped.key, "GET", "/services")).status).toBe(200);
  });
});

describe("a key's service allow-list", () => {
  it("hides other services from the service list and details, as if they did not exist", async () => {
    expect((await as(scoped.key, "GET", "/services")).body.items.map((s: any) => s.id)).toEqual(["shop"]);
    expect((await as(unscoped.key, "GET", "/services")).body.items.map((s: any) => s.id)).toEqual(["shop", "vault"]);
    const hidden = await as(scoped.key, "GET", "/services/vault");
    const missing = await as(scoped.key, "GET", "/services/nothere");
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(asIfMissing(missing, "nothere", "vault"));
    expect((await as(scoped.key, "GET", "/services/shop")).status).toBe(200);
  });

  it("never suggests a hidden service for a misspelt id", async () => {
    expect((await as(unscoped.key, "GET", "/services/vaul")).body.error).toContain("did you mean `vault`?");
    for (const path of ["/services/vaul", "/tools/vaul/getItem", "/environment/types?serviceId=vaul"]) {
      const answer = await as(scoped.key, "GET", path);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body.error).not.toContain("vault");
    }
    const invoked = await as(scoped.key, "POST", "/tools/vaul/getItem/invoke", { parameters: { id: "1" } });
    expect(invoked.status).toBe(404);
    expect(invoked.body.error).not.toContain("vault");
  });

  it("hides their tools from lists, details and docs", async () => {
    const tools = (await as(scoped.key, "GET", "/tools?limit=1000")).body.items;
    expect(new Set(tools.map((t: any) => t.serviceId))).toEqual(new Set(["shop"]));
    expect((await as(scoped.key, "GET", "/tools?serviceId=vault")).body.items).toEqual([]);
    expect((await as(scoped.key, "GET", "/tools?query=item")).body.items.map((t: any) => t.serviceId)).toEqual([
      "shop",
    ]);
    const ranked = async (key: string) =>
      (await as(key, "GET", "/tools?search=fetch%20item")).body.items.map((t: any) => `${t.serviceId}.${t.id}`);
    // "fetch" also finds get and list tools (db/search-query.ts): the scoped key sees only shop's, getItem first.
    const scopedFound = await ranked(scoped.key);
    expect(scopedFound[0]).toBe("shop.getItem");
    expect(scopedFound.filter((tool: string) => !tool.startsWith("shop."))).toEqual([]);
    expect((await ranked(unscoped.key)).slice(0, 2).sort()).toEqual(["shop.getItem", "vault.getItem"]);
    for (const suffix of ["", "/docs"]) {
      const hidden = await as(scoped.key, "GET", `/tools/vault/getItem${suffix}`);
      const missing = await as(scoped.key, "GET", `/tools/nothere/getItem${suffix}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual(asIfMissing(missing, "nothere", "vault"));
      expect((await as(scoped.key, "GET", `/tools/shop/getItem${suffix}`)).status).toBe(200);
    }
  });

  it("hides them from the types, whole or filtered", async () => {
    const types = (await as(scoped.key, "GET", "/environment/types")).text;
    expect(types).toContain("readonly shop:");
    expect(types).not.toContain("vault");
    expect((await as(unscoped.key, "GET", "/environment/types")).text).toContain("readonly vault:");
    for (const query of ["serviceId=vault", "tool=vault/getItem"]) {
      const hidden = await as(scoped.key, "GET", `/environment/types?${query}`);
      const missing = await as(scoped.key, "GET", `/environment/types?${query.replace("vault", "nothere")}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual(asIfMissing(missing, "nothere", "vault"));
    }
  });

  it("refuses a direct call to them as to a service that does not exist, with no upstream request", async () => {
    const before = shop.requests.length;
    const hidden = await as(scoped.key, "POST", "/tools/vault/getItem/invoke", { parameters: { id: "1" } });
    const missing = await as(scoped.key, "POST", "/tools/nothere/getItem/invoke", { parameters: { id: "1" } });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(asIfMissing(missing, "nothere", "vault"));
    expect(shop.requests.length).toBe(before);
  });

  it("applies inside its processes: other services are absent from cyrnel.services and calling one is a 404", async () => {
    const before = shop.requests.length;
    const program = `
      const attempt = async (call: () => Promise<unknown>) => {
        try { return { ok: await call() }; } catch (error: any) { return { status: error.status, code: error.code, message: error.message }; }
      };
      cyrnel.output({
        services: Object.keys(cyrnel.services),
        shop: await attempt(() => cyrnel.services.shop.tools.getItem.invoke({ id: "7" })),
        vault: await attempt(() => cyrnel.services.vault.tools.getItem.invoke({ id: "7" })),
        nothere: await attempt(() => cyrnel.services.nothere.tools.getItem.invoke({ id: "7" })),
        misspelt: await attempt(() => cyrnel.services.vaul.tools.getItem.invoke({ id: "7" })),
      });`;
    const scopedRun = await run(scoped.key, program);
    expect(scopedRun.output.services).toEqual(["shop"]);
    expect(scopedRun.output.shop).toEqual({ ok: { id: "7", name: "Item 7", verbose: false } });
    expect(scopedRun.output.vault).toMatchObject({ status: 404, code: "not_found" });
    expect(scopedRun.output.vault.message).toBe(scopedRun.output.nothere.message.replace("nothere", "vault"));
    expect(scopedRun.output.misspelt.message).not.toContain("vault");
    expect(shop.requests.length).toBe(before + 1);

    // Checked before it runs, the program is checked against the types of the allowed services only.
    const checked = await as(scoped.key, "POST", "/processes", {
      code: "await cyrnel.services.vault.tools.getItem.invoke({ id: '7' });",
      block: true,
    });
    expect(checked.body).toMatchObject({ exitState: "failed", error: expect.stringContaining("vault") });
    expect(shop.requests.length).toBe(before + 1);
    const allowed = await as(unscoped.key, "POST", "/processes", {
      code: "await cyrnel.services.vault.tools.getItem.invoke({ id: '7' });",
      block: true,
    });
    expect(allowed.body).toMatchObject({ exitState: "success" });

    const unscopedRun = await run(unscoped.key, program);
    expect(unscopedRun.output.services).toEqual(["shop", "vault"]);
    expect(unscopedRun.output.vault).toEqual({ ok: { id: "7", name: "Item 7", verbose: false } });
  });

  it("applies to the MCP tools, which answer with the caller's key", async () => {
    const client = new Client({ name: "keys-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { requestInit: { headers: bearer(scoped.key) } }),
    );
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = (result: CallToolResult) => result.content.map((p) => (p.type === "text" ? p.text : "")).join("");

      const services = await call("list_services");
      expect((services.structuredContent as any).services.map((s: any) => s.id)).toEqual(["shop"]);
      const found = await call("search_tools", { query: "item" });
      expect((found.structuredContent as any).tools.map((t: any) => t.serviceId)).toEqual(["shop"]);
      const scopedSearch = await call("search_tools", { query: "item", serviceId: "vault" });
      expect(scopedSearch.isError).toBe(true);
      expect(text(scopedSearch)).toContain("not_found");
      const docs = await call("get_tool_docs", { serviceId: "vault", toolId: "getItem" });
      expect(docs.isError).toBe(true);
      expect(text(docs)).toContain("not_found");
      const types = text(await call("get_types"));
      expect(types).toContain("readonly shop:");
      expect(types).not.toContain("vault");
      const ran = await call("run_code", { code: "cyrnel.output({ services: Object.keys(cyrnel.services) });" });
      expect((ran.structuredContent as any).output).toEqual({ services: ["shop"] });
    } finally {
      await client.close();
    }
  });
});

describe("revoking a key", () => {
  it("refuses its next request, and the next tool call of a process it started", async () => {
    const doomed = await createKey({ name: "doomed", role: "agent", services: ["shop"] });
    const before = shop.requests.length;
    // Calls the shop until a call is refused, then reports how.
    const created = await as(doomed.key, "POST", "/processes", {
      timeoutMs: 60_000,
      code: `
        for (let calls = 0; ; calls++) {
          try {
            await cyrnel.services.shop.tools.getItem.invoke({ id: String(calls) });
          } catch (error: any) {
            cyrnel.output({ calls, status: error.status, code: error.code, message: error.message });
            break;
          }
        }`,
    });
    expect(created.status, created.text).toBe(201);
    await expect.poll(() => shop.requests.length - before).toBeGreaterThan(0);

    expect((await host.api("DELETE", `/keys/${doomed.id}`)).status).toBe(204);
    const refused = await as(doomed.key, "GET", "/services");
    expect([refused.status, refused.body.code]).toEqual([401, "unauthorized"]);

    await expect.poll(async () => (await host.api("GET", `/processes/${created.body.id}`)).body.state).toBe("idle");
    const output = (await host.api("GET", `/processes/${created.body.id}/output`)).body;
    expect(output).toMatchObject({ status: 403, code: "forbidden", message: expect.stringContaining("revoked") });
    expect(output.calls).toBeGreaterThan(0);
    // Once refused, no further request reached the shop.
    expect(shop.requests.length - before).toBe(output.calls);
  });
});

describe("listening beyond loopback", () => {
  const wide = { CYRNEL_HOST: "0.0.0.0" };

  it("refuses to start without authentication, naming CYRNEL_API_KEY", async () => {
    const refused = await startHost({ env: wide, expectListening: false });
    expect(await refused.waitForExit()).toBe(1);
    expect(refused.output.join("\n")).toContain("cyrnel: could not start: CYRNEL_API_KEY: not set");
    expect(refused.output.join("\n")).toContain("CYRNEL_ALLOW_ANONYMOUS=1");
  });

  it("starts without authentication when CYRNEL_ALLOW_ANONYMOUS=1", async () => {
    const open = await startHost({ env: { ...wide, CYRNEL_ALLOW_ANONYMOUS: "1" } });
    try {
      expect((await open.api("GET", "/services")).status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it("starts when keys are stored, and then requires one", async () => {
    const local = await startHost();
    const admin = await local.api("POST", "/keys", { name: "operator", role: "admin" });
    expect(admin.status, admin.text).toBe(201);
    const exposed = await restart(local, { env: wide });
    try {
      expect((await exposed.api("GET", "/services")).status).toBe(401);
      expect((await exposed.api("GET", "/services", undefined, bearer(admin.body.key))).status).toBe(200);
    } finally {
      await exposed.stop();
    }
  });
});
