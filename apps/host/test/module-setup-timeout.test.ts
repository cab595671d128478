import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { hookCalls } from "./support/recorder.js";

/**
 * A module setup that outlives the hook timeout keeps running in the
 * background (an environment forks its sandbox process there). The host
 * gives up waiting, reports the failure, and tears the module down once
 * the setup is done, so nothing it started is left behind (an orphaned
 * sandbox process used to keep a stopped host alive).
 */

let host: TestHost;

beforeAll(async () => {
  host = await startHost({ modules: ["recorder"], env: { CYRNEL_INVOKE_TIMEOUT_MS: "300" } });
});
afterAll(async () => {
  await host?.stop();
});

it("a setup that finishes after its timeout is torn down, and the module is reported inactive", async () => {
  const hookLog = join(host.dataDir, "late-hooks.jsonl");
  expect((await host.api("PATCH", "/modules/recorder/config", { hookLog, setupDelayMs: 1500 })).status).toBe(200);
  const enabled = await host.api("POST", "/modules/recorder/enabled", { enabled: true });
  expect(enabled.body.error ?? enabled.text).toMatch(/setup of module "recorder" did not finish within 300 ms/);
  await expect
    .poll(() => hookCalls(hookLog).map((call) => call.hook), { timeout: 30_000, interval: 100 })
    .toEqual(["setup", "teardown"]);
  expect((await host.api("GET", "/modules/recorder")).body.active).toBe(false);
});
