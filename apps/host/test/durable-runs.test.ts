/**
 * Durable runs, proven on a fixed small sample (the 500-run campaign is bench/durable-runs.mjs): real hosts run
 * programs of several calls each — reads, an idempotent PUT inside a `Promise.all`, a non-idempotent POST carrying a
 * key unique to the run and a `Math.random()` nonce, after a clock read (a resumed run must get both again) —
 * against a local upstream that answers after a random delay and counts what reaches it
 * (test/support/durable-api.mjs). Hosts are SIGKILLed at random moments while the runs go on:
 *
 * - SQLite: the one host, restarted on the same data directory after each kill;
 * - PostgreSQL: an `api` host that stays, and two `worker` hosts of which the busier is SIGKILLed each round and a
 *   new one started (the reaper hands the lost worker's runs to another once its lease ran out: 5 s here, short yet
 *   one a loaded machine renews).
 *
 * An operator stands by: a POST that was in flight at a kill is not re-sent on its own; its run waits on an
 * approval. The operator denies the re-send when the upstream already counted that key (approving it would send it
 * twice) and approves it when it did not; the program reads a denied order back (`getOrder`), so its output is the
 * same either way. In the end every run is idle and `success` with the output an uninterrupted run gives, every
 * POST key reached the upstream exactly once, no approval is left pending, and only POSTs asked for one (with the
 * re-send question). Some run must have been resumed (`executions.attempts`), or the sample proved nothing.
 *
 * No timed assertions: each step waits for what it expects; the test's timeout is the only clock. A round's kill
 * comes once the upstream received the POSTs of a random number of the round's runs, drawn from a seeded generator
 * (DURABLE_SEED replays the draws; the upstream's delays and the hosts' pace still vary from run to run).
 */
import { seededRandom } from "@cyrnel/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { scaled } from "../../../vitest.shared.mjs";
import { eventually } from "./support/cluster.js";
import { databaseEnv, queryDatabase, testDialect } from "./support/database.js";
import {
  type DurableApi,
  type DurableOutput,
  durableProgram,
  expectedOutput,
  orderKey,
  startDurableApi,
} from "./support/durable-api.mjs";
import { type ApiHost, type StartOptions, startHost, type TestHost, tempDir } from "./support/host.js";
import { queryPostgres } from "./support/postgres.js";

/** Runs of the sample, submitted in ROUNDS rounds; a host is SIGKILLed at a random moment of each round. */
const RUNS = 30;
const ROUNDS = 3;
/** The upstream answers each call after 0 to this many ms: kills land on calls in flight. */
const MAX_DELAY_MS = 150;
/** Runs of a round are submitted one by one, this many ms (at most) apart, so a kill finds them at every stage. */
const MAX_SUBMIT_GAP_MS = 40;
const SEED = Number(process.env.DURABLE_SEED ?? 20261129);
const SECRETS_KEY = Buffer.alloc(32, 9).toString("base64");

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Decision {
  approvalId: number;
  processId: number;
  toolId: string;
  key: string | undefined;
  decision: "approve" | "deny";
  /** What the operator was asked (`null`: the policy's usual question). */
  question: string | null;
  /** The upstream's count of the key's POST when the operator decided. */
  arrived: number;
}

/**
 * The operator: while running, decides every pending approval of the `durable` service through `api()` (the current
 * host: a killed one's requests fail and are tried again on the next pass). A re-send of a POST the upstream counted
 * already is denied; one it never received is approved.
 */
