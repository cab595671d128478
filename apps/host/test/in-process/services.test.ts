import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessHost, startInProcess } from "../support/in-process.js";
import { enableRecorder, hookCalls, hooksSince, installRecorded, recorderDefinition } from "../support/recorder.js";

/**
 * The service lifecycle (install, enable, config and secrets, update, delete) through the real `recorder` adapter,
 * whose hook log shows which adapter hooks ran and in which order.
 */
let host: InProcessHost;
let hookLog: string;
let files: Server;
let filesUrl: string;

beforeAll(async () => {
  host = await startInProcess({ modules: ["recorder"] });
  hookLog = await enableRecorder(host);
  // A real HTTP server for installs from a URL.
  files = createServer((req, res) => {
    if (req.url === "/definition.json") return res.end(recorderDefinition([{ id: "fromUrl" }], { name: "From URL" }));
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "/definition.json" });
      return res.end();
    }
    if (req.url === "/loop") {
      res.writeHead(302, { location: "/loop" });
      return res.end();
    }
    res.writeHead(404).end("nope");
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await host?.stop();
  files?.close();
});

describe("install", () => {
  it("installs from an inline definition, disabled, tools enabled, without returning the definition", async () => {
    const before = hookCalls(hookLog).length;
    const body = await installRecorded(host, "alpha", [{ id: "first" }, { id: "second" }]);
    expect(body).toMatchObject({
      id: "alpha",
      name: "Recorded",
      adapter: "recorder",
      source: null,
      version: null,
      enabled: false,
      stale: false,
      toolCount: 2,
      configSchema: { type: "object" },
      secretsSchema: { type: "object" },
    });
    expect(body.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(body).not.toHaveProperty("definition");
    expect(body).not.toHaveProperty("adapterDomain");
    expect(hooksSince(hookLog, before)).toEqual(["generateDefinition"]);
    const tools = await host.api("GET", "/tools?serviceId=alpha");
    expect(tools.body.items.map((tool: any) => [tool.id, tool.enabled, tool.effectivelyEnabled])).toEqual([
      ["first", true, false],
      ["second", true, false],
    ]);
  });

  it("installs from a URL, following redirects", async () => {
    const response = await host.api("POST", "/services", {
      id: "fromUrl",
      adapter: "recorder",
      url: `${filesUrl}/redirect`,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ name: "From URL", toolCount: 1 });
  });

  it("installs and enables in one call", async () => {
    const before = hookCalls(hookLog).length;
    const body = await installRecorded(host, "quick", [{ id: "go" }], { enabled: true });
    expect(body.enabled).toBe(true);
    expect(hooksSince(hookLog, before)).toEqual(["generateDefinition", "hydrateService"]);
  });

  it("stays installed but disabled when enabling fails, and says why", async () => {
    const response = await host.api("POST", "/services", {
      id: "needsSecret",
      adapter: "recorder",
      enabled: true,
      definition: recorderDefinition([{ id: "go" }], {
        secretsSchema: { type: "object", required: ["token"], properties: { token: { type: "string" } } },
      }),
    });
    expect(response.status).toBe(201);
    expect(response.body.enabled).toBe(false);
    expect(response.body.enableError).toMatchObject({ code: "validation_failed" });
    expect(response.body.enableError.error).toContain("token");
  });

  it.each([
    ["a reserved word as id", { id: "class", adapter: "recorder", definition: "{}" }, 400, "bad_request", "class"],
    [
      "an id of 129 characters",
      { id: "s".repeat(129), adapter: "recorder", definition: "{}" },
      400,
      "bad_request",
      "at most 128 characters",
    ],
    [
      "a tool id of 129 characters (an adapter's definition)",
      { id: "longTool", adapter: "recorder", definition: recorderDefinition([{ id: "t".repeat(129) }]) },
      400,
      "bad_request",
      "at most 128 characters",
    ],
    [
      "an id with a dash",
      { id: "my-service", adapter: "recorder", definition: "{}" },
      400,
      "bad_request",
      "my-service",
    ],
    [
      "both definition and url",
      { id: "x1", adapter: "recorder", definition: "{}", url: "http://a" },
      400,
      "bad_request",
      "exactly one",
    ],
    ["neither definition nor url", { id: "x2", adapter: "recorder" }, 400, "bad_request", "exactly one"],
    [
      "an unknown field",
      { id: "x3", adapter: "recorder", definition: "{}", extra: true },
      400,
      "validation_failed",
      "extra",
    ],
    ["a wrong type", { id: "x4", adapter: "recorder", definition: 42 }, 400, "validation_failed", "definition"],
    ["an unknown adapter", { id: "x5", adapter: "nope", definition: "{}" }, 404, "not_found", "nope"],
    ["an existing id", { id: "alpha", adapter: "recorder", definition: "{}" }, 409, "conflict", "alpha"],
    [
      "a definition the adapter rejects",
      { id: "x6", adapter: "recorder", definition: '{"reject":"no thanks"}' },
      400,
      "bad_request",
      "no thanks",
    ],
    ["a definition that is not JSON", { id: "x7", adapter: "recorder", definition: "{{" }, 400, "bad_request", "JSON"],
    [
      "a tool id that is not an identifier",
      { id: "x8", adapter: "recorder", definition: recorderDefinition([{ id: "get-pet" }]) },
      400,
      "bad_request",
      "get-pet",
    ],
    [
      "duplicate tool ids",
      { id: "x9", adapter: "recorder", definition: recorderDefinition([{ id: "a" }, { id: "a" }]) },
      400,
      "bad_request",
      "more than once",
    ],
    ["a non-http URL", { id: "x10", adapter: "recorder", url: "file:///etc/passwd" }, 400, "bad_request", "http"],
  ])("rejects %s", async (_label, body, status, code, mentions) => {
    const response = await host.api("POST", "/services", body);
    expect(response.status, response.text).toBe(status);
    expect(response.body.code).toBe(code);
    expect(response.body.error).toContain(mentions);
    const id = (body as { id: string }).id;
    expect((await host.api("GET", `/services/${id}`)).status).toBe(id === "alpha" ? 200 : 404);
  });

  it("rejects URLs that fail, with the reason", async () => {
    const missing = await host.api("POST", "/services", { id: "y1", adapter: "recorder", url: `${filesUrl}/missing` });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain("HTTP 404");
    const loop = await host.api("POST", "/services", { id: "y2", adapter: "recorder", url: `${filesUrl}/loop` });
    expect(loop.status).toBe(400);
    expect(loop.body.error).toContain("redirects");
    const refused = await host.api("POST", "/services", { id: "y3", adapter: "recorder", url: "http://127.0.0.1:1/x" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("127.0.0.1:1");
  });

  it("refuses installs through a disabled adapter with 409", async () => {
    await host.api("POST", "/modules/recorder/enabled", { enabled: false });
    try {
      const response = await host.api("POST", "/services", { id: "z1", adapter: "recorder", definition: "{}" });
      expect(response.status).toBe(409);
      expect(response.body.error).toContain("disabled");
    } finally {
      await host.api("POST", "/modules/recorder/enabled", { enabled: true });
    }
  });
});

describe("adapter hooks in the order of the lifecycle", () => {
  it("enable → hydrate; config patch → hydrate; update → dehydrate then new tools; disable and delete → dehydrate", async () => {
    await installRecorded(host, "life", [{ id: "keep" }, { id: "drop" }, { id: "off" }]);
    let mark = hookCalls(hookLog).length;

    expect((await host.api("POST", "/services/life/enabled", { enabled: true })).body.enabled).toBe(true);
    expect(hooksSince(hookLog, mark)).toEqual(["hydrateService"]);

    mark = hookCalls(hookLog).length;
    const patched = await host.api("PATCH", "/services/life/config", { region: "eu" });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ config: { region: "eu" } });
    expect(hooksSince(hookLog, mark)).toEqual(["hydrateService"]);
    expect(hookCalls(hookLog).at(-1)?.config).toEqual({ region: "eu" });

    await host.api("POST", "/tools/life/off/enabled", { enabled: false });
    mark = hookCalls(hookLog).length;
    const updated = await host.api("PATCH", "/services/life", {
      definition: recorderDefinition([{ id: "keep" }, { id: "off" }, { id: "added" }], { version: 2 }),
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ id: "life", updated: true, enabled: true });
    expect(hooksSince(hookLog, mark)).toEqual(["generateDefinition", "dehydrateService", "hydrateService"]);
    const tools = await host.api("GET", "/tools?serviceId=life");
    expect(tools.body.items.map((tool: any) => [tool.id, tool.enabled])).toEqual([
      ["keep", true],
      ["off", false],
      ["added", true],
    ]);
    const invoked = await host.api("POST", "/tools/life/keep/invoke", { parameters: {} });
    expect(invoked.body.result.version).toBe(2);

    mark = hookCalls(hookLog).length;
    const same = await host.api("PATCH", "/services/life", {
      definition: recorderDefinition([{ id: "keep" }, { id: "off" }, { id: "added" }], { version: 2 }),
    });
    expect(same.body).toEqual({ id: "life", updated: false, enabled: true });
    expect(hooksSince(hookLog, mark)).toEqual([]);

    mark = hookCalls(hookLog).length;
    expect((await host.api("POST", "/services/life/enabled", { enabled: false })).body.enabled).toBe(false);
    expect(hooksSince(hookLog, mark)).toEqual(["dehydrateService"]);

    mark = hookCalls(hookLog).length;
    expect((await host.api("DELETE", "/services/life")).status).toBe(204);
    expect(hooksSince(hookLog, mark)).toEqual(["dehydrateService"]);
    expect((await host.api("GET", "/services/life")).status).toBe(404);
    expect((await host.api("GET", "/tools?serviceId=life")).body.items).toEqual([]);
  });

  it("rolls enabled back when hydrate throws", async () => {
    await installRecorded(host, "refuses", [{ id: "go" }]);
    await host.api("PATCH", "/services/refuses/config", { failHydrate: true });
    const mark = hookCalls(hookLog).length;
    const response = await host.api("POST", "/services/refuses/enabled", { enabled: true });
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ code: "adapter_error" });
    expect(response.body.error).toContain("failHydrate");
    expect(hooksSince(hookLog, mark)).toEqual(["hydrateService"]);
    expect((await host.api("GET", "/services/refuses")).body.enabled).toBe(false);
  });

  it("restores the previous config when re-hydrating with the new one fails", async () => {
    await installRecorded(host, "restores", [{ id: "go" }], { enabled: true });
    await host.api("PATCH", "/services/restores/config", { region: "us" });
    const mark = hookCalls(hookLog).length;
    const response = await host.api("PATCH", "/services/restores/config", { failHydrate: true });
    expect(response.status).toBe(502);
    expect(hooksSince(hookLog, mark)).toEqual(["hydrateService", "hydrateService"]);
    expect((await host.api("GET", "/services/restores/config")).body).toEqual({ config: { region: "us" } });
    expect((await host.api("GET", "/services/restores")).body.enabled).toBe(true);
  });

  it("leaves the old service untouched when an update is rejected", async () => {
    await installRecorded(host, "steady", [{ id: "one" }], { enabled: true });
    const before = (await host.api("GET", "/services/steady")).body;
    const response = await host.api("PATCH", "/services/steady", { definition: '{"reject":"bad document"}' });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain("bad document");
    expect((await host.api("GET", "/services/steady")).body).toEqual(before);
  });

  it("ends disabled, and says so, when an update breaks hydration", async () => {
    await installRecorded(host, "breaks", [{ id: "one" }], { enabled: true });
    const response = await host.api("PATCH", "/services/breaks", {
      definition: recorderDefinition([{ id: "one" }], {
        configSchema: { type: "object", required: ["endpoint"], properties: { endpoint: { type: "string" } } },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ updated: true, enabled: false, enableError: { code: "validation_failed" } });
    expect((await host.api("GET", "/services/breaks")).body.enabled).toBe(false);
  });
});

describe("config and secrets", () => {
  const secretsSchema = {
    type: "object",
    properties: { token: { type: "string", minLength: 8 }, basic: { type: "object" } },
    required: ["token"],
  };
  const configSchema = {
    type: "object",
    properties: {
      region: { type: "string", enum: ["eu", "us"], default: "eu" },
      retries: { type: "integer", minimum: 0, default: 2 },
      headers: { type: "object", additionalProperties: { type: "string" } },
    },
    additionalProperties: false,
  };

  beforeAll(async () => {
    await installRecorded(host, "configured", [{ id: "go" }, { id: "length", behavior: "secretLength" }], {
      extra: { secretsSchema, configSchema },
    });
  });

  it("applies defaults on read and supports merge patches with null removal", async () => {
    expect((await host.api("GET", "/services/configured/config")).body).toEqual({
      config: { region: "eu", retries: 2 },
    });
    let response = await host.api("PATCH", "/services/configured/config", {
      region: "us",
      headers: { "x-a": "1", "x-b": "2" },
    });
    expect(response.body).toEqual({ config: { region: "us", retries: 2, headers: { "x-a": "1", "x-b": "2" } } });
    response = await host.api("PATCH", "/services/configured/config", { headers: { "x-a": null } });
    expect(response.body.config.headers).toEqual({ "x-b": "2" });
  });

  it("supports RFC 6902 patches", async () => {
    const response = await host.api("PATCH", "/services/configured/config", [
      { op: "replace", path: "/retries", value: 5 },
      { op: "test", path: "/region", value: "us" },
      { op: "remove", path: "/headers" },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ config: { region: "us", retries: 5 } });
  });

  it.each([
    ["a value outside the schema", { region: "mars" }, "region"],
    ["an unknown key", { colour: "red" }, "colour"],
    ["a failing test op", [{ op: "test", path: "/region", value: "eu" }], "test failed"],
    ["a path that does not exist", [{ op: "remove", path: "/nope" }], "/nope"],
    ["an unknown op", [{ op: "frobnicate", path: "/a" }], "frobnicate"],
  ])("rejects %s and stores nothing", async (_label, patch, mentions) => {
    const before = (await host.api("GET", "/services/configured/config")).body;
    const response = await host.api("PATCH", "/services/configured/config", patch);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(mentions);
    expect((await host.api("GET", "/services/configured/config")).body).toEqual(before);
  });

  it("stores secrets write-only and names the set ones", async () => {
    expect((await host.api("GET", "/services/configured/secrets")).body).toEqual({ set: [] });
    const enableEarly = await host.api("POST", "/services/configured/enabled", { enabled: true });
    expect(enableEarly.status).toBe(400);
    expect(enableEarly.body.code).toBe("validation_failed");
    expect(enableEarly.body.error).toContain("token");

    const response = await host.api("PATCH", "/services/configured/secrets", {
      token: "s3cr3t-value-1",
      basic: { user: "u" },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ set: ["basic", "token"] });
    expect(response.text).not.toContain("s3cr3t-value-1");

    const removed = await host.api("PATCH", "/services/configured/secrets", [{ op: "remove", path: "/basic" }]);
    expect(removed.body).toEqual({ set: ["token"] });

    expect((await host.api("POST", "/services/configured/enabled", { enabled: true })).status).toBe(200);
    const length = await host.api("POST", "/tools/configured/length/invoke", { parameters: {} });
    expect(length.body.result).toEqual({ length: "s3cr3t-value-1".length });
  });

  it("refuses secret values that break the schema, a `test` probe, and shows no values in errors", async () => {
    const short = await host.api("PATCH", "/services/configured/secrets", { token: "short" });
    expect(short.status).toBe(400);
    expect(short.text).not.toContain('"short"');
    const probe = await host.api("PATCH", "/services/configured/secrets", [
      { op: "test", path: "/token", value: "s3cr3t-value-1" },
    ]);
    expect(probe.status).toBe(400);
    expect(probe.body.error).toContain("not allowed");
  });
});

describe("listing services", () => {
  beforeAll(async () => {
    for (const [id, name, description] of [
      ["listA", "Météo Überall", "Weather everywhere"],
      ["listB", "Billing", "Invoices and ÜBERWEISUNGEN"],
      ["listC", "Calendar", "Meetings"],
    ]) {
      await installRecorded(host, id!, [{ id: "t" }], { extra: { name, description } });
    }
  });

  it("filters by a case-insensitive (Unicode) substring of id, name or description", async () => {
    const ids = async (query: string) =>
      (await host.api("GET", `/services?query=${encodeURIComponent(query)}`)).body.items.map((s: any) => s.id);
    expect(await ids("überall")).toEqual(["listA"]);
    expect(await ids("ÜBER")).toEqual(["listA", "listB"]);
    expect(await ids("météo")).toEqual(["listA"]);
    expect(await ids("LISTC")).toEqual(["listC"]);
    expect(await ids("no-such-thing")).toEqual([]);
  });

  it("filters by enabled and adapter", async () => {
    const enabled = await host.api("GET", "/services?enabled=true");
    expect(enabled.body.items.length).toBeGreaterThan(0);
    expect(enabled.body.items.every((s: any) => s.enabled)).toBe(true);
    expect((await host.api("GET", "/services?adapter=nothing")).body.items).toEqual([]);
  });

  it("pages with limit and cursor, in id order, without gaps or repeats", async () => {
    const all = (await host.api("GET", "/services?limit=1000")).body.items.map((s: any) => s.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await host.api("GET", `/services?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((s: any) => s.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect([...all].sort()).toEqual(all);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=abc", "limit"],
    ["enabled=maybe", "enabled"],
    ["cursor=%%%", "cursor"],
  ])("rejects %s", async (query, mentions) => {
    const response = await host.api("GET", `/services?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(mentions);
  });
});
