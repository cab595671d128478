// The first checked run after a restart, against a warm one. Five APIs are installed together (weather, Petstore,
// Slack, Stripe, GitHub; ~1,900 tools, all reachable by the run), then the host is stopped and started again on the
// same data. As soon as it answers, a two-line weather program is submitted with `typecheck: true` (`block`), and its
// round trip is the figure; the baseline is the same kind of program (a number in it changes, so no result is
// cached) on the warm host, the median of `ROUNDS` (10) taken before the restart. Target: the first ≤ 2× the warm one.
// The floor of any first run after a restart is printed too: the first unchecked run of a restarted host (a cold
// process, a first isolate), on a restart of its own, and the first checked run against it. Also printed: the first
// checked Stripe program after the restart, and `GET /environment/types` of all services, twice.
// `RESTARTS` (3) restarts, each figure the median of them. HOST_BIN compares another build. Not in `pnpm bench`.
// Before each first request after a restart, the bench's own client makes one request to a server of its own: its
// first request after seconds of waiting for the host cost it 40–100 ms before a byte reached the host (the host's
// accept was that late while its event loop was idle), which is the client's, not the host's. `CLIENT_WARM=0` leaves
// that out.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installFiveApis } from "./lib/five-apis.mjs";
import { startHost } from "./lib/host.mjs";
import { median, report } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const RESTARTS = Number(process.env.RESTARTS ?? 3);
const CLIENT_WARM = process.env.CLIENT_WARM !== "0";

/** Two lines against the weather service; its call sits in a function it never calls (nothing upstream runs). */
const weatherProgram = (n) =>
  `async function f() { const r = await cyrnel.services.weather.tools.getForecast.invoke({ city: "oslo", days: ${(n % 7) + 1} }); console.log(r); }\nvoid f; console.log(${n});`;
const stripeProgram = (n) =>
  `async function f() { const c = await cyrnel.services.stripe.tools.GetCustomers.invoke({ limit: ${n} }); console.log(c.data.length); }\nvoid f; console.log(${n});`;

/** A server of the bench's own, on loopback: a request to it warms the bench's client, and nothing of the host. */
async function clientWarmer() {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.end("{}"));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    warm: async () => {
      if (!CLIENT_WARM) return;
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      await response.text();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export async function typecheckCold() {
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-"));
  const client = await clientWarmer();
  const host = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" }, undefined, { dataDir });
  let current = host;
  const submit = async (code, typecheck = true) => {
    const started = performance.now();
    const process = await current.api("POST", "/processes", { code, block: true, typecheck, timeoutMs: 300_000 });
    const ms = performance.now() - started;
    if (process.exitState !== "success") throw new Error(`process ${process.id}: ${process.error}`);
    return ms;
  };
  try {
    await installFiveApis(host);
    let n = 0;
    // Warm: every service's declarations made and parsed (the first checks pay for that).
    await submit(weatherProgram(++n));
    await submit(stripeProgram(++n));
    const warm = [];
    for (let round = 0; round < ROUNDS; round++) warm.push(await submit(weatherProgram(++n)));
    const warmUnchecked = [];
    for (let round = 0; round < ROUNDS; round++) warmUnchecked.push(await submit(weatherProgram(++n), false));
    const firstWeather = [];
    const firstUnchecked = [];
    const firstStripe = [];
    const types = [];
    const typesAgain = [];
    const restart = async () => {
      await current.stop();
      current = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" }, undefined, { dataDir });
    };
    for (let round = 0; round < RESTARTS; round++) {
      // The floor: the host's own first run after a restart, unchecked (a cold process, a first isolate).
      await restart();
      await client.warm();
      firstUnchecked.push(await submit(weatherProgram(++n), false));
      await restart();
      await client.warm();
      firstWeather.push(await submit(weatherProgram(++n)));
      firstStripe.push(await submit(stripeProgram(++n)));
      for (const list of [types, typesAgain]) {
        const started = performance.now();
        await current.api("GET", "/environment/types");
        list.push(performance.now() - started);
      }
    }
    console.log(
      `\nThe first checked run after a restart, five APIs installed (${RESTARTS} restarts; the bench's client ${CLIENT_WARM ? "warmed first" : "cold"})`,
    );
    console.log(`  warm checked weather program (median of ${ROUNDS}): ${median(warm).toFixed(0)} ms`);
    console.log(`  warm unchecked weather program (median of ${ROUNDS}): ${median(warmUnchecked).toFixed(0)} ms`);
    console.log(
      `  first checked weather program after a restart: ${firstWeather.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
    console.log(
      `  first unchecked weather program after a restart: ${firstUnchecked.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
    console.log(`  then the first checked Stripe program: ${firstStripe.map((ms) => ms.toFixed(0)).join(", ")} ms`);
    console.log(`  then GET /environment/types (every service): ${types.map((ms) => ms.toFixed(0)).join(", ")} ms`);
    console.log(`  and again: ${typesAgain.map((ms) => ms.toFixed(0)).join(", ")} ms`);
    return [
      report(
        "the first checked weather program after a restart (median of restarts), five APIs installed",
        { value: median(firstWeather), label: `median of ${RESTARTS}` },
        { value: median(warm), label: `the same kind of program on the warm host (median of ${ROUNDS}); target ≤ 2×` },
      ),
    ];
  } finally {
    await current.stop();
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await typecheckCold();
