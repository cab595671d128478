// One-off figures for the README (not a test): sign-in time of a host's console, on loopback and at 1.6 Mbit/s.
// node test/support/measure-sign-in.mjs <repo root> <port>
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium } from "@cyrnel/test-servers";
import { chromium } from "playwright-core";

const [root, port] = process.argv.slice(2);
const key = "measure-admin-key-0123456789";
const child = spawn(process.execPath, [join(root, "apps/host/bin/cyrnel.js"), "start"], {
  env: {
    ...process.env,
    CYRNEL_PORT: port,
    CYRNEL_API_KEY: key,
    CYRNEL_DATA_DIR: mkdtempSync(join(tmpdir(), "c32c-")),
  },
  stdio: ["ignore", "pipe", "inherit"],
});
await new Promise((resolve) => child.stdout.on("data", (d) => String(d).includes("listening") && resolve()));
const found = await findChromium();
const browser = await chromium.launch({
  executablePath: found.executablePath,
  args: ["--headless", "--no-sandbox"],
  env: { ...process.env, ...found.env },
});
const results = {};
for (const [name, throttle] of [
  ["loopback", null],
  ["1.6 Mbit/s, 40 ms", { latency: 40, downloadThroughput: 200_000, uploadThroughput: 100_000 }],
]) {
  const times = [];
  for (let run = 0; run < 3; run++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    if (throttle) await cdp.send("Network.emulateNetworkConditions", { offline: false, ...throttle });
    const started = Date.now();
    await page.goto(`http://127.0.0.1:${port}/ui/`);
    await page.getByLabel("Admin key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    times.push(Date.now() - started);
    await context.close();
  }
  results[name] = times;
}
console.log(JSON.stringify(results));
await browser.close();
child.kill();
