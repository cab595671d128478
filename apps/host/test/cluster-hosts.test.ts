/**
 * Processes across hosts, proven with real `cyrnel start` hosts on one fresh
 * PostgreSQL database: a service is installed and configured through one api
 * host, processes are submitted through a second, killed and approved through
 * a third, and run by two worker hosts, one of which is SIGKILLed mid-run.
 * Every tool call goes to a local upstream that counts calls per tag (one
 * tag per process): nothing is lost, nothing runs twice, nothing stays
 * `running`, and the killed worker's processes are resumed by the other
 * worker once its lease (2 s here) has run out (runs are durable: their
 * read in flight at the kill is sent again, being read-only).
 *
 * Worker hosts serve only `GET /health`, so the API goes through three `api`
 * hosts (the install host, the submit host, the control host) beside the
 * two workers.
 *
 * PostgreSQL only (the PostgreSQL pass of `pnpm test`): many hosts need a
 * shared database. No timed assertions: each step waits for what it expects,
 * and the test's timeout is the only clock.
 *
 * The workers start after the install and configuration (a starting host
 * reads the services from the database); the last test installs a service
 * after they started, which reaches them through the change feed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./support/cluster.js";
import { type CounterApi, startCounterApi } from "./support/counter-api.js";
import { databaseEnv, testDialect } from "./support/database.js";
import { startHost, type TestHost, tempDir } from "./support/host.js";
import { queryPostgres } from "./support/postgres.js";
import { followProcess, readEvents } from "./support/process-events.js";

const API_KEY = "cluster-hosts-admin-key";
const COUNTER_KEY = "counter-upstream-key";
/** Base64 of 32 bytes: every host must open the secrets the install host sealed. */
const SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

/** One call of the counter's `hit` tool tagged `tag` (held by the upstream until released, with `hold`). */
const hit = (tag: string, hold = false) =>
  `const r = await cyrnel.services.counter.tools.hit.invoke({ tag: ${JSON.stringify(tag)}, hold: ${hold} });\n` +
  `console.log("hit " + r.tag);\ncyrnel.output({ tag: r.tag, count: r.count });`;

type Expected = "success" | "canceled" | "resumed" | "frozen" | "denied" | "unrun-canceled" | "unrun-timeout";

