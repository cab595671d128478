import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryDatabase, testDialect } from "./support/database.js";
import { startHost, type TestHost } from "./support/host.js";
import { installShop, type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * Execution at agent scale, end to end: many processes at once that spend
 * their time awaiting a tool call (the shop API's `/slow`, answered only
 * once all of them are in flight, so overlap is counted, not timed), hostile
 * ones among them, and the environment's capacity answered with
 * `429 at_capacity` past its configured caps.
 */
const SHOP_KEY = "shop-key-agent-scale";

interface ProcessResult {
  id: number;
  state: string;
  exitState: string | null;
  error: string | null;
  output: Record<string, any>;
}

let host: TestHost;
let shop: ShopApi;

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  // 300 calls of one key in flight at once: past the default per-key cap (256).
  host = await startHost({ env: { CYRNEL_LOG_LEVEL: "info", CYRNEL_KEY_INFLIGHT_CALLS: "1000" } });
  await installShop(host, shop, SHOP_KEY);
  // Small heaps: the memory bomb below ends quickly.
  expect((await patchEnvironmentConfig({ memoryLimitMb: 32 })).memoryLimitMb).toBe(32);
});
afterAll(async () => {
  await host?.stop();
  await shop?.close();
});

async function patchEnvironmentConfig(patch: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await host.api("PATCH", "/modules/typescript-ivm/config", patch);
  expect(response.status, response.text).toBe(200);
  return response.body.config;
}

async function submit(code: string, extra: Record<string, unknown> = {}) {
  return host.api<ProcessResult>("POST", "/processes", { code, ...extra });
}

async function run(code: string, extra: Record<string, unknown> = {}): Promise<ProcessResult> {
  const response = await submit(code, { block: true, timeoutMs: 60_000, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function waitForState(id: number, state: string): Promise<void> {
  await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe(state);
}

/** A process that awaits one `/slow` call and then reads one item; outputs both with its index. */
const waiting = (i: number, ms: number) => `
  const slow = await cyrnel.services.shop.tools.slowThing.invoke({ ms: ${ms} });
  const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "p${i}" });
  cyrnel.output({ i: ${i}, waited: slow.waited, name: item.name });
`;

async function processCount(): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: { body: { items: unknown[]; nextCursor: string | null } } = await host.api(
      "GET",
      `/processes?limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
    );
    count += page.body.items.length;
    cursor = page.body.nextCursor;
  } while (cursor);
  return count;
}

describe("many processes awaiting tool calls at once", () => {
  it("runs 300 concurrent processes with tool calls, all in flight together, each with its own output", async () => {
    // Answered only once all 300 calls are in flight at the upstream (or after 20 s each).
    shop.gatherSlow(20_000, 300);
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => run(waiting(i, 20_000))));
    expect(results.map((result) => [result.exitState, result.error])).toEqual(Array(300).fill(["success", null]));
    expect(results.map((result) => result.output)).toEqual(
      Array.from({ length: 300 }, (_, i) => ({ i, waited: 20_000, name: `Item p${i}` })),
    );
    expect(shop.slowPeak.get(20_000)).toBe(300);
  }, 180_000);

  it("among 50 waiting processes, a memory bomb, a busy loop and a killed process fail alone", async () => {
    shop.gatherSlow(15_000, 47);
    const waiters = Array.from({ length: 47 }, (_, i) => run(waiting(i, 15_000)));
    // Map growth: the bomb V8 cannot turn into a memory-limit error, so its isolate is lost for good and its sandbox
    // process is replaced — the processes waiting in that process still finish there.
    const bomb = run("const map = new Map();\nfor (let i = 0; ; i++) map.set(i, { i, text: 'x' + i });");
    const loop = run("while (true) {}", { timeoutMs: 2_000 });
    const victim = await submit("cyrnel.output({ started: true });\nawait new Promise(() => {});", {
      timeoutMs: 60_000,
    });
    expect(victim.status, victim.text).toBe(201);
    await waitForState(victim.body.id, "running");
    const killed = await host.api("POST", `/processes/${victim.body.id}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);

    expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled" });
    const bombed = await bomb;
    expect(bombed.exitState).toBe("failed");
    expect(bombed.error).toMatch(/^Memory limit exceeded: the code used more than the 32 MB heap limit/);
    expect(await loop).toMatchObject({
      exitState: "timeout",
      error:
        "Timed out after 2000 ms while the code was running without awaiting anything (a loop, or a long computation)",
    });
    const results = await Promise.all(waiters);
    expect(results.map((result) => [result.exitState, result.error])).toEqual(Array(47).fill(["success", null]));
    expect(results.map((result) => result.output.i)).toEqual(Array.from({ length: 47 }, (_, i) => i));
    expect(shop.slowPeak.get(15_000)).toBe(47);
    expect((await host.api("GET", "/health")).body).toMatchObject({ status: "ok" });
  }, 180_000);
});

