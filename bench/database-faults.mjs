// The database-faults campaign (PostgreSQL): one `api` host and two `worker`
// hosts on a throw-away PostgreSQL server of its own, under steady load
// (CLIENTS clients, each submitting blocking runs of a read and a POST to a
// local upstream that counts them per run), through ROUNDS rounds. Each round
// waits a random moment, then either terminates every backend of the
// database (what a failover or a pooler restart does) or restarts the server
// (`pg_ctl restart -m fast`), and reports what the clients saw during it.
// At the end: every host alive, every run ended, no POST twice, every POST
// recorded, no 500. The short form of this campaign is a test
// (apps/host/test/database-faults.test.ts); this one runs minutes.
//
// Not part of `pnpm bench`: `node --no-node-snapshot database-faults.mjs`.
// ROUNDS=12, CLIENTS=6, SEED=<number> (replays an order of faults),
// RESTART_EVERY=3 (every third round restarts the server; the others terminate backends).
import { createServer } from "node:http";
import { seededRandom, startThrowawayPostgres } from "@cyrnel/test-servers";
import pg from "pg";
import { startHost } from "./lib/host.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 12);
const CLIENTS = Number(process.env.CLIENTS ?? 6);
const RESTART_EVERY = Number(process.env.RESTART_EVERY ?? 3);
const SEED = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
const SECRETS_KEY = Buffer.alloc(32, 5).toString("base64");

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A local API that counts GETs and POSTs per tag. */
async function startCounter() {
  const counts = new Map();
  const server = createServer((request, response) => {
    const match = /^\/hits\/([^/?]+)/.exec(request.url ?? "");
    if (!match) return response.writeHead(404).end();
    const tag = `${request.method} ${decodeURIComponent(match[1])}`;
    counts.set(tag, (counts.get(tag) ?? 0) + 1);
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ count: counts.get(tag) }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const schema = { 200: { description: "counted", content: { "application/json": { schema: { type: "object" } } } } };
  const tag = [{ name: "tag", in: "path", required: true, schema: { type: "string" } }];
  const definition = JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Counter", version: "1" },
    servers: [{ url }],
    paths: {
      "/hits/{tag}": {
        get: { operationId: "hit", parameters: tag, responses: schema },
        post: { operationId: "record", parameters: tag, responses: schema },
      },
    },
  });
  return { counts, definition, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function main() {
  const next = seededRandom(SEED);
  console.log(`database faults campaign: ${ROUNDS} rounds, ${CLIENTS} clients, seed ${SEED}`);
  const server = await startThrowawayPostgres({ own: true });
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: server.adminUrl });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };
  await admin("CREATE DATABASE faults");
  const url = new URL(server.adminUrl);
  url.pathname = "/faults";
  const counter = await startCounter();
  const env = { CYRNEL_DATABASE_URL: url.toString(), CYRNEL_SECRETS_KEY: SECRETS_KEY, CYRNEL_LEASE_MS: "60000" };
  const hosts = [];
  let loading = true;
  try {
    const api = await startHost({ ...env, CYRNEL_ROLE: "api" });
    hosts.push(api);
    await api.api("POST", "/services", { id: "counter", adapter: "openapi", definition: counter.definition });
    await api.api("POST", "/services/counter/enabled", { enabled: true });
    for (let i = 0; i < 2; i++) hosts.push(await startHost({ ...env, CYRNEL_ROLE: "worker" }));

    let round = { statuses: new Map(), latencies: [] };
    const failures = [];
    let submitted = 0;
    const client = async (index) => {
      for (let n = 0; loading; n++) {
        const tag = `c${index}-${n}`;
        const code =
          `await cyrnel.services.counter.tools.hit.invoke({ tag: "${tag}" });\n` +
          `const w = await cyrnel.services.counter.tools.record.invoke({ tag: "${tag}" });\ncyrnel.output(w);`;
        submitted++;
        const started = performance.now();
        try {
          const { status, text } = await api.request("POST", "/processes", {
            code,
            ref: tag,
            block: true,
            timeoutMs: 60_000,
          });
          round.statuses.set(status, (round.statuses.get(status) ?? 0) + 1);
          round.latencies.push(performance.now() - started);
          if (status >= 500 && status !== 503 && status !== 507)
            failures.push(`${tag}: ${status} ${text.slice(0, 200)}`);
        } catch (error) {
          failures.push(`${tag}: no answer (${error.message})`);
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
    for (let r = 1; r <= ROUNDS; r++) {
      await pause(1_000 + Math.floor(next() * 4_000));
      const fault = r % RESTART_EVERY === 0 ? "restart" : "terminate";
      const started = performance.now();
      if (fault === "restart") server.restart("fast");
      else await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'faults'");
      const faultMs = performance.now() - started;
      await pause(2_000);
      const seen = round;
      round = { statuses: new Map(), latencies: [] };
      const sorted = seen.latencies.sort((a, b) => a - b);
      const p = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
      console.log(
        `round ${r}: ${fault} (${faultMs.toFixed(0)} ms); answers ${JSON.stringify(Object.fromEntries(seen.statuses))}; ` +
          `blocking runs p50 ${p(0.5).toFixed(0)} ms, max ${p(1).toFixed(0)} ms; hosts alive ${hosts.filter((h) => h.alive()).length}/3`,
      );
    }
    loading = false;
    await Promise.all(clients);

    // Every run ends; no POST twice; every POST recorded.
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    let rows;
    for (;;) {
      rows = (await db.query("SELECT id, ref, state, exit_state FROM processes")).rows;
      if (rows.every((row) => row.state === "idle")) break;
      await pause(500);
    }
    const recorded = new Set(
      (
        await db.query(
          "SELECT DISTINCT p.ref FROM calls c JOIN processes p ON p.id = c.process_id WHERE c.tool_id = 'record'",
        )
      ).rows.map((row) => row.ref),
    );
    await db.end();
    const posts = [...counter.counts].filter(([tag]) => tag.startsWith("POST "));
    const twice = posts.filter(([, count]) => count > 1);
    const unrecorded = posts.filter(([tag]) => !recorded.has(tag.slice("POST ".length)));
    const alive = hosts.filter((host) => host.alive()).length;
    console.log(
      `\n${submitted} runs submitted, ${rows.length} recorded, ${rows.filter((row) => row.exit_state === "success").length} succeeded; ` +
        `${posts.length} POSTs reached the upstream, ${twice.length} twice, ${unrecorded.length} without a call record; ` +
        `${alive}/3 hosts alive; ${failures.length} failures${failures.length ? `: ${failures.slice(0, 5).join("; ")}` : ""}`,
    );
    if (twice.length || unrecorded.length || failures.length || alive !== 3) process.exitCode = 1;
  } finally {
    loading = false;
    for (const host of hosts) await host.stop().catch(() => undefined);
    await counter.close();
    server.stop();
  }
}

await main();
