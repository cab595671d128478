// Durable runs: the campaign of the proof, and the replay cost.
//
// Campaign: RUNS (500) runs of the durable-runs program (apps/host/test/support/durable-api.mjs: two reads, a read
// and an idempotent PUT in a Promise.all, a non-idempotent POST with a key unique to the run, a read; output derived
// from the answers) against a local upstream that answers after 0..MAX_DELAY_MS (150) ms and counts what reaches
// it. They are submitted in ROUNDS (10) rounds, one by one at random gaps of up to MAX_SUBMIT_GAP_MS (20) ms; at a
// random point of each round (once the upstream received the POSTs of a random number, up to half, of the round's
// runs) a host is SIGKILLed:
// - `sqlite`: the one host, restarted on the same data directory;
// - `postgres`: the busier of two `worker` hosts (an `api` host takes the submissions and stays), a new worker started in
//   its place; a throw-away PostgreSQL of its own (@cyrnel/test-servers), CYRNEL_LEASE_MS=LEASE_MS (5,000).
// An operator decides the approvals a POST in flight at a kill asks for: deny the re-send when the upstream counted
// the key already, approve it when not. At the end it prints runs, kills, runs replayed
// (attempts > 1 in the database), approvals approved/denied, POST duplicates and misses, wrong outputs, failed runs and
// runs stuck (not idle STUCK_MS, 180 s, after the last kill); exit 1 unless every run ended success with the output
// an uninterrupted run gives and every POST arrived once.
//
// Replay cost: one run of CALLS (100) sequential reads, then a 101st the upstream never answers. Live: from the
// run's submission to the 101st call's arrival. Replayed: the host is SIGKILLed and restarted on its data; from its
// "resuming the runs" log line to the 101st call's second arrival (the 100 are answered from the journal; the 101st,
// a read in flight, is re-sent). Both include starting the program in the sandbox; the live run comes after a
// warm-up run, the replayed one on a host just started (its warm-up included: the ratio errs high). Ratio replayed /
// live, medians of REPEATS (5); the host's start (spawn to listening) is printed beside them. SQLite.
//
// Not part of `pnpm bench`: `node --no-node-snapshot durable-runs.mjs`. DIALECTS=sqlite,postgres (default both),
// RUNS, ROUNDS, SEED, LEASE_MS, SANDBOX_VALUES=0, MAX_DELAY_MS, MAX_SUBMIT_GAP_MS, STUCK_MS, CALLS, REPEATS, PARTS=campaign,replay.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { seededRandom } from "@cyrnel/test-servers";
import {
  durableProgram,
  expectedOutput,
  orderKey,
  sequentialProgram,
  startDurableApi,
} from "../apps/host/test/support/durable-api.mjs";
import { startHost } from "./lib/host.mjs";
import { startPostgres } from "./lib/postgres.mjs";

const RUNS = Number(process.env.RUNS ?? 500);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const SEED = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
const MAX_DELAY_MS = Number(process.env.MAX_DELAY_MS ?? 150);
const MAX_SUBMIT_GAP_MS = Number(process.env.MAX_SUBMIT_GAP_MS ?? 20);
const STUCK_MS = Number(process.env.STUCK_MS ?? 180_000);
/** PostgreSQL: a killed worker's runs go to another once its lease ran out; short, yet one a loaded host renews. */
const LEASE_MS = Number(process.env.LEASE_MS ?? 5000);
const CALLS = Number(process.env.CALLS ?? 100);
const REPEATS = Number(process.env.REPEATS ?? 5);
const DIALECTS = (process.env.DIALECTS ?? "sqlite,postgres").split(",").filter(Boolean);
/** SANDBOX_VALUES=0: the program reads no clock or random value (a diagnostic: the calls' replay alone). */
const SANDBOX_VALUES = process.env.SANDBOX_VALUES !== "0";
const PARTS = (process.env.PARTS ?? "campaign,replay").split(",").filter(Boolean);
const SECRETS_KEY = Buffer.alloc(32, 9).toString("base64");
const ENV_CONFIG = { maxExecutions: 4000, queueSize: 4000, memoryBudgetMb: 3072 };