describe.skipIf(testDialect() !== "postgres")("processes across hosts (PostgreSQL: api and worker hosts)", () => {
  let counter: CounterApi;
  let databaseUrl: string;
  let env: Record<string, string>;
  let install: TestHost;
  let submit: TestHost;
  let control: TestHost;
  let workers: TestHost[] = [];
  const hosts: TestHost[] = [];
  /** Every process submitted: its tag (one upstream call each) and how it must end. */
  const submitted = new Map<number, { tag: string; expected: Expected }>();

  const query = <Row>(sql: string, params: unknown[] = []) => queryPostgres<Row>(databaseUrl, sql, params);

  const start = async (role: "api" | "worker") => {
    const host = await startHost({ env: { ...env, CYRNEL_ROLE: role } });
    hosts.push(host);
    return host;
  };

  /** POST /processes through the submit host, recorded with how it must end. */
  const run = async (tag: string, code: string, expected: Expected) => {
    const created = await submit.api("POST", "/processes", { code, timeoutMs: 120_000 });
    expect(created.status, created.text).toBe(201);
    submitted.set(created.body.id, { tag, expected });
    return created.body.id as number;
  };

  const idle = (host: TestHost, id: number) =>
    eventually(async () => {
      const { body } = await host.api("GET", `/processes/${id}`);
      return body.state === "idle" && body;
    }, 50);

  beforeAll(async () => {
    counter = await startCounterApi(COUNTER_KEY);
    databaseUrl = (await databaseEnv(tempDir())).CYRNEL_DATABASE_URL!;
    env = {
      CYRNEL_DATABASE_URL: databaseUrl,
      CYRNEL_SECRETS_KEY: SECRETS_KEY,
      CYRNEL_API_KEY: API_KEY,
      CYRNEL_LEASE_MS: "2000",
    };
    install = await start("api");
  });

  afterAll(async () => {
    for (const host of hosts) await host.stop();
    await counter?.close();
  });

  it("installs and configures a service through one api host, then starts the other hosts", async () => {
    const installed = await install.api("POST", "/services", {
      id: "counter",
      adapter: "openapi",
      definition: counter.definition,
    });
    expect(installed.status, installed.text).toBe(201);
    expect((await install.api("PATCH", "/services/counter/secrets", { counterKey: COUNTER_KEY })).status).toBe(200);
    expect((await install.api("POST", "/services/counter/enabled", { enabled: true })).status).toBe(200);
    const policy = await install.api("PUT", "/services/counter/policy", {
      rules: [{ tools: "guarded", action: "ask" }],
    });
    expect(policy.status, policy.text).toBe(200);

    // One after another: hosts starting together on a loaded 2-core machine would make every start slower.
    submit = await start("api");
    control = await start("api");
    workers = [await start("worker"), await start("worker")];
    for (const [host, role] of [
      [install, "api"],
      [submit, "api"],
      [control, "api"],
      [workers[0]!, "worker"],
      [workers[1]!, "worker"],
    ] as const) {
      const health = await host.api("GET", "/health");
      expect(health.body).toMatchObject({ status: "ok", role, hostId: expect.stringMatching(/^h[0-9a-f]{16}$/) });
      expect(health.body.leaseAlive).toBe(true);
    }
    // Five hosts, five leases.
    expect(await query("SELECT id FROM cluster_hosts")).toHaveLength(5);
    // A worker serves the health check only, and says where the API is.
    const refused = await workers[0]!.api("GET", "/processes");
    expect(refused.status).toBe(404);
    expect(refused.body.error).toContain("CYRNEL_ROLE=worker");
  });

  it("runs processes submitted through a second host on the workers: block, events, many at once", async () => {
    const blocked = await submit.api("POST", "/processes", { code: hit("block-1"), block: true });
    expect(blocked.status, blocked.text).toBe(201);
    submitted.set(blocked.body.id, { tag: "block-1", expected: "success" });
    expect(blocked.body).toMatchObject({ state: "idle", exitState: "success", output: { tag: "block-1", count: 1 } });
    expect(blocked.body.stdout).toBe("hit block-1\n");
    // The worker wrote the run's call record before its end: the api host that answered counts it.
    expect(blocked.body.calls).toMatchObject({ count: 1, failed: 0 });
    // An api host never runs a process: a worker claimed it.
    const [claim] = await query<{ claimed_by: string }>("SELECT claimed_by FROM executions WHERE process_id = $1", [
      blocked.body.id,
    ]);
    const workerIds = await Promise.all(workers.map(async (w) => (await w.api("GET", "/health")).body.hostId));
    expect(workerIds).toContain(claim!.claimed_by);

    // The event stream, from a host other than the one running it: the text so far, a call, then the end.
    const followed = await run(
      "events-1",
      `console.log("before");\n${hit("events-1", true)}\nconsole.log("after");`,
      "success",
    );
    const reader = await followProcess(control, followed);
    const early = await readEvents(reader, (event) => event.type === "stdout" && event.text.includes("before"));
    expect(early.some((event) => event.type === "end")).toBe(false);
    counter.release("events-1");
    const events = await readEvents(reader, (event) => event.type === "end");
    const text = [...early, ...events]
      .filter((event) => event.type === "stdout")
      .map((event) => event.text)
      .join("");
    expect(text).toBe("before\nhit events-1\nafter\n");
    expect(events.some((event) => event.type === "call" && event.toolId === "hit")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "end", process: { exitState: "success" } });

    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => run(`many-${i}`, hit(`many-${i}`), "success")));
    for (const id of many) expect(await idle(control, id)).toMatchObject({ exitState: "success" });
  });

  it("kills and approves through a third host", async () => {
    const victim = await run("kill-1", hit("kill-1", true), "canceled");
    await counter.held(["kill-1"]);
    const killed = await control.api("POST", `/processes/${victim}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);
    expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled" });
    expect((await control.api("POST", `/processes/${victim}/signals/kill`)).status).toBe(409);

    const asking = await run(
      "approve-1",
      "const r = await cyrnel.services.counter.tools.guarded.invoke({ tag: 'approve-1' });\ncyrnel.output(r);",
      "success",
    );
    const suspended = await eventually(async () => {
      const { body } = await control.api("GET", `/processes/${asking}`);
      return body.state === "suspended" && body;
    }, 50);
    expect(suspended.pendingApprovalIds).toHaveLength(1);
    const approved = await control.api("POST", `/approvals/${suspended.pendingApprovalIds[0]}/approve`, {});
    expect(approved.status, approved.text).toBe(200);
    expect(await idle(submit, asking)).toMatchObject({ exitState: "success" });
    expect((await submit.api("GET", `/processes/${asking}/output`)).body).toEqual({ tag: "approve-1", count: 1 });

    const denying = await run(
      "deny-1",
      "await cyrnel.services.counter.tools.guarded.invoke({ tag: 'deny-1' });",
      "denied",
    );
    const waiting = await eventually(async () => {
      const { body } = await submit.api("GET", `/processes/${denying}`);
      return body.pendingApprovalIds.length === 1 && body;
    }, 50);
    const denied = await control.api("POST", `/approvals/${waiting.pendingApprovalIds[0]}/deny`, { reason: "no" });
    expect(denied.status, denied.text).toBe(200);
    const ended = await idle(submit, denying);
    expect(ended).toMatchObject({ exitState: "failed" });
    expect(ended.error).toContain("denied");
  });

  it("resumes the runs of a SIGKILLed worker on the other one after its lease; every run succeeds", async () => {
    const workerIds = await Promise.all(workers.map(async (w) => (await w.api("GET", "/health")).body.hostId));
    // Held calls until both workers have at least one: which worker takes a run is the queue's business.
    const held: { id: number; tag: string; host: string }[] = [];
    for (let i = 0; held.length < 40 && new Set(held.map((run) => run.host)).size < 2; i++) {
      const tag = `held-${i}`;
      const id = await run(tag, hit(tag, true), "success");
      await counter.held([tag]);
      const [row] = await query<{ claimed_by: string }>("SELECT claimed_by FROM executions WHERE process_id = $1", [
        id,
      ]);
      held.push({ id, tag, host: row!.claimed_by });
    }
    expect(new Set(held.map((run) => run.host))).toEqual(new Set(workerIds));
    const [lost, kept] = [workers[0]!, workers[1]!];
    const lostId = workerIds[0];
    for (const run of held) if (run.host === lostId) submitted.get(run.id)!.expected = "resumed";

    await lost.kill();
    // The reaper removed the lost host and put its runs back in the queue: the kept worker resumes them (a new
    // attempt each), sending their held read again.
    await eventually(async () => {
      const rows = await query<{ id: string }>("SELECT id FROM cluster_hosts");
      return !rows.map((row) => row.id).includes(lostId);
    });
    for (const run of held) counter.release(run.tag);
    for (const run of held) expect(await idle(control, run.id)).toMatchObject({ exitState: "success" });
    for (const run of held.filter((run) => run.host === lostId)) {
      const [row] = await query<{ claimed_by: string; attempts: number }>(
        "SELECT claimed_by, attempts FROM executions WHERE process_id = $1",
        [run.id],
      );
      expect(row).toMatchObject({ claimed_by: workerIds[1], attempts: 2 });
    }
    // The remaining worker takes everything from now on.
    const after = await Promise.all(
      Array.from({ length: 5 }, (_, i) => run(`after-${i}`, hit(`after-${i}`), "success")),
    );
    for (const id of after) expect(await idle(submit, id)).toMatchObject({ exitState: "success" });
    expect((await kept.api("GET", "/health")).body.leaseAlive).toBe(true);
  });

  it("a worker that stood still past its lease finds it lost, touches nothing reaped and exits non-zero", async () => {
    const frozen = workers[1]!;
    const frozenId = (await frozen.api("GET", "/health")).body.hostId;
    const id = await run("frozen-1", hit("frozen-1", true), "frozen");
    await counter.held(["frozen-1"]);
    // Stopped (as by a long pause of its VM): it cannot renew, the other hosts reap it and queue its run again —
    // for no one: it was the last worker.
    frozen.child.kill("SIGSTOP");
    await eventually(async () => (await submit.api("GET", `/processes/${id}`)).body.state === "queued");
    expect((await query<{ id: string }>("SELECT id FROM cluster_hosts")).map((row) => row.id)).not.toContain(frozenId);
    // Woken, it sees its lease ran out: it lets go of its run (which the reaper already took from it) and exits 1.
    frozen.child.kill("SIGCONT");
    expect(await frozen.waitForExit()).toBe(1);
    counter.release("frozen-1");
    expect((await submit.api("GET", `/processes/${id}`)).body).toMatchObject({ state: "queued", exitState: null });
    const killed = await control.api("POST", `/processes/${id}/signals/kill`);
    expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled" });
  });

  it("with no worker left, a run waits in the queue: a kill cancels it at once, its timeout ends it", async () => {
    // Both workers are gone (one killed, one exited): no host that runs processes holds a lease.
    expect(await query("SELECT id FROM cluster_hosts WHERE role <> 'api'")).toEqual([]);
    const waiting = await run("unrun-1", hit("unrun-1"), "unrun-canceled");
    expect((await control.api("GET", `/processes/${waiting}`)).body.state).toBe("queued");
    const killed = await control.api("POST", `/processes/${waiting}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);
    expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled", error: "canceled" });

    // A blocked request answers once the sweep (every host runs it) ended the run at its timeout.
    const blocked = await control.api("POST", "/processes", { code: hit("unrun-2"), timeoutMs: 1_000, block: true });
    expect(blocked.status, blocked.text).toBe(201);
    submitted.set(blocked.body.id, { tag: "unrun-2", expected: "unrun-timeout" });
    expect(blocked.body).toMatchObject({
      state: "idle",
      exitState: "timeout",
      error: "timed out after 1000 ms waiting in the queue; the code never ran",
    });
  });

  it("lost nothing and ran nothing twice: every process idle as expected, every call made exactly once", async () => {
    const rows = await query<{ id: number; state: string; exit_state: string; error: string | null }>(
      "SELECT id, state, exit_state, error FROM processes ORDER BY id",
    );
    expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual([...submitted.keys()].sort((a, b) => a - b));
    for (const row of rows) {
      const { tag, expected } = submitted.get(row.id)!;
      expect(row.state, tag).toBe("idle");
      if (expected === "resumed") expect(row.exit_state, tag).toBe("success");
      else if (expected === "frozen") expect(row.exit_state, tag).toBe("canceled");
      else if (expected === "denied") expect(row.exit_state, tag).toBe("failed");
      else expect(row.exit_state, tag).toBe(expected.replace("unrun-", ""));
      // One call per process reached the upstream — a lost worker's call too, before it died, and again when the run
      // resumed (a read in flight is sent again) — except a denied one and those no host ever took.
      const calls = expected === "denied" || expected.startsWith("unrun-") ? 0 : expected === "resumed" ? 2 : 1;
      expect(counter.counts.get(tag) ?? 0, tag).toBe(calls);
    }
    expect(counter.unauthorized).toBe(0);
    expect(await query("SELECT id FROM executions WHERE finished_at IS NULL")).toEqual([]);
    // The lost workers' jobs went with their runs: none is left locked by a dead host (graphile-worker alone would
    // keep them locked for 4 hours, then as failed jobs for good). Those of runs no host took wait for one.
    expect(await query("SELECT key FROM graphile_worker.jobs WHERE locked_at IS NOT NULL OR attempts > 0")).toEqual([]);
  });

  it("refuses the api and worker roles without PostgreSQL, saying why", async () => {
    for (const role of ["api", "worker"]) {
      // An empty CYRNEL_DATABASE_URL is no URL: the host would be on SQLite.
      const host = await startHost({ env: { CYRNEL_ROLE: role, CYRNEL_DATABASE_URL: "" }, expectListening: false });
      expect(await host.waitForExit()).toBe(1);
      expect(host.output.join("\n")).toContain(`CYRNEL_ROLE: "${role}" needs a shared PostgreSQL database`);
    }
  });

  // Changes reach running hosts: a service installed through one host after the workers started is called from
  // them like the first.
  it("calls a service installed after the workers started", async () => {
    // The workers above are gone: a new one, running before the service exists.
    const worker = await start("worker");
    await eventually(async () => (await worker.api("GET", "/health")).body.leaseAlive === true, 50);
    const installed = await install.api("POST", "/services", {
      id: "counter2",
      adapter: "openapi",
      definition: counter.definition,
    });
    expect(installed.status, installed.text).toBe(201);
    expect((await install.api("PATCH", "/services/counter2/secrets", { counterKey: COUNTER_KEY })).status).toBe(200);
    expect((await install.api("POST", "/services/counter2/enabled", { enabled: true })).status).toBe(200);
    const result = await submit.api("POST", "/processes", {
      code: "cyrnel.output(await cyrnel.services.counter2.tools.hit.invoke({ tag: 'late-1' }));",
      block: true,
    });
    expect(result.body).toMatchObject({ exitState: "success", output: { tag: "late-1", count: 1 } });
    // The new worker also took the jobs of the runs canceled while no worker was left, and ran none of them.
    await eventually(async () => (await query("SELECT id FROM graphile_worker.jobs")).length === 0, 50);
    expect(counter.counts.get("late-1")).toBe(1);
  });
});
