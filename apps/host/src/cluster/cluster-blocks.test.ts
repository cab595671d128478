/**
 * The blocks together, without the host: one `api` host and two `worker`
 * hosts on one database. The api host enqueues processes, follows their
 * output, kills one and decides an approval; the workers take runs from the
 * queue and execute a stand-in for the environment (a tiny "program" per
 * process). A change made through one host reaches the others. What the
 * host does at each step (process-cluster.ts, change-sync.ts) is named in
 * the comments.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectHost, Inbox, type TestHostConnections } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { createRunClaimsTable, TableRunClaims } from "../../test/support/table-run-claims.js";
import { ChangeFeed, type ReceivedChange } from "./change-feed.js";
import { HostLeases, type HostRole } from "./host-leases.js";
import { ProcessQueue } from "./process-queue.js";
import { ProcessSignals, type RunControl } from "./process-signals.js";
import type { QueuedRun } from "./run-claims.js";
import type { FollowEvent, RunEvent, RunSnapshot } from "./run-events.js";
import { inTransaction } from "./sql.js";

const postgres = usePostgres();

interface Host extends TestHostConnections {
  leases: HostLeases;
  feed: ChangeFeed;
  signals: ProcessSignals;
  claims: TableRunClaims;
  queue: ProcessQueue;
  changes: Inbox<ReceivedChange>;
}

/** A promise and the function that settles it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("the cluster blocks together", () => {
  let url: string;
  const hosts: Host[] = [];

  beforeEach(async () => {
    url = await postgres.server.createHostDatabase();
    const pool = new pg.Pool({ connectionString: url });
    await createRunClaimsTable(pool);
    await ProcessQueue.migrate(pool);
    // Stand-ins for the host's processes (with their text so far and end) and approvals, named apart from its tables.
    await pool.query(`
      CREATE TABLE blocks_processes (id int PRIMARY KEY, execution_id int NOT NULL, program text NOT NULL,
        stdout text NOT NULL DEFAULT '', stderr text NOT NULL DEFAULT '', ended boolean NOT NULL DEFAULT false,
        exit_state text);
      CREATE TABLE blocks_approvals (id serial PRIMARY KEY, process_id int NOT NULL, state text NOT NULL DEFAULT 'pending');`);
    await pool.end();
  });

  afterEach(async () => {
    for (const host of hosts.splice(0).reverse()) {
      await host.queue.stop();
      await host.signals.stop();
      await host.leases.stop();
      await host.close();
    }
  });

  async function startHost(hostId: string, role: HostRole): Promise<Host> {
    const connections = await connectHost(url, hostId);
    const { pool, listener } = connections;
    const claims = new TableRunClaims(pool);
    const leases = new HostLeases({ pool, role, hostId, leaseMs: 10_000 });
    await leases.start();
    const feed = new ChangeFeed({ pool, listener, hostId });
    const changes = new Inbox<ReceivedChange>();
    // The host refreshes what each change kind names (change-sync.ts); a gap reloads everything.
    await feed.subscribe(changes.push, { onMissed: () => {} });
    const signals = new ProcessSignals({ pool, listener, hostId, flushIntervalMs: 50 });
    await signals.start();
    const queue = new ProcessQueue({ pool, hostId, claims, isAlive: () => leases.isAlive() });
    const host: Host = { ...connections, leases, feed, signals, claims, queue, changes };
    // CYRNEL_ROLE=api hosts only enqueue; all and worker hosts take runs.
    if (role !== "api") await queue.start({ concurrency: 4, handler: (run) => execute(host, run) });
    hosts.push(host);
    return host;
  }

  /**
   * The worker's side of a run, as `ProcessCluster.execute` does it: attach
   * (signals and the event publisher), read the kill mark, run, then end the
   * stream after writing the final row.
   */
  async function execute(host: Host, run: QueuedRun): Promise<void> {
    const { pool, signals, claims } = host;
    const killed = deferred<string>();
    const decided = new Map<number, () => void>();
    const control: RunControl = {
      kill: (reason) => killed.resolve(reason ?? "killed"),
      approvalDecided: (approvalId) => decided.get(approvalId)?.(),
      resync: async () => {
        if (await claims.killRequested(run.executionId)) killed.resolve("killed");
        for (const [approvalId, wake] of decided) {
          const { rows } = await pool.query("SELECT state FROM blocks_approvals WHERE id = $1", [approvalId]);
          if (rows[0]?.state !== "pending") wake();
        }
      },
    };
    const { publisher } = signals.attach(run, control, async (text) => {
      await pool.query("UPDATE blocks_processes SET stdout = $2, stderr = $3 WHERE id = $1 AND NOT ended", [
        run.processId,
        text.stdout,
        text.stderr,
      ]);
    });
    await control.resync?.();
    const { rows } = await pool.query("SELECT program FROM blocks_processes WHERE id = $1", [run.processId]);
    const program: string = rows[0].program;
    let exitState = "success";
    const stopped = killed.promise.then(() => "killed" as const);
    if (program.startsWith("print:")) {
      for (let i = 0; i < Number(program.slice(6)); i++) publisher.write("stdout", `line ${i} from ${host.hostId}\n`);
    } else if (program === "loop") {
      // Runs until killed, writing as it goes.
      for (let i = 0; ; i++) {
        publisher.write("stdout", `tick ${i}\n`);
        const tick = new Promise<"tick">((resolve) => setTimeout(() => resolve("tick"), 10));
        if ((await Promise.race([stopped, tick])) === "killed") {
          exitState = "canceled";
          break;
        }
      }
    } else if (program === "ask") {
      // A tool call under an `ask` policy: an approval row, its event, then the wait for a decision.
      const approval = await pool.query("INSERT INTO blocks_approvals (process_id) VALUES ($1) RETURNING id", [
        run.processId,
      ]);
      const approvalId: number = approval.rows[0].id;
      const woken = new Promise<void>((resolve) => decided.set(approvalId, resolve));
      publisher.publish({ type: "approval", id: approvalId, state: "pending" });
      await woken;
      const { rows: decision } = await pool.query("SELECT state FROM blocks_approvals WHERE id = $1", [approvalId]);
      publisher.publish({ type: "approval", id: approvalId, state: decision[0].state });
      publisher.write("stdout", `the call was ${decision[0].state}\n`);
    }
    await publisher.end(async () => {
      await pool.query(
        "UPDATE blocks_processes SET stdout = $2, stderr = $3, ended = true, exit_state = $4 WHERE id = $1",
        [run.processId, publisher.stdout, publisher.stderr, exitState],
      );
      await claims.finish(run.executionId, host.hostId, exitState);
    });
  }

  /** `POST /processes` on an api host: the process row, its run's claim row and its job, in one transaction. */
  async function submit(api: Host, processId: number, program: string): Promise<QueuedRun> {
    const run = { processId, executionId: processId * 10 };
    await inTransaction(api.pool, async (tx) => {
      await tx.query("INSERT INTO blocks_processes (id, execution_id, program) VALUES ($1, $2, $3)", [
        processId,
        run.executionId,
        program,
      ]);
      await api.claims.record(run, tx);
      await api.queue.enqueue(run, tx);
    });
    return run;
  }

  /** `GET /processes/:id/events` on any host. */
  async function follow(host: Host, processId: number) {
    const text: string[] = [];
    const events: FollowEvent[] = [];
    const read = async (): Promise<RunSnapshot> => {
      const { rows } = await host.pool.query(
        'SELECT execution_id AS "executionId", stdout, stderr, ended FROM blocks_processes WHERE id = $1',
        [processId],
      );
      return rows[0];
    };
    const followed = await host.signals.follow(processId, read, (event) => {
      if (event.type === "stdout") text.push(event.text as string);
      else events.push(event);
    });
    return { followed, events, stdout: () => followed.stdout + text.join("") };
  }

  async function processRow(host: Host, processId: number) {
    const { rows } = await host.pool.query("SELECT stdout, ended, exit_state FROM blocks_processes WHERE id = $1", [
      processId,
    ]);
    return rows[0];
  }

  it("changes, runs, output, kills and approvals cross hosts", async () => {
    const api = await startHost("api", "api");
    const worker1 = await startHost("worker-1", "worker");
    const worker2 = await startHost("worker-2", "worker");

    // A change made through the api host reaches both workers (and not the api host itself).
    await api.feed.publish({ kind: "service", id: "github", action: "updated" });
    expect(await worker1.changes.next()).toMatchObject({ kind: "service", id: "github", origin: "api" });
    expect(await worker2.changes.next()).toMatchObject({ kind: "service", id: "github", origin: "api" });
    expect(api.changes.pending).toEqual([]);

    // Runs go to whichever worker takes them; the api host follows one's output from its start to its end.
    const printRun = await submit(api, 1, "print:500");
    const printer = await follow(api, 1);
    const printed = await printer.followed.done;
    expect(printed.ended).toBe(true);
    expect(printer.stdout()).toBe(printed.stdout);
    expect(printer.stdout().split("\n")).toHaveLength(501);
    expect((await api.claims.get(printRun.executionId))?.outcome).toBe("success");

    // A kill from the api host reaches the worker that runs the process.
    const loopRun = await submit(api, 2, "loop");
    const looper = await follow(api, 2);
    await eventually(async () => (await api.claims.get(loopRun.executionId))?.claimedBy != null);
    expect(await api.claims.requestKill(loopRun.executionId)).toBe("signal");
    await api.signals.kill(2, "canceled by an operator");
    await looper.followed.done;
    expect(await processRow(api, 2)).toMatchObject({ ended: true, exit_state: "canceled" });
    expect(looper.stdout()).toBe((await processRow(api, 2)).stdout);

    // A kill before any worker claimed the run cancels it in the database: no worker runs it.
    await worker1.queue.stop();
    await worker2.queue.stop();
    const unclaimed = await submit(api, 3, "print:1");
    expect(await api.claims.requestKill(unclaimed.executionId)).toBe("canceled");
    expect(await api.claims.get(unclaimed.executionId)).toMatchObject({ claimedBy: null, outcome: "canceled" });
  });

  it("an approval decided on the api host lets the run on a worker go on", async () => {
    const api = await startHost("api", "api");
    await submit(api, 4, "ask");
    const asker = await follow(api, 4);
    // The worker starts once the follower listens: an event published before that is not replayed (the real
    // host's readers list pending approvals from the database; this harness only follows).
    await startHost("worker-1", "worker");
    // The follower sees the approval being created (the API would list it as pending).
    await eventually(async () => asker.events.length > 0);
    const [created] = asker.events;
    expect(created).toMatchObject({ type: "approval", state: "pending" });

    // `POST /approvals/:id/approve`: the conditional update, then the signal to whoever runs the process.
    const approvalId = (created as RunEvent).id as number;
    await api.pool.query("UPDATE blocks_approvals SET state = 'approved' WHERE id = $1 AND state = 'pending'", [
      approvalId,
    ]);
    await api.signals.approvalDecided(4, approvalId, "approved");

    const final = await asker.followed.done;
    expect(final.stdout).toBe("the call was approved\n");
    expect(asker.stdout()).toBe(final.stdout);
    expect(asker.events).toEqual([
      { type: "approval", id: approvalId, state: "pending" },
      { type: "approval", id: approvalId, state: "approved" },
    ]);
  });
});

async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