function standBy(api: () => ApiHost, upstream: DurableApi) {
  const decisions: Decision[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const pending = await api().api("GET", "/approvals?state=pending&serviceId=durable&limit=100");
        for (const item of pending.body.items ?? []) {
          const whole = await api().api("GET", `/approvals/${item.id}`);
          const key: string | undefined = whole.body.parameters?.body?.key;
          const arrived = key === undefined ? 0 : upstream.posts(key);
          const decision = arrived > 0 ? "deny" : "approve";
          const decided = await api().api("POST", `/approvals/${item.id}/${decision}`, {
            reason: decision === "deny" ? "the upstream already has this order" : "the upstream never received it",
          });
          if (decided.status !== 200) continue;
          decisions.push({
            approvalId: item.id,
            processId: item.processId,
            toolId: item.toolId,
            key,
            decision,
            question: item.question ?? null,
            arrived,
          });
        }
      } catch {
        // The host went down between two requests: the next pass asks the host that replaced it.
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

/**
 * Submits runs `from`..`to - 1` of `campaign` through `host` at random gaps, then waits for a random point of the
 * round: until the upstream received the POSTs of a random number (at least one) of the round's runs, so the kill
 * that follows finds runs at every stage, some past their POST (whose replay must not send it again).
 */
async function round(
  host: ApiHost,
  upstream: DurableApi,
  random: () => number,
  campaign: string,
  [from, to]: [number, number],
  ids: Map<number, number>,
) {
  const posts = 1 + Math.floor(random() * (to - from - 1));
  for (let index = from; index < to; index++) {
    const created = await host.api("POST", "/processes", {
      code: durableProgram(campaign, index),
      timeoutMs: scaled(600_000),
    });
    expect(created.status, created.text).toBe(201);
    ids.set(index, created.body.id);
    await pause(Math.floor(random() * MAX_SUBMIT_GAP_MS));
  }
  const posted = () => Array.from({ length: to - from }, (_, i) => upstream.posts(orderKey(campaign, from + i)) > 0);
  await eventually(() => posted().filter(Boolean).length >= posts, 5);
}

/** Runs whose POST has reached the upstream now (taken right before a kill: resumed, they replay it). */
function posted(ids: Map<number, number>, upstream: DurableApi, campaign: string): number[] {
  return [...ids].filter(([index]) => upstream.posts(orderKey(campaign, index)) > 0).map(([, id]) => id);
}

/** Processes not idle now, through `host`. */
async function notIdle(host: ApiHost, ids: Iterable<number>): Promise<number[]> {
  const states = await Promise.all(
    [...ids].map(async (id) => ({ id, state: (await host.api("GET", `/processes/${id}`)).body.state as string })),
  );
  return states.filter((entry) => entry.state !== "idle").map((entry) => entry.id);
}

/**
 * The index of the worker running the most unfinished runs now (ties drawn at random): the queue may give every run
 * to one worker, and killing an idle one proves nothing.
 */
async function busiest(workers: readonly TestHost[], databaseUrl: string, random: () => number): Promise<number> {
  const hostIds = await Promise.all(workers.map(async (worker) => (await worker.api("GET", "/health")).body.hostId));
  const rows = await queryPostgres<{ host: string; runs: string }>(
    databaseUrl,
    "select claimed_by as host, count(*) as runs from executions where finished_at is null group by claimed_by",
  );
  const runs = hostIds.map((id) => Number(rows.find((row) => row.host === id)?.runs ?? 0));
  const most = Math.max(...runs);
  const candidates = runs.flatMap((count, index) => (count === most ? [index] : []));
  return candidates[Math.floor(random() * candidates.length)]!;
}

async function install(host: ApiHost, upstream: DurableApi) {
  const installed = await host.api("POST", "/services", {
    id: "durable",
    adapter: "openapi",
    definition: upstream.definition,
  });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("POST", "/services/durable/enabled", { enabled: true })).status).toBe(200);
  const policy = await host.api("PUT", "/services/durable/policy", { default: "allow", rules: [] });
  expect(policy.status, policy.text).toBe(200);
  const tools = await host.api("GET", "/tools?serviceId=durable");
  const annotations = Object.fromEntries(
    tools.body.items.map((tool: { id: string; annotations: Record<string, boolean> }) => [tool.id, tool.annotations]),
  );
  // What the replay decides on: GET is read-only, PUT idempotent, POST neither.
  expect(annotations.getItem).toMatchObject({ readOnly: true });
  expect(annotations.putItem).toMatchObject({ readOnly: false, idempotent: true });
  expect(annotations.createOrder).toMatchObject({ readOnly: false, idempotent: false });
}

/** Every run idle and `success` with the uninterrupted output; every POST key received once; approvals as said. */
async function expectProven(
  host: ApiHost,
  campaign: string,
  ids: Map<number, number>,
  upstream: DurableApi,
  decisions: readonly Decision[],
) {
  const ended: { index: number; exitState: string; error: string | null; output: DurableOutput | null }[] = [];
  for (const [index, id] of ids) {
    const { body } = await host.api("GET", `/processes/${id}`);
    expect(body.state, `run ${index}`).toBe("idle");
    const output = body.exitState === "success" ? (await host.api("GET", `/processes/${id}/output`)).body : null;
    ended.push({ index, exitState: body.exitState, error: body.error, output });
  }
  const failures = ended.filter((run) => run.exitState !== "success");
  expect(failures, "runs that did not end success").toEqual([]);
  for (const run of ended) expect(run.output, `run ${run.index}`).toEqual(expectedOutput(campaign, run.index));
  const posts = [...ids.keys()].map((index) => ({
    key: orderKey(campaign, index),
    arrivals: upstream.posts(orderKey(campaign, index)),
  }));
  expect(
    posts.filter((post) => post.arrivals !== 1),
    "POST keys that did not reach the upstream exactly once",
  ).toEqual([]);
  // Only a non-idempotent call in flight asks, with the re-send question (the policy allows every call): reads and
  // the PUT are sent again on their own.
  expect(decisions.filter((decision) => decision.toolId !== "createOrder")).toEqual([]);
  for (const decision of decisions) expect(decision.question, `approval ${decision.approvalId}`).toMatch(/in flight/);
  expect((await host.api("GET", "/approvals?state=pending")).body.items).toEqual([]);
}

