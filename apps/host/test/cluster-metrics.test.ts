/**
 * `cyrnel_processes_ended_total` and `cyrnel_processes_queue_timeouts_total`
 * on PostgreSQL count the runs that no executing host ended: the ones the
 * queue-timeout sweep ends (they waited for a host past their timeout) and
 * the ones the reaper ends (their host was lost). Whichever host swept or
 * reaped counts them, and only it: two `api` hosts sweep the same database,
 * and the sum of their figures is exactly one per run.
 *
 * Real `cyrnel start` hosts on one fresh database; a worker joins only for
 * the reaper's part, then is SIGKILLed mid-run. PostgreSQL only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./support/cluster.js";
import { type CounterApi, startCounterApi } from "./support/counter-api.js";
import { databaseEnv, testDialect } from "./support/database.js";
import { startHost, type TestHost, tempDir } from "./support/host.js";

const API_KEY = "cluster-metrics-admin-key";
const COUNTER_KEY = "counter-upstream-key";
const SECRETS_KEY = Buffer.alloc(32, 9).toString("base64");

/** The sum of the samples of `name` with these labels in a host's scrape (0 when it has none). */
async function sample(host: TestHost, name: string, labels = ""): Promise<number> {
  const response = await host.api("GET", "/metrics");
  expect(response.status, response.text).toBe(200);
  const line = response.text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

describe.skipIf(testDialect() !== "postgres")("metrics of the runs PostgreSQL's sweeps end", () => {
  let counter: CounterApi;
  let env: Record<string, string>;
  const hosts: TestHost[] = [];
  let apiHosts: TestHost[] = [];

  const start = async (role: "api" | "worker", extra: Record<string, string> = {}) => {
    const host = await startHost({ env: { ...env, ...extra, CYRNEL_ROLE: role } });
    hosts.push(host);
    return host;
  };
  /** A figure summed over the api hosts (each counts only what it ended itself). */
  const total = async (name: string, labels = "") => {
    let sum = 0;
    for (const host of apiHosts) sum += await sample(host, name, labels);
    return sum;
  };
  const idle = (id: number) =>
    eventually(async () => {
      const { body } = await apiHosts[0]!.api("GET", `/processes/${id}`);
      return body.state === "idle" && body;
    }, 50);

  beforeAll(async () => {
    counter = await startCounterApi(COUNTER_KEY);
    env = {
      CYRNEL_DATABASE_URL: (await databaseEnv(tempDir())).CYRNEL_DATABASE_URL!,
      CYRNEL_SECRETS_KEY: SECRETS_KEY,
      CYRNEL_API_KEY: API_KEY,
      // The sweep and the reaper run every lease/3; a lost host is reaped after its lease.
      CYRNEL_LEASE_MS: "1500",
    };
    const first = await start("api");
    const installed = await first.api("POST", "/services", {
      id: "counter",
      adapter: "openapi",
      definition: counter.definition,
    });
    expect(installed.status, installed.text).toBe(201);
    expect((await first.api("PATCH", "/services/counter/secrets", { counterKey: COUNTER_KEY })).status).toBe(200);
    expect((await first.api("POST", "/services/counter/enabled", { enabled: true })).status).toBe(200);
    apiHosts = [first, await start("api")];
  });
  afterAll(async () => {
    for (const host of hosts) await host.stop();
    await counter?.close();
  });

  it("a run nobody took before its timeout: one queue timeout, counted by the host that swept it", async () => {
    expect(await total("cyrnel_processes_ended_total", '{exit_state="timeout"}')).toBe(0);
    // No worker yet: the run waits in the queue until a sweep ends it.
    const created = await apiHosts[0]!.api("POST", "/processes", { code: "cyrnel.output({})", timeoutMs: 300 });
    expect(created.status, created.text).toBe(201);
    expect(await idle(created.body.id)).toMatchObject({ exitState: "timeout" });
    await eventually(async () => (await total("cyrnel_processes_queue_timeouts_total")) > 0);
    expect(await total("cyrnel_processes_queue_timeouts_total")).toBe(1);
    expect(await total("cyrnel_processes_ended_total", '{exit_state="timeout"}')).toBe(1);
    // Counted on one host only, whichever swept.
    const perHost = await Promise.all(
      apiHosts.map((host) => sample(host, "cyrnel_processes_ended_total", '{exit_state="timeout"}')),
    );
    expect(perHost.sort()).toEqual([0, 1]);
  });

  it("the runs of a SIGKILLed worker that cannot be resumed: ended failed by the reaper, counted once", async () => {
    // A journal limit of 1 byte: its runs are not durable, so the reaper ends them rather than queue them again.
    const worker = await start("worker", { CYRNEL_JOURNAL_LIMIT_BYTES: "1" });
    const tags = ["lost-a", "lost-b"];
    const ids: number[] = [];
    for (const tag of tags) {
      const created = await apiHosts[1]!.api("POST", "/processes", {
        code: `await cyrnel.services.counter.tools.hit.invoke({ tag: ${JSON.stringify(tag)}, hold: true });`,
        timeoutMs: 120_000,
      });
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.id);
    }
    await counter.held(tags);
    await worker.kill();
    for (const id of ids) {
      expect(await idle(id)).toMatchObject({ exitState: "failed", error: "interrupted: worker lost" });
    }
    await eventually(async () => (await total("cyrnel_processes_ended_total", '{exit_state="failed"}')) >= 2);
    expect(await total("cyrnel_processes_ended_total", '{exit_state="failed"}')).toBe(2);
    // Nothing else moved: the queue timeout stays one.
    expect(await total("cyrnel_processes_queue_timeouts_total")).toBe(1);
    for (const tag of tags) counter.release(tag);
  });
});
