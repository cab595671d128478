// Suspended runs: RUNS (1,000) runs waiting on approvals cost rows, not sandbox memory, outlive every restart of
// their host, and all complete once decided.
//
// One host per dialect with CYRNEL_SUSPEND_EVICT_MS=EVICT_MS (500): a run that waits for an approval longer than
// that is evicted (its isolate dropped, its process `suspended` as rows). The sandbox is given room for fewer runs
// than RUNS (MAX_EXECUTIONS, 100, plus a queue of as many): 1,000 runs can only all be waiting at once if the
// evicted ones hold no room. Service `durable` is the counting upstream of the durable-runs proof
// (apps/host/test/support/durable-api.mjs), its non-idempotent `createOrder` under `ask`. Each run reads an item,
// then creates an order with a key unique to the run (the write the approval holds), then outputs both.
// Submissions answered 429 `at_capacity` are retried after their Retry-After.
//
// Measured at each point: the RSS of the host's sandbox process(es) (its children running the sandbox's
// worker/main.js, found through /proc as apps/host/test/sandbox-process.test.ts does), of the host, and
// `GET /stats` `capacity.live` (executions holding an isolate) and `processes.live.suspended`:
// - `warm`: the host after one plain run (the sandbox process exists, nothing waits);
// - `50 suspended`: once 50 runs have a pending approval (some may still hold their isolate);
// - `all suspended, evicted`: every run has a pending approval and `capacity.live` is 0;
// - `restart (SIGTERM)` and `restart (SIGKILL)`: the host stopped that way, started again on the same data, every run
//   still `suspended` (RESTART_SETTLE_MS, 3,000, after the start: nothing should resume by itself);
// - `all completed`: the approvals approved in chunks of CHUNK (200, `POST /approvals/decisions`), every process idle.
// The peak sandbox RSS while the runs were being submitted and suspended is printed too (sampled every 25 ms).
//
// Checks (exit 1 unless all hold): every run ended `success` with the output an uninterrupted run gives, every
// write (POST) reached the upstream exactly once, every read too (a resumed run answers it from its journal), every
// run had its approval pending before the decisions, none stuck (not idle STUCK_MS, 300 s, after the last decision),
// no run resumed before its decision (still RUNS suspended after each restart). At 854fb2b SQLite fails it: decided
// runs past the sandbox's room + queue end `failed` at capacity instead of waiting (figures in README.md).
//
// Not part of `pnpm bench`: `node --no-node-snapshot suspended-runs.mjs`. DIALECTS=sqlite,postgres (default sqlite),
// RUNS, EVICT_MS, MAX_EXECUTIONS, CHUNK, STUCK_MS, RESTART_SETTLE_MS.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { itemValue, orderKey, startDurableApi } from "../apps/host/test/support/durable-api.mjs";
import { startHost } from "./lib/host.mjs";
import { rssMb } from "./lib/memory.mjs";
import { startPostgres } from "./lib/postgres.mjs";

const RUNS = Number(process.env.RUNS ?? 1000);
const EVICT_MS = Number(process.env.EVICT_MS ?? 500);
const MAX_EXECUTIONS = Number(process.env.MAX_EXECUTIONS ?? 100);
const CHUNK = Number(process.env.CHUNK ?? 200);
const STUCK_MS = Number(process.env.STUCK_MS ?? 300_000);
const RESTART_SETTLE_MS = Number(process.env.RESTART_SETTLE_MS ?? 3000);
const DIALECTS = (process.env.DIALECTS ?? "sqlite").split(",").filter(Boolean);
const SECRETS_KEY = Buffer.alloc(32, 9).toString("base64");
/** The first measure point: a few dozen runs waiting, as a busy agent fleet might leave at any time. */
const FEW = Math.min(50, RUNS);

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The host's sandbox processes: its direct children running the sandbox's worker (not, e.g., a type checker). */
function sandboxesOf(pid) {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => {
      try {
        const ppid = Number(readFileSync(`/proc/${child}/stat`, "utf8").split(") ")[1].split(" ")[1]);
        return ppid === pid && readFileSync(`/proc/${child}/cmdline`, "utf8").includes("worker/main.js");
      } catch {
        return false;
      }
    });
}

const sandboxRssMb = (pid) => sandboxesOf(pid).reduce((sum, child) => sum + rssMb(child), 0);

/** The program of run `index`: a read, then the write an operator must approve, then what both answered. */
function program(campaign, index) {
  const key = orderKey(campaign, index);
  const tools = "cyrnel.services.durable.tools";
  return `
const key = ${JSON.stringify(key)};
const item = await ${tools}.getItem.invoke({ name: key + "-a" });
const order = await ${tools}.createOrder.invoke({ body: { key, amount: item.value, nonce: 0 } });
cyrnel.output({ key, value: item.value, amount: order.amount });
`;
}