/** Rows of the SQLite database of a host (better-sqlite3, the host's own dependency). */
function sqliteRows(file, sql) {
  const hostRequire = createRequire(createRequire(import.meta.url).resolve("@cyrnel/host/package.json"));
  const Database = hostRequire("better-sqlite3");
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function install(host, upstream) {
  await host.api("POST", "/services", { id: "durable", adapter: "openapi", definition: upstream.definition });
  await host.api("POST", "/services/durable/enabled", { enabled: true });
  await host.api("PUT", "/services/durable/policy", { default: "allow", rules: [] });
}

/** Decides pending approvals of `durable` through `current()` until stopped (a dead host's errors are retried). */
function standBy(current, upstream) {
  const decisions = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const pending = await current().api("GET", "/approvals?state=pending&serviceId=durable&limit=100");
        for (const item of pending.items) {
          const whole = await current().api("GET", `/approvals/${item.id}`);
          const key = whole.parameters?.body?.key;
          const arrived = key === undefined ? 0 : upstream.posts(key);
          const decision = arrived > 0 ? "deny" : "approve";
          await current().api("POST", `/approvals/${item.id}/${decision}`, {});
          decisions.push({ toolId: item.toolId, key, decision, question: item.question ?? null });
        }
      } catch {
        // The host went down: the next pass asks the one that replaced it.
      }
      await pause(100);
    }
  })();
  return {
    decisions,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** POST /processes, retried after Retry-After when the sandbox is at capacity; the process id. */
async function submit(host, code) {
  for (;;) {
    const answer = await host.request("POST", "/processes", { code, timeoutMs: 3_600_000 });
    if (answer.status === 201) return answer.body.id;
    if (answer.status !== 429) throw new Error(`POST /processes → ${answer.status}: ${answer.text.slice(0, 300)}`);
    await pause(Number(answer.headers.get("retry-after") ?? 1) * 1000);
  }
}

async function states(host, ids) {
  return Promise.all(ids.map(async (id) => (await host.api("GET", `/processes/${id}`)).state));
}

async function campaign(dialect, random) {
  const upstream = await startDurableApi({ maxDelayMs: MAX_DELAY_MS });
  const postgres = dialect === "postgres" ? await startPostgres() : null;
  const hosts = [];
  const env = { CYRNEL_SECRETS_KEY: SECRETS_KEY };
  if (postgres)
    Object.assign(env, { CYRNEL_DATABASE_URL: await postgres.database(), CYRNEL_LEASE_MS: String(LEASE_MS) });
  const start = async (role, dataDir) => {
    const host = await startHost(role ? { ...env, CYRNEL_ROLE: role } : env, undefined, dataDir ? { dataDir } : {});
    hosts.push(host);
    return host;
  };
  try {
    let api = await start(postgres ? "api" : undefined);
    await api.api("PATCH", "/modules/typescript-ivm/config", ENV_CONFIG);
    await install(api, upstream);
    const workers = postgres ? [await start("worker"), await start("worker")] : [];
    const operator = standBy(() => api, upstream);
    const ids = [];
    let kills = 0;
    const started = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      const from = Math.floor((round * RUNS) / ROUNDS);
      const to = Math.floor(((round + 1) * RUNS) / ROUNDS);
      // The kill comes once the upstream received the POSTs of a random number (at least one, at most half) of the
      // round's runs: runs are then at every stage, some past their POST, many still going.
      const posts = 1 + Math.floor((random() * (to - from - 1)) / 2);
      const posted = () => {
        let count = 0;
        for (let index = from; index < to; index++) if (upstream.posts(orderKey(dialect, index)) > 0) count++;
        return count;
      };
      for (let index = from; index < to; index++) {
        ids.push(await submit(api, durableProgram(dialect, index, "durable", { sandboxValues: SANDBOX_VALUES })));
        await pause(Math.floor(random() * MAX_SUBMIT_GAP_MS));
      }
      while (posted() < posts) await pause(5);
      if (postgres) {
        // The worker running the most unfinished runs (the queue may give all of them to one).
        const hostIds = await Promise.all(workers.map(async (worker) => (await worker.api("GET", "/health")).hostId));
        const rows = await postgres.query(
          env.CYRNEL_DATABASE_URL,
          "select claimed_by, count(*) from executions where finished_at is null group by claimed_by",
        );
        const runs = hostIds.map((id) => Number(rows.find((row) => row[0] === id)?.[1] ?? 0));
        const busiest = runs.flatMap((count, index) => (count === Math.max(...runs) ? [index] : []));
        const victim = busiest[Math.floor(random() * busiest.length)];
        await workers[victim].kill();
        workers[victim] = await start("worker");
      } else {
        await api.kill();
        api = await start(undefined, api.dataDir);
      }
      kills++;
      process.stdout.write(
        `  ${dialect}: round ${round + 1}/${ROUNDS}, ${ids.length} runs submitted, ${kills} kills\n`,
      );
    }
    const lastKill = Date.now();
    let open = ids;
    while (Date.now() - lastKill < STUCK_MS) {
      const now = await states(api, open);
      open = open.filter((_, i) => now[i] !== "idle");
      if (open.length === 0) break;
      await pause(500);
    }
    await operator.stop();
    const wallMs = Date.now() - started;

    let failed = 0;
    let wrong = 0;
    let replayed = 0;
    const errors = new Map();
    for (const [index, id] of ids.entries()) {
      const record = await api.api("GET", `/processes/${id}`);
      if (record.state !== "idle") continue;
      if (record.exitState !== "success") {
        failed++;
        errors.set(record.error, (errors.get(record.error) ?? 0) + 1);
      } else if (!isDeepStrictEqual(await api.api("GET", `/processes/${id}/output`), expectedOutput(dialect, index)))
        wrong++;
    }
    // Runs resumed at least once: their execution had more than one attempt (read from the database).
    const resumedSql = "select count(*) as n from executions where attempts > 1";
    replayed = Number(
      postgres
        ? (await postgres.query(env.CYRNEL_DATABASE_URL, resumedSql))[0][0]
        : sqliteRows(join(api.dataDir, "data.db"), resumedSql)[0].n,
    );
    const arrivals = ids.map((_, index) => upstream.posts(orderKey(dialect, index)));
    const figures = {
      dialect,
      runs: ids.length,
      kills,
      replayed,
      approved: operator.decisions.filter((d) => d.decision === "approve").length,
      denied: operator.decisions.filter((d) => d.decision === "deny").length,
      approvalsNotPost: operator.decisions.filter((d) => d.toolId !== "createOrder").length,
      approvalsWithoutQuestion: operator.decisions.filter((d) => d.question === null).length,
      duplicates: arrivals.filter((n) => n > 1).length,
      missing: arrivals.filter((n) => n === 0).length,
      failed,
      wrongOutput: wrong,
      stuck: open.length,
      wallSeconds: Math.round(wallMs / 1000),
      errors: Object.fromEntries(errors),
    };
    console.log(`${dialect} campaign (seed ${SEED}): ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    for (const host of hosts) await host.kill();
    for (const host of hosts) await host.stop();
    postgres?.stop();
    await upstream.close();
  }
}

/**
 * One measure: the live run, from its submission to its 101st call's arrival; the replayed run, from the restarted
 * host's "resuming" log line to that call's second arrival (ms). The host start alone is printed beside them.
 */
async function replayOnce(upstream, round) {
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-"));
  const env = { CYRNEL_SECRETS_KEY: SECRETS_KEY };
  let host = await startHost(env, undefined, { dataDir });
  try {
    await install(host, upstream);
    await host.stop();
    const name = `seq${round}`;
    const last = `GET item ${name}-last`;
    upstream.hold(`${name}-last`);
    let spawned = performance.now();
    host = await startHost(env, undefined, { dataDir });
    const startMs = performance.now() - spawned;
    // A first run after a start pays the host's warm-up (seconds on this machine): the live figure is a warm run's.
    await host.api("POST", "/processes", { code: sequentialProgram(`warm${round}`, 1), block: true });
    const submitted = performance.now();
    const id = await submit(host, sequentialProgram(name, CALLS));
    await upstream.arrived(last, 1);
    const liveMs = performance.now() - submitted;

    await host.kill();
    let resuming = null;
    const onLine = (line) => {
      if (resuming === null && line.includes('"msg":"resuming the runs the last stop left unfinished"')) {
        resuming = performance.now();
      }
    };
    spawned = performance.now();
    const resumed = upstream.arrived(last, 2).then(() => performance.now());
    host = await startHost(env, undefined, { dataDir, onLine });
    for (let arrived = null; arrived === null; ) {
      arrived = await Promise.race([resumed, pause(200).then(() => null)]);
      if (arrived !== null) break;
      const record = await host.api("GET", `/processes/${id}`);
      if (record.state === "idle")
        throw new Error(`the run was not resumed: it ended ${record.exitState} (${record.error})`);
    }
    if (resuming === null) throw new Error('no "resuming the runs" line in the restarted host\'s log');
    const replayMs = (await resumed) - resuming;
    return { startMs, liveMs, replayMs, firstCallSent: upstream.counts.get(`GET item ${name}-0`) };
  } finally {
    await host.kill();
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function replayCost() {
  const upstream = await startDurableApi({ maxDelayMs: 0 });
  try {
    const measures = [];
    for (let round = 0; round < REPEATS; round++) {
      const measure = await replayOnce(upstream, round);
      console.log(
        `  replay round ${round + 1}: host start ${measure.startMs.toFixed(0)} ms, live ${measure.liveMs.toFixed(0)} ms, replayed ${measure.replayMs.toFixed(0)} ms; the first call reached the upstream ${measure.firstCallSent}×`,
      );
      measures.push(measure);
    }
    const live = median(measures.map((m) => m.liveMs));
    const replay = median(measures.map((m) => m.replayMs));
    const figures = {
      calls: CALLS,
      hostStartMs: Math.round(median(measures.map((m) => m.startMs))),
      liveMs: Math.round(live),
      replayMs: Math.round(replay),
      ratio: Number((replay / live).toFixed(2)),
      journaledCallsResent: measures.filter((m) => m.firstCallSent !== 1).length,
    };
    console.log(`replay cost (SQLite, median of ${REPEATS}): ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await upstream.close();
  }
}

async function main() {
  const random = seededRandom(SEED);
  console.log(
    `durable runs: ${RUNS} runs in ${ROUNDS} rounds per dialect (${DIALECTS.join(", ")}), seed ${SEED}, upstream delay ≤ ${MAX_DELAY_MS} ms`,
  );
  let ok = true;
  if (PARTS.includes("campaign")) {
    for (const dialect of DIALECTS) {
      const figures = await campaign(dialect, random);
      ok &&=
        figures.failed === 0 &&
        figures.wrongOutput === 0 &&
        figures.duplicates === 0 &&
        figures.missing === 0 &&
        figures.stuck === 0;
    }
  }
  if (PARTS.includes("replay")) await replayCost();
  process.exit(ok ? 0 : 1);
}

await main();