describe("capacity", () => {
  it("answers 429 at_capacity with Retry-After past maxExecutions + queueSize, records nothing, loses nothing", async () => {
    expect(await patchEnvironmentConfig({ maxExecutions: 2, queueSize: 1 })).toMatchObject({
      maxExecutions: 2,
      queueSize: 1,
    });
    const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
    try {
      const earlier = await run("cyrnel.output({ earlier: true });");
      expect(earlier.exitState).toBe("success");
      const earlierRecord = (await host.api("GET", `/processes/${earlier.id}`)).body;
      // Two in the sandbox, held at the upstream until a third /slow call arrives; one in the queue behind them.
      shop.gatherSlow(30_000, 3);
      const held = await Promise.all([submit(waiting(1, 30_000)), submit(waiting(2, 30_000))]);
      for (const response of held) {
        expect(response.status, response.text).toBe(201);
        await waitForState(response.body.id, "running");
      }
      await expect.poll(() => shop.slowInFlight.get(30_000)).toBe(2);
      const queued = await submit("cyrnel.output({ queued: true });");
      expect(queued.status, queued.text).toBe(201);
      expect(queued.body.state).toBe("queued");
      // On PostgreSQL a run goes through the process queue first: the host takes it into its environment (whose
      // queue it then fills) once it claimed it.
      if (testDialect() === "postgres") {
        await expect
          .poll(
            async () =>
              (
                await queryDatabase<{ claimed_by: string | null }>(
                  host.dataDir,
                  "select claimed_by from executions where process_id = ?",
                  [queued.body.id],
                )
              )[0]?.claimed_by ?? null,
          )
          .not.toBeNull();
      }
      const recorded = await processCount();

      const refusals = [
        await submit("cyrnel.output({ refused: true });"),
        await submit("cyrnel.output({ refused: true });", { block: true }),
        await host.api("POST", `/processes/${earlier.id}/signals/run`, { force: true }),
      ];
      for (const refused of refusals) {
        expect(refused.status, refused.text).toBe(429);
        expect(refused.body).toMatchObject({ code: "at_capacity" });
        expect(refused.body.error).toMatch(
          /^typescript-ivm is at capacity: 2 executions in the sandbox and 1 waiting in the queue; nothing was run, submit again in \d+ s$/,
        );
        expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
        expect(refused.body.details).toEqual({ retryAfterSeconds: Number(refused.headers.get("retry-after")) });
      }
      await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`)));
      const mcp = (await client.callTool({
        name: "run_code",
        arguments: { code: "cyrnel.output({ refused: true });" },
      })) as CallToolResult;
      expect(mcp.isError).toBe(true);
      expect(mcp.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("(code: at_capacity)") });
      // Refused: no process was recorded, and the earlier one kept its results.
      expect(await processCount()).toBe(recorded);
      expect((await host.api("GET", `/processes/${earlier.id}`)).body).toEqual(earlierRecord);

      // The third call releases the two held ones; the queued one runs after them.
      const release = await fetch(`${shop.url}/slow?ms=30000`, { headers: { "x-shop-key": SHOP_KEY } });
      expect(release.status).toBe(200);
      const ends = await Promise.all(
        [...held.map((response) => response.body.id), queued.body.id].map(async (id) => {
          await waitForState(id, "idle");
          return (await host.api("GET", `/processes/${id}`)).body;
        }),
      );
      expect(ends.map((end) => [end.exitState, end.error])).toEqual(Array(3).fill(["success", null]));
      expect((await host.api("GET", `/processes/${queued.body.id}/output`)).body).toEqual({ queued: true });
      // Submitted again, the refused program runs.
      expect((await run("cyrnel.output({ refused: false });")).output).toEqual({ refused: false });
    } finally {
      await client.close();
      await patchEnvironmentConfig({ maxExecutions: null, queueSize: null });
    }
  }, 180_000);
});
