// How long the host keeps a request waiting while it prepares large APIs' declarations after a start. Five APIs are
// installed together (weather, Petstore, Slack, Stripe, GitHub; Stripe's schemas alone are 177 MB of JSON), the host
// is stopped and started again on the same data, and from the moment it answers `GET /health` is asked again and
// again, one request after the other, for `SECONDS` (12): the slowest answer is the figure (the longest the event
// loop was held), with how many took over 100 ms. The baseline is the same on the warm host with nothing to prepare
// (after the installs' work is done). `RESTARTS` (2) restarts, the figure the largest of them. Then, after the last
// start, `GET /health` again and again while the first `GET /environment/types` of every service is made: the
// slowest of those answers. HOST_BIN compares another build. Not in `pnpm bench`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installFiveApis } from "./lib/five-apis.mjs";
import { startHost } from "./lib/host.mjs";
import { report } from "./lib/stats.mjs";

const SECONDS = Number(process.env.SECONDS ?? 12);
const RESTARTS = Number(process.env.RESTARTS ?? 2);
/** Long enough for the work the installs started (rendering Stripe's declarations takes seconds) to be over. */
const SETTLE_MS = 20_000;

/** Asks `GET /health` one request after the other for `seconds`: the slowest answer, and how many took over 100 ms. */
async function pollHealth(host, seconds) {
  const until = performance.now() + seconds * 1000;
  let slowest = 0;
  let over100 = 0;
  let count = 0;
  while (performance.now() < until) {
    const started = performance.now();
    await host.request("GET", "/health");
    const ms = performance.now() - started;
    slowest = Math.max(slowest, ms);
    if (ms > 100) over100++;
    count++;
  }
  return { slowest, over100, count };
}

/** Asks `GET /health` one request after the other while `work` runs: the slowest answer, and how long `work` took. */
async function healthDuring(host, work) {
  let done = false;
  const started = performance.now();
  const worked = work().then(() => {
    done = true;
    return performance.now() - started;
  });
  let slowest = 0;
  let count = 0;
  while (!done) {
    const asked = performance.now();
    await host.request("GET", "/health");
    slowest = Math.max(slowest, performance.now() - asked);
    count++;
  }
  return { slowest, count, workMs: await worked };
}

export async function startStalls() {
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-"));
  let current = await startHost({}, undefined, { dataDir });
  try {
    await installFiveApis(current);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // The first requests of a new connection are not the host's to answer for: one before the measure.
    await current.request("GET", "/health");
    const idle = await pollHealth(current, SECONDS);
    const afterStart = [];
    for (let round = 0; round < RESTARTS; round++) {
      await current.stop();
      current = await startHost({}, undefined, { dataDir });
      afterStart.push(await pollHealth(current, SECONDS));
    }
    // The types of every service, made anew after the start (an index: they are far over one answer's limit).
    const types = await healthDuring(current, () => current.request("GET", "/environment/types"));
    const describe = ({ slowest, over100, count }) =>
      `slowest ${slowest.toFixed(0)} ms, ${over100} of ${count} over 100 ms`;
    console.log(`\nGET /health one after the other for ${SECONDS} s, five APIs installed`);
    console.log(`  warm host, nothing to prepare: ${describe(idle)}`);
    for (const [round, polled] of afterStart.entries())
      console.log(`  right after start ${round + 1}: ${describe(polled)}`);
    console.log(
      `  during the first GET /environment/types of every service after the last start (${types.workMs.toFixed(0)} ms): slowest ${types.slowest.toFixed(0)} ms of ${types.count}`,
    );
    return [
      report(
        "the slowest GET /health in the seconds after a start (five APIs installed, their declarations prepared)",
        { value: Math.max(...afterStart.map((polled) => polled.slowest)), label: `the largest of ${RESTARTS} starts` },
        { value: idle.slowest, label: "the slowest on the warm host with nothing to prepare" },
      ),
      report(
        "the slowest GET /health while the first GET /environment/types of every service is made (five APIs)",
        { value: types.slowest, label: `of ${types.count} answers during it` },
        { value: idle.slowest, label: "the slowest on the warm host with nothing to prepare" },
      ),
    ];
  } finally {
    await current.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await startStalls();
