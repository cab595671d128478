/**
 * Database faults under load (PostgreSQL): one `api` host and two `worker`
 * hosts on a throw-away PostgreSQL server of this test's own, while clients
 * keep submitting blocking runs that make a read and a write (a POST, neither
 * read-only nor idempotent) to an upstream that counts them per run. At
 * moments drawn from a logged seed the test terminates every backend of the
 * database (what a failover, a pooler restart or `idle_session_timeout` does)
 * several times, and restarts the server twice.
 *
 * Afterwards: every host is alive and healthy; no request answered 500; every
 * run the database holds reached a final state (none `queued` or `running`);
 * no POST reached the upstream twice; and every POST that did has its call
 * record. No timed assertions: each step waits for what it expects, and the
 * test's timeout is the only clock. A longer campaign with a report of each
 * round is `bench/database-faults.mjs`.
 */

import { seededRandom } from "@cyrnel/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./support/cluster.js";
import { type CounterApi, startCounterApi } from "./support/counter-api.js";
import { testDialect } from "./support/database.js";
import { type ApiResponse, startHost, type TestHost } from "./support/host.js";
import { queryPostgres, startThrowawayPostgres, type ThrowawayPostgres } from "./support/postgres.js";

const API_KEY = "database-faults-admin-key";
const COUNTER_KEY = "database-faults-counter-key";
const SECRETS_KEY = Buffer.alloc(32, 9).toString("base64");
const CLIENTS = 4;
const TERMINATIONS = 4;
const RESTARTS = 2;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One run: a read and a write of its own tag, then its output. */
const program = (tag: string) =>
  `const read = await cyrnel.services.counter.tools.hit.invoke({ tag: ${JSON.stringify(`${tag}-read`)} });\n` +
  `const write = await cyrnel.services.counter.tools.record.invoke({ tag: ${JSON.stringify(tag)} });\n` +
  "cyrnel.output({ read: read.count, write: write.count });";

describe.skipIf(testDialect() !== "postgres")("database faults under load (PostgreSQL: api + 2 workers)", () => {
  let server: ThrowawayPostgres;
  let databaseUrl: string;
  let counter: CounterApi;
  let api: TestHost;
  const hosts: TestHost[] = [];
  /** Every answer a client or a check got, by status. */
  const statuses = new Map<number, number>();
  const failures: string[] = [];

  const note = (response: ApiResponse, what: string) => {
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500 && response.status !== 503 && response.status !== 507) {
      failures.push(`${what}: ${response.status} ${response.text.slice(0, 300)}`);
    }
    return response;
  };

  /** On the hosts' database (`admin`: on the server's own, for what is done to the server). */
  const query = <Row>(sql: string, params: unknown[] = [], admin = false) =>
    queryPostgres<Row>(admin ? server.adminUrl : databaseUrl, sql, params);

  beforeAll(async () => {
    server = await startThrowawayPostgres({ own: true });
    await query("CREATE DATABASE faults", [], true);
    const url = new URL(server.adminUrl);
    url.pathname = "/faults";
    databaseUrl = url.toString();
    counter = await startCounterApi(COUNTER_KEY);
    const env = {
      CYRNEL_DATABASE_URL: databaseUrl,
      CYRNEL_SECRETS_KEY: SECRETS_KEY,
      CYRNEL_API_KEY: API_KEY,
      // Longer than a restart takes on a loaded machine: the hosts ride out the faults, none is reaped.
      CYRNEL_LEASE_MS: "60000",
    };
    api = await startHost({ env: { ...env, CYRNEL_ROLE: "api" } });
    hosts.push(api);
    expect(
      (await api.api("POST", "/services", { id: "counter", adapter: "openapi", definition: counter.definition }))
        .status,
    ).toBe(201);
    expect((await api.api("PATCH", "/services/counter/secrets", { counterKey: COUNTER_KEY })).status).toBe(200);
    expect((await api.api("POST", "/services/counter/enabled", { enabled: true })).status).toBe(200);
    for (let i = 0; i < 2; i++) hosts.push(await startHost({ env: { ...env, CYRNEL_ROLE: "worker" } }));
  });

  afterAll(async () => {
    for (const host of hosts) await host.kill();
    await counter?.close();
    server?.stop();
  });

  it("keeps every host alive, ends every run, sends no POST twice, records each POST, and never answers 500", async () => {
    const seed = Number(process.env.CYRNEL_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`database faults: seed ${seed} (CYRNEL_FAULT_SEED=${seed} replays this order)`);
    const next = seededRandom(seed);
    let loading = true;
    let submitted = 0;

    const client = async (index: number) => {
      for (let n = 0; loading; n++) {
        const tag = `c${index}-${n}`;
        submitted++;
        try {
          note(
            await api.api("POST", "/processes", { code: program(tag), ref: tag, block: true, timeoutMs: 60_000 }),
            `run ${tag}`,
          );
        } catch (error) {
          failures.push(`run ${tag}: no answer (${(error as Error).message})`);
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));

    // The faults, in a shuffled order, each after a random moment of load.
    const faults = [
      ...Array.from({ length: TERMINATIONS }, () => "terminate" as const),
      ...Array.from({ length: RESTARTS }, () => "restart" as const),
    ].sort(() => next() - 0.5);
    for (const fault of faults) {
      await pause(500 + Math.floor(next() * 2_500));
      if (fault === "restart") {
        server.restart("fast");
      } else {
        const ended = await query<{ pid: number }>(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'faults' AND pid <> pg_backend_pid()",
          [],
          true,
        );
        expect(ended.length).toBeGreaterThan(0);
      }
    }
    await pause(2_000);
    loading = false;
    await Promise.all(clients);
    expect(submitted).toBeGreaterThan(CLIENTS);

    // Every host alive and healthy again.
    for (const host of hosts) {
      expect(host.exitCode, host.output.slice(-20).join("\n")).toBeNull();
      await eventually(async () => (await host.api("GET", "/health")).body.status === "ok", 200);
    }

    // Every run the database holds ends (its host retries its end until the database is back).
    const runs = await eventually(async () => {
      const rows = await query<{ id: number; ref: string; state: string; exit_state: string | null }>(
        "SELECT id, ref, state, exit_state FROM processes ORDER BY id",
      );
      return rows.every((row) => row.state === "idle") && rows;
    }, 500);
    expect(runs.length).toBeGreaterThan(0);

    // No POST twice; each POST that reached the upstream has its call record.
    const refs = new Map(runs.map((run) => [run.ref, run]));
    for (const [tag, count] of counter.counts) {
      if (tag.endsWith("-read")) continue;
      expect(count, `POSTs of ${tag}`).toBe(1);
      const run = refs.get(tag);
      expect(run, `the run that POSTed ${tag}`).toBeDefined();
      const calls = note(await api.api("GET", `/calls?processId=${run!.id}&limit=100`), `calls of ${tag}`);
      expect(calls.status).toBe(200);
      expect(
        calls.body.items.some((call: { toolId: string }) => call.toolId === "record"),
        `the call record of ${tag}'s POST`,
      ).toBe(true);
    }
    // A run that ended well made its POST.
    for (const run of runs.filter((row) => row.exit_state === "success")) {
      expect(counter.counts.get(run.ref), `the POST of ${run.ref}`).toBe(1);
    }
    console.log(
      `database faults: ${submitted} runs submitted, ${runs.length} recorded, ` +
        `${runs.filter((row) => row.exit_state === "success").length} succeeded; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(failures).toEqual([]);
  }, 600_000);
});
