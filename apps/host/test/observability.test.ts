import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { installShop, type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * GET /metrics and GET /stats on the built host, with the typescript-ivm
 * sandbox and the openapi adapter calling a real local API: who may read
 * them, what the counters say after real calls, approvals, a queue timeout
 * and a 429, and the exact counts of the summary. On both dialects (on
 * PostgreSQL every run goes through the durable queue).
 */
const SHOP_KEY = "shop-key-observability-5c2e";
const API_KEY = "observability-admin-key-81f3";
const METRICS_TOKEN = "observability-metrics-token-4a7d9e";

let host: TestHost;
let shop: ShopApi;
let agentKey: string;

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY, CYRNEL_METRICS_TOKEN: METRICS_TOKEN } });
  await installShop(host, shop, SHOP_KEY);
  const key = await host.api("POST", "/keys", { name: "agent", role: "agent" });
  expect(key.status, key.text).toBe(201);
  agentKey = key.body.key;
});
afterAll(async () => {
  await host?.stop();
  await shop?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The scrape, parsed: every sample line (comments skipped). */
async function scrape(): Promise<Sample[]> {
  const response = await host.api("GET", "/metrics", undefined, bearer(METRICS_TOKEN));
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1]!, label[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function sampleSum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v))
    .reduce((sum, sample) => sum + sample.value, 0);
}

