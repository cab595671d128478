// Live followers: FOLLOWERS (480) readers of one chatty process's events (`GET /processes/:id/events`) while
// `GET /health` is timed, against the same process with no follower. The process writes a line of LINE_BYTES
// every few milliseconds for the whole measurement, so every line goes to every follower. DATABASE=postgres runs the
// host on a throw-away PostgreSQL (followers then read the run's events through the cluster's event path).
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { startThrowawayPostgres } from "@cyrnel/test-servers";
import { startHost } from "./lib/host.mjs";
import { median, report } from "./lib/stats.mjs";

const FOLLOWERS = Number(process.env.FOLLOWERS ?? 480);
const SAMPLES = Number(process.env.SAMPLES ?? 200);
const LINE_BYTES = Number(process.env.LINE_BYTES ?? 1024);

/** `GET /health` SAMPLES times, one after another: median and worst, in ms. */
async function healthLatency(host) {
  const times = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const response = await fetch(`${host.url}/health`);
    await response.arrayBuffer();
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { p50: median(times), max: Math.max(...times) };
}

export async function followers() {
  const postgres = process.env.DATABASE === "postgres" ? await startThrowawayPostgres({ own: true }) : null;
  const database = postgres
    ? { CYRNEL_DATABASE_URL: postgres.adminUrl, CYRNEL_SECRETS_KEY: randomBytes(32).toString("base64") }
    : {};
  const host = await startHost({ ...database, CYRNEL_PROCESS_FOLLOWERS_LIMIT: String(FOLLOWERS + 10) });
  const readers = [];
  try {
    const code = `
      const line = "x".repeat(${LINE_BYTES});
      for (;;) { console.log(line); await new Promise((resolve) => setTimeout(resolve, 2)); }`;
    const created = await host.api("POST", "/processes", { code, timeoutMs: 600_000, typecheck: false });
    const id = created.id;
    for (;;) {
      const row = await host.api("GET", `/processes/${id}`);
      if (row.state === "running") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const alone = await healthLatency(host);
    console.error(
      `process ${id} running; /health alone p50 ${alone.p50.toFixed(1)} ms; opening ${FOLLOWERS} followers`,
    );

    let received = 0;
    for (let i = 0; i < FOLLOWERS; i++) {
      const controller = new AbortController();
      const response = await fetch(`${host.url}/processes/${id}/events`, { signal: controller.signal });
      if (response.status !== 200) throw new Error(`follower ${i}: ${response.status} ${await response.text()}`);
      const reading = (async () => {
        try {
          for await (const chunk of response.body) received += chunk.byteLength;
        } catch {
          // aborted at the end
        }
      })();
      readers.push({ controller, reading });
      if ((i + 1) % 100 === 0) console.error(`${i + 1} followers`);
    }
    const followed = await healthLatency(host);
    const results = [
      report(
        `GET /health p50 while ${FOLLOWERS} followers read a chatty process`,
        { value: followed.p50, label: `${FOLLOWERS} followers, ${(received / 1e6).toFixed(0)} MB delivered to them` },
        { value: alone.p50, label: "the same process, no follower" },
      ),
      report(
        `GET /health worst of ${SAMPLES} while ${FOLLOWERS} followers read`,
        { value: followed.max, label: `${FOLLOWERS} followers` },
        { value: alone.max, label: "no follower" },
      ),
    ];
    await host.api("POST", `/processes/${id}/signals/kill`);
    return results;
  } finally {
    for (const reader of readers) reader.controller.abort();
    await host.stop();
    await postgres?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await followers();
