import { type ChildProcess, spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { prometheusBinary } from "@cyrnel/test-servers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHost, type TestHost, tempDir } from "./support/host.js";
import { installShop, type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * A real Prometheus server (Debian's, through @cyrnel/test-servers) scrapes
 * the built host's /metrics with CYRNEL_METRICS_TOKEN as its bearer token,
 * and answers a PromQL query about the calls a process made: what an
 * operator's scrape config and dashboards will see.
 */
const SHOP_KEY = "shop-key-prometheus-93be";
const API_KEY = "prometheus-admin-key-1d0c";
const METRICS_TOKEN = "prometheus-scrape-token-7f31c2a9";

let host: TestHost;
let shop: ShopApi;
let prometheus: ChildProcess | undefined;
let prometheusUrl = "";
let prometheusLog = "";
const folder = tempDir("cyrnel-prometheus-");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const binary = prometheusBinary();
  shop = await startShopApi(SHOP_KEY);
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY, CYRNEL_METRICS_TOKEN: METRICS_TOKEN } });
  await installShop(host, shop, SHOP_KEY);

  const target = new URL(host.url).host;
  writeFileSync(
    join(folder, "prometheus.yml"),
    [
      "global:",
      "  scrape_interval: 1s",
      "scrape_configs:",
      "  - job_name: cyrnel",
      "    scrape_interval: 1s",
      "    metrics_path: /metrics",
      "    authorization:",
      "      type: Bearer",
      `      credentials: ${METRICS_TOKEN}`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    binary,
    [
      `--config.file=${join(folder, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(folder, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  prometheus.stdout?.on("data", (chunk) => (prometheusLog += chunk));
  prometheus.stderr?.on("data", (chunk) => (prometheusLog += chunk));
  // Ready once it answers /-/ready (a hook cannot use expect.poll): a few seconds at most, bounded by the hook.
  for (;;) {
    const ready = await fetch(`${prometheusUrl}/-/ready`).catch(() => null);
    if (ready?.status === 200) break;
    if (prometheus.exitCode !== null) throw new Error(`prometheus exited: ${prometheusLog.slice(-2000)}`);
    await sleep(100);
  }
});
afterAll(async () => {
  prometheus?.kill("SIGTERM");
  await host?.stop();
  await shop?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** One PromQL instant query; its vector's first value, or null when it is empty. */
async function query(promql: string): Promise<number | null> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data: { result: { value: [number, string] }[] } };
  expect(body.status, JSON.stringify(body)).toBe("success");
  const first = body.data.result[0];
  return first === undefined ? null : Number(first.value[1]);
}

it("scrapes the host with the metrics token and answers a PromQL query about a tool's calls", async () => {
  // The target is up: the bearer token was accepted.
  await expect.poll(() => query('up{job="cyrnel"}'), { timeout: 60_000 }).toBe(1);
  const run = await host.api("POST", "/processes", {
    code: `for (let i = 0; i < 5; i++) await cyrnel.services.shop.tools.getItem.invoke({ id: String(i) });
      try { await cyrnel.services.shop.tools.broken.invoke({}); } catch {}
      cyrnel.output({ done: true });`,
    block: true,
    typecheck: false,
  });
  expect(run.status, run.text).toBe(201);
  expect(run.body.exitState).toBe("success");
  await expect
    .poll(() => query('sum(cyrnel_tool_calls_total{job="cyrnel",service="shop",tool="getItem",outcome="ok"})'), {
      timeout: 60_000,
    })
    .toBe(5);
  expect(await query('sum by (outcome) (cyrnel_tool_calls_total{service="shop",tool="broken"})')).toBe(1);
  expect(await query('sum(cyrnel_tool_call_duration_seconds_count{service="shop",outcome="ok"})')).toBe(5);
  expect(await query('sum(cyrnel_processes_ended_total{exit_state="success"})')).toBe(1);
});
