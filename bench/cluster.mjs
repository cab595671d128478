// P6 across hosts: PROCESSES (1,000) blocking POST /processes at once, each
// awaiting one 1 s tool call to a local API, all submitted through one host,
// measured on each topology in the same run:
// - `sqlite`: one host on SQLite (the figure of concurrency.mjs, again here);
// - `pg-all`: one `all` host on PostgreSQL (every run through the queue);
// - `pg-1-worker`: an `api` host and one `worker` host;
// - `pg-2-workers`: an `api` host and two `worker` hosts.
// Wall time until every one has answered, p50/p99 of the answers, 429s
// retried, and how many runs each executing host took. Baseline: the call's
// own 1 s. On a machine with few cores, more worker hosts share the same
// cores: the figure says what the queue costs and whether hosts help here,
// not what they would on separate machines.
//
// TOPOLOGIES=sqlite,pg-all,pg-1-worker,pg-2-workers (default: all four),
// REPEATS=1 (runs of each, alternating), PROCESSES=1000.
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { startPostgres } from "./lib/postgres.mjs";
import { startSlowApi } from "./lib/slow-api.mjs";
import { report } from "./lib/stats.mjs";

const PROCESSES = Number(process.env.PROCESSES ?? 1000);
const REPEATS = Number(process.env.REPEATS ?? 1);
const TOPOLOGIES = (process.env.TOPOLOGIES ?? "sqlite,pg-all,pg-1-worker,pg-2-workers").split(",");
const WAIT_MS = 1000;
const ENV_CONFIG = { maxExecutions: 4000, queueSize: 4000, memoryBudgetMb: 3072 };
/** Every host takes the whole burst if it can: which host takes what is the queue's business. */
const WORKER_CONCURRENCY = String(Math.max(PROCESSES, 1));
const SECRETS_KEY = Buffer.alloc(32, 3).toString("base64");

const waiting = (i) =>
  `const r = await cyrnel.services.slow.tools.wait.invoke({ ms: ${WAIT_MS} });\ncyrnel.output({ i: ${i}, waited: r.waitedMs });`;

export async function cluster() {
  const slow = await startSlowApi();
  const postgres = TOPOLOGIES.some((name) => name.startsWith("pg-")) ? await startPostgres() : null;
  const figures = new Map();
  try {
    for (let round = 0; round < REPEATS; round++) {
      for (const topology of TOPOLOGIES) {
        const figure = await measure(topology, slow, postgres);
        console.log(
          `${topology} (round ${round + 1}): ${figure.wallMs.toFixed(0)} ms; p50 ${figure.p50.toFixed(0)}, p99 ${figure.p99.toFixed(0)}; ${figure.succeeded}/${PROCESSES} succeeded, ${figure.refused} refusals retried; runs per host: ${figure.perHost}`,
        );
        figures.set(topology, [...(figures.get(topology) ?? []), figure]);
      }
    }
  } finally {
    postgres?.stop();
    await slow.close();
  }
  const results = [];
  for (const [topology, runs] of figures) {
    const best = runs.reduce((a, b) => (a.wallMs <= b.wallMs ? a : b));
    results.push(
      report(
        `${PROCESSES} processes at once, each awaiting one ${WAIT_MS} ms tool call (${topology}): wall time`,
        {
          value: best.wallMs,
          label: `best of ${runs.length} (${runs.map((run) => run.wallMs.toFixed(0)).join(", ")} ms); p50 ${best.p50.toFixed(0)}, p99 ${best.p99.toFixed(0)}; runs per host ${best.perHost}`,
        },
        { value: WAIT_MS, label: "the tool call's own delay" },
      ),
    );
  }
  return results;
}

async function measure(topology, slow, postgres) {
  const hosts = [];
  try {
    let env = {};
    let databaseUrl = null;
    if (topology !== "sqlite") {
      databaseUrl = await postgres.database();
      env = {
        CYRNEL_DATABASE_URL: databaseUrl,
        CYRNEL_SECRETS_KEY: SECRETS_KEY,
        CYRNEL_WORKER_CONCURRENCY: WORKER_CONCURRENCY,
      };
    }
    const workers = { "pg-1-worker": 1, "pg-2-workers": 2 }[topology] ?? 0;
    const front = await startHost({ ...env, CYRNEL_ROLE: workers > 0 ? "api" : "all" });
    hosts.push(front);
    await front.api("POST", "/services", {
      id: "slow",
      adapter: "openapi",
      url: `${slow.url}/openapi.json`,
      enabled: true,
    });
    await front.api("PATCH", "/modules/typescript-ivm/config", ENV_CONFIG);
    // Workers start after the service and the environment's config are in the database: a starting host reads them.
    for (let i = 0; i < workers; i++) hosts.push(await startHost({ ...env, CYRNEL_ROLE: "worker" }));
    for (let i = 0; i < 20 * Math.max(1, workers); i++) await submit(front, "cyrnel.output({ warm: true });");

    const started = performance.now();
    const finishedAt = [];
    const failures = [];
    let refused = 0;
    await Promise.all(
      Array.from({ length: PROCESSES }, async (_, i) => {
        const result = await submit(front, waiting(i), () => refused++);
        finishedAt.push(performance.now() - started);
        if (result.exitState !== "success" || result.output.i !== i)
          failures.push(`${i}: ${result.exitState} ${result.error}`);
      }),
    );
    const wallMs = performance.now() - started;
    finishedAt.sort((a, b) => a - b);
    const at = (q) => finishedAt[Math.min(finishedAt.length - 1, Math.floor(q * finishedAt.length))];
    let perHost = "one host";
    // A build from before the process queue (HOST_BIN) has no claims: it ran everything on the one host.
    if (
      databaseUrl !== null &&
      (await postgres.query(databaseUrl, "SELECT 1 FROM information_schema.columns WHERE column_name = 'claimed_by'"))
        .length > 0
    ) {
      const rows = await postgres.query(
        databaseUrl,
        "SELECT claimed_by, count(*) FROM executions WHERE claimed_by IS NOT NULL GROUP BY 1 ORDER BY 2 DESC",
      );
      perHost = rows.map(([, count]) => count).join(" + ");
    }
    if (failures.length > 0) console.log(`  failures: ${failures.slice(0, 5).join("; ")}`);
    return { wallMs, p50: at(0.5), p99: at(0.99), refused, succeeded: PROCESSES - failures.length, perHost };
  } finally {
    for (const host of hosts.reverse()) await host.stop();
  }
}

/** A blocking POST /processes; a 429 is retried after its Retry-After, as an agent would. */
async function submit(host, code, onRefused = () => {}) {
  for (;;) {
    const { status, headers, body, text } = await host.request("POST", "/processes", { code, block: true });
    if (status === 201) return body;
    if (status !== 429) throw new Error(`POST /processes → ${status}: ${text.slice(0, 300)}`);
    onRefused();
    await new Promise((resolve) => setTimeout(resolve, Number(headers.get("retry-after") ?? 1) * 1000));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await cluster();