/** The runs (process ids) resumed at least once: their execution had more than one attempt. */
const RESUMED_SQL = "select process_id as id from executions where attempts > 1";

const summary = (
  kills: number,
  resumed: readonly number[],
  caught: ReadonlySet<number>,
  decisions: readonly Decision[],
) =>
  `seed ${SEED}: ${kills} kills, ${resumed.length} runs resumed ` +
  `(${resumed.filter((id) => caught.has(id)).length} of them after their POST reached the upstream), ` +
  `${decisions.filter((d) => d.decision === "deny").length} re-sends denied, ` +
  `${decisions.filter((d) => d.decision === "approve").length} approved`;

describe.skipIf(testDialect() !== "sqlite")("durable runs (SQLite): the host SIGKILLed and restarted", () => {
  let upstream: DurableApi | undefined;
  let host: TestHost | undefined;
  afterEach(async () => {
    await host?.kill();
    await upstream?.close();
  });

  it(
    "ends every run as an uninterrupted one, every POST once, nothing stuck",
    async () => {
      const random = seededRandom(SEED);
      upstream = await startDurableApi({ maxDelayMs: MAX_DELAY_MS });
      const options: StartOptions = { env: { CYRNEL_SECRETS_KEY: SECRETS_KEY } };
      host = await startHost(options);
      await install(host, upstream);
      const operator = standBy(() => host!, upstream);
      const campaign = "sqlite";
      const ids = new Map<number, number>();
      let kills = 0;
      const caught = new Set<number>();
      try {
        for (let r = 0; r < ROUNDS; r++) {
          await round(host, upstream, random, campaign, [(r * RUNS) / ROUNDS, ((r + 1) * RUNS) / ROUNDS], ids);
          for (const id of posted(ids, upstream, campaign)) caught.add(id);
          await host.kill();
          kills++;
          host = await startHost({ ...options, dataDir: host.dataDir });
        }
        const finalHost = host;
        await eventually(async () => (await notIdle(finalHost, ids.values())).length === 0, 250);
      } finally {
        await operator.stop();
      }
      const resumed = (await queryDatabase<{ id: number }>(host.dataDir, RESUMED_SQL)).map((row) => Number(row.id));
      console.log(`durable runs (SQLite) ${summary(kills, resumed, caught, operator.decisions)}`);
      await expectProven(host, campaign, ids, upstream, operator.decisions);
      // The kills must have caught runs mid-way, or the sample proves nothing.
      expect(resumed.length).toBeGreaterThan(0);
    },
    scaled(600_000),
  );
});

describe.skipIf(testDialect() !== "postgres")("durable runs (PostgreSQL): worker hosts SIGKILLed", () => {
  let upstream: DurableApi | undefined;
  const hosts: TestHost[] = [];
  afterAll(async () => {
    for (const host of hosts) await host.kill();
    await upstream?.close();
  });

  it(
    "ends every run as an uninterrupted one, every POST once, nothing stuck",
    async () => {
      const random = seededRandom(SEED);
      upstream = await startDurableApi({ maxDelayMs: MAX_DELAY_MS });
      const env = {
        CYRNEL_DATABASE_URL: (await databaseEnv(tempDir())).CYRNEL_DATABASE_URL!,
        CYRNEL_SECRETS_KEY: SECRETS_KEY,
        CYRNEL_LEASE_MS: "5000",
      };
      const start = async (role: "api" | "worker") => {
        const host = await startHost({ env: { ...env, CYRNEL_ROLE: role } });
        hosts.push(host);
        return host;
      };
      const api = await start("api");
      await install(api, upstream);
      // Started after the install: a starting host reads the services from the database.
      const workers = [await start("worker"), await start("worker")];
      const operator = standBy(() => api, upstream);
      const campaign = "postgres";
      const ids = new Map<number, number>();
      let kills = 0;
      const caught = new Set<number>();
      try {
        for (let r = 0; r < ROUNDS; r++) {
          await round(api, upstream, random, campaign, [(r * RUNS) / ROUNDS, ((r + 1) * RUNS) / ROUNDS], ids);
          for (const id of posted(ids, upstream, campaign)) caught.add(id);
          const victim = await busiest(workers, env.CYRNEL_DATABASE_URL, random);
          await workers[victim]!.kill();
          kills++;
          workers[victim] = await start("worker");
        }
        await eventually(async () => (await notIdle(api, ids.values())).length === 0, 250);
      } finally {
        await operator.stop();
      }
      const resumed = (await queryPostgres<{ id: number }>(env.CYRNEL_DATABASE_URL, RESUMED_SQL)).map((row) =>
        Number(row.id),
      );
      console.log(`durable runs (PostgreSQL) ${summary(kills, resumed, caught, operator.decisions)}`);
      await expectProven(api, campaign, ids, upstream, operator.decisions);
      expect(resumed.length).toBeGreaterThan(0);
    },
    scaled(600_000),
  );
});