function expectedOutput(campaign, index) {
  const key = orderKey(campaign, index);
  const value = itemValue(`${key}-a`);
  return { key, value, amount: value };
}

/** POST /processes, retried after Retry-After when the sandbox is at capacity; the process id and the 429s met. */
async function submit(host, code) {
  let refused = 0;
  for (;;) {
    const answer = await host.request("POST", "/processes", { code, timeoutMs: 3_600_000 });
    if (answer.status === 201) return { id: answer.body.id, refused };
    if (answer.status !== 429) throw new Error(`POST /processes → ${answer.status}: ${answer.text.slice(0, 300)}`);
    refused++;
    await pause(Number(answer.headers.get("retry-after") ?? 1) * 1000);
  }
}

/** Every pending approval of `durable` (paged, 1000 a page). */
async function pendingApprovals(host) {
  const items = [];
  let cursor = null;
  do {
    const page = await host.api(
      "GET",
      `/approvals?state=pending&serviceId=durable&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    items.push(...page.items);
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return items;
}

/** `work` on each item, at most `limit` at once (a thousand requests at once get connections reset); the answers. */
async function eachLimited(items, work, limit = 16) {
  const answers = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return answers;
}

/** Polls `check` every `everyMs` until it answers true; throws after `timeoutMs` with `what`. */
async function until(check, what, timeoutMs = STUCK_MS, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(everyMs);
  }
}

async function campaign(dialect) {
  const upstream = await startDurableApi({ maxDelayMs: 0 });
  const postgres = dialect === "postgres" ? await startPostgres() : null;
  const env = {
    CYRNEL_SECRETS_KEY: SECRETS_KEY,
    CYRNEL_SUSPEND_EVICT_MS: String(EVICT_MS),
    // Every run waits on one approval at once, all under one (absent) key: the per-key cap must not refuse them.
    CYRNEL_PENDING_APPROVALS_LIMIT: String(RUNS * 2),
    // Undecided approvals expire after this; the campaign must finish well before, whatever the machine.
    CYRNEL_APPROVAL_TIMEOUT_MS: String(3_600_000),
  };
  if (postgres) env.CYRNEL_DATABASE_URL = await postgres.database();
  // A data directory of our own: stop() keeps one it was given, so the host's SIGTERM restart finds its rows.
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-suspended-"));
  let host = await startHost(env, undefined, { dataDir });
  const points = [];
  const measure = async (point) => {
    const stats = await host.api("GET", "/stats");
    const row = {
      point,
      sandboxes: sandboxesOf(host.pid).length,
      sandboxRssMb: Math.round(sandboxRssMb(host.pid)),
      hostRssMb: Math.round(rssMb(host.pid)),
      capacityLive: stats.capacity?.live ?? null,
      suspended: stats.processes.live.suspended,
      pendingApprovals: stats.approvals.pending,
    };
    points.push(row);
    console.log(`  ${dialect}: ${JSON.stringify(row)}`);
    return row;
  };
  const hosts = [host];
  try {
    await host.api("PATCH", "/modules/typescript-ivm/config", {
      maxExecutions: MAX_EXECUTIONS,
      queueSize: MAX_EXECUTIONS,
    });
    await host.api("POST", "/services", { id: "durable", adapter: "openapi", definition: upstream.definition });
    await host.api("POST", "/services/durable/enabled", { enabled: true });
    await host.api("PUT", "/services/durable/policy", {
      default: "allow",
      rules: [{ tools: "createOrder", action: "ask" }],
    });
    // One plain run first: the sandbox process is started and warm, as on any host that has run something.
    const warm = await host.api("POST", "/processes", { code: "cyrnel.output({ warm: true });", block: true });
    if (warm.exitState !== "success") throw new Error(`warm-up run: ${JSON.stringify(warm)}`);
    await measure("warm");

    // The runs, submitted as fast as the host admits them; the sandbox's RSS sampled meanwhile for its peak.
    let peakSandboxMb = 0;
    const sampler = setInterval(() => {
      peakSandboxMb = Math.max(peakSandboxMb, sandboxRssMb(host.pid));
    }, 25);
    const ids = [];
    let refused = 0;
    const started = Date.now();
    let fewMeasured = false;
    for (let index = 0; index < RUNS; index++) {
      const submitted = await submit(host, program(dialect, index));
      ids.push(submitted.id);
      refused += submitted.refused;
      if (!fewMeasured && index + 1 === FEW) {
        await until(async () => (await host.api("GET", "/stats")).approvals.pending >= FEW, `${FEW} approvals`);
        await measure(`${FEW} suspended`);
        fewMeasured = true;
      }
    }
    await until(async () => (await host.api("GET", "/stats")).approvals.pending >= RUNS, `${RUNS} approvals`);
    const suspendedAfterMs = Date.now() - started;
    // Evicted: no execution holds an isolate any more (each one EVICT_MS after its approval was asked for).
    await until(async () => (await host.api("GET", "/stats")).capacity?.live === 0, "every run evicted");
    clearInterval(sampler);
    // Every run, not just as many approvals: each process has its own one pending.
    const pending = await pendingApprovals(host);
    const waiting = new Set(pending.map((approval) => approval.processId));
    const withoutApproval = ids.filter((id) => !waiting.has(id)).length;
    await measure(`all ${RUNS} suspended, evicted`);

    // Restarts: a graceful stop, then a crash, each followed by a start on the same data. The runs are rows; the
    // new host must neither lose them nor resume them before their decision.
    const resumedEarly = [];
    for (const how of ["SIGTERM", "SIGKILL"]) {
      if (how === "SIGTERM") await host.stop();
      else await host.kill();
      host = await startHost(env, undefined, { dataDir });
      hosts.push(host);
      await pause(RESTART_SETTLE_MS);
      const row = await measure(`restart (${how})`);
      if (row.suspended !== RUNS || row.pendingApprovals !== RUNS) resumedEarly.push(how);
    }

    // The operator approves them all, in chunks, as a console's bulk action would.
    const decideStarted = Date.now();
    const all = await pendingApprovals(host);
    let decided = 0;
    for (let from = 0; from < all.length; from += CHUNK) {
      const answer = await host.api("POST", "/approvals/decisions", {
        ids: all.slice(from, from + CHUNK).map((approval) => approval.id),
        decision: "approve",
        reason: "bench",
      });
      decided += answer.decided;
    }
    // Done when no process is live by the rows (`GET /stats`: one indexed count, not 1,000 requests to a host busy
    // resuming 1,000 runs), or STUCK_MS after the last decision; then which ones are not idle, a few at a time.
    const lastDecision = Date.now();
    const live = async () => {
      const counts = (await host.api("GET", "/stats")).processes.live;
      return Object.values(counts).reduce((a, b) => a + b, 0);
    };
    while ((await live()) > 0 && Date.now() - lastDecision < STUCK_MS) await pause(500);
    const completedAfterMs = Date.now() - decideStarted;
    if (!host.alive()) throw new Error("the host died while the runs resumed");
    const records = await eachLimited(ids, (id) => host.api("GET", `/processes/${id}`));
    const open = ids.filter((_, i) => records[i].state !== "idle");
    await measure("all completed");

    let failed = 0;
    let wrong = 0;
    const errors = new Map();
    for (const [index, id] of ids.entries()) {
      const record = records[index];
      if (record.state !== "idle") continue;
      if (record.exitState !== "success") {
        failed++;
        const error = `${record.exitState}: ${record.error}`;
        errors.set(error, (errors.get(error) ?? 0) + 1);
      } else if (!isDeepStrictEqual(await host.api("GET", `/processes/${id}/output`), expectedOutput(dialect, index)))
        wrong++;
    }
    const posts = ids.map((_, index) => upstream.posts(orderKey(dialect, index)));
    const reads = ids.map((_, index) => upstream.counts.get(`GET item ${orderKey(dialect, index)}-a`) ?? 0);
    const figures = {
      dialect,
      runs: ids.length,
      refused429: refused,
      suspendedAfterSeconds: Math.round(suspendedAfterMs / 1000),
      peakSandboxRssMbWhileSuspending: Math.round(peakSandboxMb),
      withoutApproval,
      resumedBeforeDecision: resumedEarly,
      decided,
      completedAfterSeconds: Math.round(completedAfterMs / 1000),
      failed,
      wrongOutput: wrong,
      postDuplicates: posts.filter((n) => n > 1).length,
      postMissing: posts.filter((n) => n === 0).length,
      readsResent: reads.filter((n) => n > 1).length,
      stuck: open.length,
      errors: Object.fromEntries(errors),
    };
    console.log(`${dialect}: ${JSON.stringify(figures)}`);
    console.table(points);
    return figures;
  } finally {
    for (const each of hosts) await each.kill();
    await host.stop();
    postgres?.stop();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `suspended runs: ${RUNS} runs per dialect (${DIALECTS.join(", ")}), evicted after ${EVICT_MS} ms, sandbox room ${MAX_EXECUTIONS} + queue ${MAX_EXECUTIONS}`,
  );
  let ok = true;
  for (const dialect of DIALECTS) {
    const figures = await campaign(dialect);
    ok &&=
      figures.failed === 0 &&
      figures.wrongOutput === 0 &&
      figures.postDuplicates === 0 &&
      figures.postMissing === 0 &&
      figures.readsResent === 0 &&
      figures.withoutApproval === 0 &&
      figures.resumedBeforeDecision.length === 0 &&
      figures.decided === RUNS &&
      figures.stuck === 0;
  }
  process.exit(ok ? 0 : 1);
}

await main();