async function run(code: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await host.api("POST", "/processes", { code, block: true, typecheck: false, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function startIn(state: "queued" | "running", code: string, timeoutMs: number): Promise<number> {
  const response = await host.api("POST", "/processes", { code, timeoutMs, typecheck: false });
  expect(response.status, response.text).toBe(201);
  const id = response.body.id as number;
  await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe(state);
  return id;
}

async function stats(since?: string): Promise<Record<string, any>> {
  const response = await host.api("GET", `/stats${since === undefined ? "" : `?since=${encodeURIComponent(since)}`}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function patchEnvironmentConfig(patch: Record<string, unknown>): Promise<void> {
  const response = await host.api("PATCH", "/modules/typescript-ivm/config", patch);
  expect(response.status, response.text).toBe(200);
}

describe("GET /metrics", () => {
  it("is read with an admin key or CYRNEL_METRICS_TOKEN: 401 without either, 403 with an agent key", async () => {
    expect((await host.api("GET", "/metrics", undefined, { authorization: "" })).status).toBe(401);
    expect((await host.api("GET", "/metrics", undefined, bearer("not-the-token-at-all"))).status).toBe(401);
    const agent = await host.api("GET", "/metrics", undefined, bearer(agentKey));
    expect(agent.status).toBe(403);
    expect(agent.body.code).toBe("forbidden");
    expect((await host.api("GET", "/metrics", undefined, bearer(METRICS_TOKEN))).status).toBe(200);
    expect((await host.api("GET", "/metrics", undefined, bearer(API_KEY))).status).toBe(200);
    // The token opens /metrics and nothing else.
    expect((await host.api("GET", "/stats", undefined, bearer(METRICS_TOKEN))).status).toBe(401);
    expect((await host.api("GET", "/services", undefined, bearer(METRICS_TOKEN))).status).toBe(401);
    expect((await host.api("GET", "/stats", undefined, bearer(agentKey))).status).toBe(403);
  });

  it("counts tool calls by service, tool and outcome, with their latency, and the runs that ended", async () => {
    const before = await scrape();
    const result = await run(`
      for (const id of ["a", "b", "c"]) await cyrnel.services.shop.tools.getItem.invoke({ id });
      try { await cyrnel.services.shop.tools.broken.invoke({}); } catch (error) { console.log(error.code); }
      cyrnel.output({ done: true });
    `);
    expect(result, JSON.stringify(result)).toMatchObject({ exitState: "success", stdout: "adapter_error\n" });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(delta("cyrnel_tool_calls_total", { service: "shop", tool: "getItem", outcome: "ok" })).toBe(3);
    expect(delta("cyrnel_tool_calls_total", { service: "shop", tool: "broken", outcome: "adapter_error" })).toBe(1);
    expect(delta("cyrnel_tool_call_duration_seconds_count", { service: "shop", outcome: "ok" })).toBe(3);
    expect(delta("cyrnel_tool_call_duration_seconds_count", { service: "shop", outcome: "adapter_error" })).toBe(1);
    expect(delta("cyrnel_processes_ended_total", { exit_state: "success" })).toBe(1);
    // A direct invoke is a call too.
    const direct = await host.api("POST", "/tools/shop/getItem/invoke", { parameters: { id: "d" } });
    expect(direct.status, direct.text).toBe(200);
    expect(
      sampleSum(await scrape(), "cyrnel_tool_calls_total", { service: "shop", tool: "getItem", outcome: "ok" }) -
        sampleSum(before, "cyrnel_tool_calls_total", { service: "shop", tool: "getItem", outcome: "ok" }),
    ).toBe(4);
  });

  it("has answered its own GET /health before it said it listens (no client asked for it)", async () => {
    // The host's first request path is compiled on its own request, not on a client's (server.ts answersItself).
    const samples = await scrape();
    expect(sampleSum(samples, "cyrnel_http_requests_total", { method: "GET", route: "/health" })).toBe(1);
  });

  it("labels HTTP requests by route template and status, never by the raw path; Node's metrics are prefixed", async () => {
    const created = await run("cyrnel.output({ n: 1 });");
    expect((await host.api("GET", `/processes/${created.id}`)).status).toBe(200);
    expect((await host.api("GET", "/processes/999999")).status).toBe(404);
    expect((await host.api("GET", "/no/such/route")).status).toBe(404);
    const samples = await scrape();
    expect(
      sampleSum(samples, "cyrnel_http_requests_total", { method: "GET", route: "/processes/:id", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleSum(samples, "cyrnel_http_requests_total", { method: "GET", route: "/processes/:id", status: "404" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleSum(samples, "cyrnel_http_requests_total", { route: "unmatched", status: "404" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleSum(samples, "cyrnel_http_request_duration_seconds_count", { route: "/processes", status_class: "2xx" }),
    ).toBeGreaterThanOrEqual(1);
    const routes = new Set(samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/\d{3,}|\/no\/such/);
    // No label names a process, a key or a parameter: the host's own metrics have these labels only.
    const own = samples.filter((s) => s.name.startsWith("cyrnel_") && !/^cyrnel_(nodejs|process)_/.test(s.name));
    const names = new Set(own.flatMap((s) => Object.keys(s.labels)));
    const bounded = [
      "service",
      "tool",
      "outcome",
      "exit_state",
      "state",
      "code",
      "method",
      "route",
      "status",
      "status_class",
      "le",
    ];
    expect([...names].filter((name) => !bounded.includes(name))).toEqual([]);
    expect(sampleSum(samples, "cyrnel_process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sampleSum(samples, "cyrnel_nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sampleSum(samples, "cyrnel_sandbox_executions_limit")).toBeGreaterThan(0);
    expect(sampleSum(samples, "cyrnel_sandbox_rss_bytes")).toBeGreaterThan(0);
  });

  it("counts approvals by outcome with their wait, and /stats counts the pending one", async () => {
    expect(
      (
        await host.api("PUT", "/services/shop/policy", {
          default: "allow",
          rules: [{ tools: "createNote", action: "ask" }],
        })
      ).status,
    ).toBe(200);
    try {
      const before = await scrape();
      const started = await host.api("POST", "/processes", {
        code: `await cyrnel.services.shop.tools.createNote.invoke({ body: { text: "hi" } }); cyrnel.output({ ok: true });`,
        typecheck: false,
        timeoutMs: 60_000,
      });
      expect(started.status, started.text).toBe(201);
      let approval: Record<string, any> | undefined;
      await expect
        .poll(async () => {
          approval = (await host.api("GET", `/approvals?state=pending&processId=${started.body.id}`)).body.items[0];
          return approval !== undefined;
        })
        .toBe(true);
      expect((await stats()).approvals.pending).toBe(1);
      expect((await stats()).processes.live.suspended).toBe(1);
      expect(sampleSum(await scrape(), "cyrnel_processes", { state: "suspended" })).toBe(1);
      expect((await host.api("POST", `/approvals/${approval!.id}/approve`, {})).status).toBe(200);
      await expect
        .poll(async () => (await host.api("GET", `/processes/${started.body.id}`)).body.exitState)
        .toBe("success");
      const after = await scrape();
      expect(
        sampleSum(after, "cyrnel_approvals_total", { outcome: "approved" }) -
          sampleSum(before, "cyrnel_approvals_total", { outcome: "approved" }),
      ).toBe(1);
      expect(
        sampleSum(after, "cyrnel_approval_wait_seconds_count", { outcome: "approved" }) -
          sampleSum(before, "cyrnel_approval_wait_seconds_count", { outcome: "approved" }),
      ).toBe(1);
      expect((await stats()).approvals.pending).toBe(0);
    } finally {
      expect((await host.api("PUT", "/services/shop/policy", { default: "allow", rules: [] })).status).toBe(200);
    }
  });
});

describe("GET /stats", () => {
  it("answers exact counts: services, callable tools, live and ended processes with a queue timeout, capacity", async () => {
    // support/shop-api.ts: getItem, createNote, slowThing, broken.
    const toolCount = 4;
    const first = await stats();
    expect(first.services).toEqual({ total: 1, enabled: 1 });
    expect(first.tools).toEqual({ total: toolCount, callable: toolCount });
    expect((await host.api("POST", "/tools/shop/broken/enabled", { enabled: false })).status).toBe(200);
    expect((await stats()).tools).toEqual({ total: toolCount, callable: toolCount - 1 });

    // A window that starts now: only what ends below is counted.
    const since = new Date().toISOString();
    const before = await scrape();
    await run("cyrnel.output({ one: 1 });");
    await run("cyrnel.output({ two: 2 });");
    expect((await run("throw new Error('no');")).exitState).toBe("failed");

    // One execution at a time and one place in the queue: a run that holds the sandbox, one that times out
    // waiting behind it, and a third refused 429 at_capacity while both are there.
    await patchEnvironmentConfig({ maxExecutions: 1, queueSize: 1 });
    try {
      const runner = await startIn("running", "while (true) {}", 120_000);
      const waiting = await startIn("queued", "cyrnel.output({ never: true });", 3_000);
      // On PostgreSQL the run is `queued` from the moment its row is written, before this host takes it from the
      // process queue into its environment's queue: the environment's count follows a moment later.
      await expect.poll(async () => (await stats()).capacity.queued).toBe(1);
      const mid = await stats();
      expect(mid.processes.live).toMatchObject({ running: 1, queued: 1 });
      expect(mid.capacity).toMatchObject({ admitted: false, live: 1, maxLive: 1, queued: 1, maxQueued: 1 });
      if (mid.queue.source === "environment") expect(mid.queue.depth).toBe(1);
      else expect(mid.queue).toEqual({ source: "cluster", depth: 0 });
      const refused = await host.api("POST", "/processes", { code: "1", typecheck: false });
      expect(refused.status, refused.text).toBe(429);
      expect(refused.body.code).toBe("at_capacity");
      await expect.poll(async () => (await host.api("GET", `/processes/${waiting}`)).body.state).toBe("idle");
      expect((await host.api("GET", `/processes/${waiting}`)).body).toMatchObject({
        exitState: "timeout",
        startedAt: null,
      });
      expect((await host.api("POST", `/processes/${runner}/signals/kill`)).body.exitState).toBe("canceled");
    } finally {
      await patchEnvironmentConfig({ maxExecutions: null, queueSize: null });
    }

    const summary = await stats(since);
    expect(summary.since).toBe(since);
    expect(summary.processes.ended).toEqual({ success: 2, failed: 1, timeout: 1, canceled: 1 });
    expect(summary.processes.queueTimeouts).toBe(1);
    expect(summary.processes.live).toEqual({ queued: 0, running: 0, suspended: 0, terminating: 0 });
    expect(summary.approvals.pending).toBe(0);
    expect(summary.capacity).toMatchObject({ admitted: true, live: 0, queued: 0 });
    // The default window (a day) holds these and every earlier run of this file.
    const day = await stats();
    expect(day.processes.ended.success).toBeGreaterThan(2);
    // A window that starts later holds none of them.
    expect((await stats(new Date(Date.now() + 60_000).toISOString())).processes.ended).toEqual({
      success: 0,
      failed: 0,
      timeout: 0,
      canceled: 0,
    });
    expect((await host.api("GET", "/stats?since=yesterday")).status).toBe(400);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(delta("cyrnel_processes_queue_timeouts_total")).toBe(1);
    expect(delta("cyrnel_processes_ended_total", { exit_state: "timeout" })).toBe(1);
    expect(delta("cyrnel_processes_ended_total", { exit_state: "canceled" })).toBe(1);
    expect(delta("cyrnel_http_429_total", { code: "at_capacity" })).toBe(1);
  });
});
