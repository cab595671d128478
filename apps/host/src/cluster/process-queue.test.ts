import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import type { WorkerEvents } from "graphile-worker";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventually, Inbox } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { createRunClaimsTable, TableRunClaims } from "../../test/support/table-run-claims.js";
import { HostLeases } from "./host-leases.js";
import { DEFAULT_POLL_INTERVAL_MS, ProcessQueue, runKey, type WorkerStart } from "./process-queue.js";
import { type QueuedRun, type RunClaims, WORKER_LOST } from "./run-claims.js";
import { inTransaction } from "./sql.js";

const postgres = usePostgres();
const supportDir = join(import.meta.dirname, "..", "..", "test", "support");

interface WorkerHost {
  hostId: string;
  pool: pg.Pool;
  leases: HostLeases;
  queue: ProcessQueue;
}

describe("ProcessQueue", () => {
  let url: string;
  let pool: pg.Pool;
  let claims: TableRunClaims;
  /** The API host's side: it only enqueues. */
  let api: ProcessQueue;
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    url = await postgres.server.createHostDatabase();
    pool = new pg.Pool({ connectionString: url, max: 10 });
    await createRunClaimsTable(pool);
    await ProcessQueue.migrate(pool);
    await pool.query("CREATE TABLE ran (execution_id bigint NOT NULL, host text NOT NULL)");
    claims = new TableRunClaims(pool);
    api = new ProcessQueue({ pool, hostId: "api", claims });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await pool.end();
  });

  /** A worker host in this process: its own pool, a lease, and the queue started with `worker`. */
  async function startWorker(
    hostId: string,
    worker: Partial<WorkerStart> & {
      claims?: RunClaims;
      strandedAfterMs?: number;
      /** Subscribes to the queue's events before it starts (so its first fetches are seen). */
      observe?: (events: WorkerEvents) => void;
    } = {},
  ): Promise<WorkerHost> {
    const hostPool = new pg.Pool({ connectionString: url, max: 8 });
    const leases = new HostLeases({ pool: hostPool, role: "worker", hostId, leaseMs: 10_000 });
    await leases.start();
    const queue = new ProcessQueue({
      pool: hostPool,
      hostId,
      claims: worker.claims ?? new TableRunClaims(hostPool),
      isAlive: () => leases.isAlive(),
      ...(worker.strandedAfterMs === undefined ? {} : { strandedAfterMs: worker.strandedAfterMs }),
    });
    cleanups.push(async () => {
      await queue.stop();
      await leases.stop();
      await hostPool.end();
    });
    const recordRun = async (run: QueuedRun) => {
      await hostPool.query("INSERT INTO ran (execution_id, host) VALUES ($1, $2)", [run.executionId, hostId]);
    };
    worker.observe?.(queue.events);
    await queue.start({
      concurrency: worker.concurrency ?? 4,
      handler: worker.handler ?? recordRun,
      ...(worker.hasRoom ? { hasRoom: worker.hasRoom } : {}),
    });
    return { hostId, pool: hostPool, leases, queue };
  }

  /** Writes the runs' rows and their jobs in one transaction, as `POST /processes` will. */
  async function enqueue(runs: QueuedRun[]): Promise<void> {
    await inTransaction(pool, async (tx) => {
      for (const run of runs) {
        await claims.record(run, tx);
        await api.enqueue(run, tx);
      }
    });
  }

  function runs(count: number, firstProcess = 1): QueuedRun[] {
    return Array.from({ length: count }, (_, i) => ({ processId: firstProcess + i, executionId: firstProcess + i }));
  }

  async function ranCounts(): Promise<Map<number, string[]>> {
    const { rows } = await pool.query("SELECT execution_id, host FROM ran ORDER BY execution_id");
    const counts = new Map<number, string[]>();
    for (const row of rows as Array<{ execution_id: string; host: string }>) {
      const id = Number(row.execution_id);
      counts.set(id, [...(counts.get(id) ?? []), row.host]);
    }
    return counts;
  }

  async function jobsLeft(): Promise<number> {
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM graphile_worker.jobs");
    return rows[0].n;
  }

  it("runs each of 200 runs exactly once across two workers, and ignores a run delivered again", async () => {
    await startWorker("worker-1");
    await startWorker("worker-2");

    await enqueue(runs(200));
    await eventually(async () => (await ranCounts()).size === 200);
    await eventually(async () => (await jobsLeft()) === 0);

    const counts = await ranCounts();
    expect([...counts.keys()]).toEqual(runs(200).map((run) => run.executionId));
    expect([...counts.values()].filter((hosts) => hosts.length !== 1)).toEqual([]);
    const byHost = new Set([...counts.values()].flat());
    expect(byHost).toEqual(new Set(["worker-1", "worker-2"]));

    // The queue delivers run 7 again (a duplicate job): its claim is taken, so nothing runs.
    await api.enqueue({ processId: 7, executionId: 7 });
    await eventually(async () => (await jobsLeft()) === 0);
    expect((await ranCounts()).get(7)).toHaveLength(1);
  });

  it("migrates a new database once when hosts start together", async () => {
    // Hosts starting at once on a database that has no queue schema yet: each with its own pool, as hosts have.
    const fresh = await postgres.server.createDatabase();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: fresh, max: 3 }));
    try {
      await Promise.all(pools.map((hostPool) => ProcessQueue.migrate(hostPool)));
      const { rows } = await pools[0]!.query("SELECT count(*)::int AS n FROM graphile_worker.jobs");
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await Promise.all(pools.map((hostPool) => hostPool.end()));
    }
  });

  it("picks a run up through NOTIFY, not polling", async () => {
    const started = new Inbox<QueuedRun>();
    const looked = new Inbox<"empty">();
    await startWorker("worker-1", {
      concurrency: 1,
      handler: async (run) => started.push(run),
      observe: (events) => events.on("worker:getJob:empty", () => looked.push("empty")),
    });
    // Idle: its first look found nothing, so without a notification it would look again only after the poll interval.
    await looked.next();
    expect(DEFAULT_POLL_INTERVAL_MS).toBe(60_000);

    await enqueue(runs(1));

    // This test's timeout (20 s) is far below the poll interval: only the notification can have woken the worker.
    expect(await started.next()).toEqual({ processId: 1, executionId: 1 });
  }, 20_000);

  it("adds the same job from SQL in the caller's statement (addJobSql) as enqueue does", async () => {
    await pool.query(
      `WITH claim AS (INSERT INTO cluster_run_claims (execution_id, process_id) VALUES (7, 3) RETURNING *)
       SELECT ${api.addJobSql("claim.process_id", "claim.execution_id")} FROM claim`,
    );
    // The same key as enqueue's (the stranded sweep matches runs to jobs by it), one attempt, the run flag.
    const { rows } = await pool.query(
      "SELECT key, max_attempts, flags FROM graphile_worker.jobs WHERE task_identifier = 'cyrnel_run'",
    );
    expect(rows).toEqual([
      { key: runKey({ processId: 3, executionId: 7 }), max_attempts: 1, flags: { cyrnel_run: true } },
    ]);
    const started = new Inbox<QueuedRun>();
    await startWorker("worker-1", { concurrency: 1, handler: async (run) => started.push(run) });
    expect(await started.next()).toEqual({ processId: 3, executionId: 7 });
  }, 20_000);

  it("leaves a run in the queue while no worker has room, for a worker with room to take", async () => {
    const looked = new Inbox<"empty">();
    await startWorker("full", {
      concurrency: 1,
      hasRoom: () => false,
      observe: (events) => events.on("worker:getJob:empty", () => looked.push("empty")),
    });
    await looked.next();

    await enqueue(runs(1));
    // Woken by the job's notification, the full worker looked and took nothing.
    await looked.next();
    const { rows } = await pool.query("SELECT locked_at FROM graphile_worker.jobs");
    expect(rows).toEqual([{ locked_at: null }]);
    expect((await claims.get(1))?.claimedBy).toBeNull();

    await startWorker("roomy");
    await eventually(async () => (await ranCounts()).size === 1);
    expect((await ranCounts()).get(1)).toEqual(["roomy"]);
  });

  it("runs at most `concurrency` runs at once on a worker", async () => {
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const done = new Inbox<number>();
    await startWorker("worker-1", {
      concurrency: 2,
      handler: async (run) => {
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        done.push(run.executionId);
      },
    });

    await enqueue(runs(6));
    for (let ended = 0; ended < 6; ended++) {
      await eventually(() => releases.length > 0);
      // Two runs hold both slots: the other jobs wait unlocked in the queue.
      if (ended <= 4) await eventually(() => running === 2);
      releases.shift()?.();
      await done.next();
    }

    expect(most).toBe(2);
  });

  it("replaces a worker that a database fault ended: the next run is still taken, and the lost worker's job goes", async () => {
    const started = new Inbox<number>();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await startWorker("w-fault", {
      concurrency: 1,
      handler: async (run) => {
        started.push(run.executionId);
        if (run.executionId === 1) await held;
      },
    });
    await enqueue(runs(1));
    expect(await started.next()).toBe(1);
    // Marking the job done waits behind a lock, and its connection is terminated there: graphile-worker ends that
    // worker for good (its only one here).
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE graphile_worker._private_jobs IN ACCESS EXCLUSIVE MODE");
    release();
    const waiting = await eventually(async () => {
      const { rows } = await pool.query(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%delete from%_private_jobs%'",
      );
      return rows[0]?.pid as number | undefined;
    }, 20);
    await pool.query("SELECT pg_terminate_backend($1)", [waiting]);
    await locker.query("ROLLBACK");
    await locker.end();

    await enqueue(runs(1, 2));
    expect(await started.next()).toBe(2);
    await eventually(async () => (await jobsLeft()) === 0, 50);
  });

  it("queues again a run whose job was taken by a host that never claimed it, and runs it once", async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const claimAsked = new Inbox<QueuedRun>();
    const realClaims = new TableRunClaims(pool);
    // A host that stands still between taking the job and claiming its run (as one that died there would).
    const stalled = await startWorker("stalled", {
      concurrency: 1,
      claims: {
        claim: async (run, hostId) => {
          claimAsked.push(run);
          await gate;
          return realClaims.claim(run, hostId);
        },
        unclaimed: (ids) => realClaims.unclaimed(ids),
        claimedBy: (id) => realClaims.claimedBy(id),
        waiting: (ms) => realClaims.waiting(ms),
      },
    });
    await enqueue(runs(1));
    await claimAsked.next();

    // Another worker sweeps for stranded jobs (locked longer than 300 ms without a claim), queues it again, runs it.
    await startWorker("sweeper", { strandedAfterMs: 300 });
    await eventually(async () => (await ranCounts()).size === 1);
    expect((await ranCounts()).get(1)).toEqual(["sweeper"]);
    // The job the stalled host still holds went when the run was queued again: none is left behind.
    expect(await jobsLeft()).toBe(0);

    // The stalled host wakes and claims: refused, so the run still happened once.
    openGate();
    await eventually(async () => (await jobsLeft()) === 0);
    expect((await ranCounts()).get(1)).toEqual(["sweeper"]);
    expect(stalled.leases.isAlive()).toBe(true);
  });

  it("queues again a run left without a job, and runs it once", async () => {
    // The run's row exists but its job is gone (its enqueue was lost with the database): nothing would deliver it.
    await claims.record({ processId: 1, executionId: 1 });
    await startWorker("sweeper", { strandedAfterMs: 300 });

    await eventually(async () => (await ranCounts()).size === 1);
    await eventually(async () => (await jobsLeft()) === 0);
    expect((await ranCounts()).get(1)).toEqual(["sweeper"]);
  });

  it("runs a run whose claim committed although its answer was lost, once", async () => {
    const realClaims = new TableRunClaims(pool);
    let failures = 0;
    await startWorker("worker-1", {
      claims: {
        // The claim reaches the database, then the connection "drops" before the answer.
        claim: async (run, hostId) => {
          const claimed = await realClaims.claim(run, hostId);
          if (failures++ < 3) throw new Error("Connection terminated unexpectedly");
          return claimed;
        },
        unclaimed: (ids) => realClaims.unclaimed(ids),
        claimedBy: (id) => realClaims.claimedBy(id),
        waiting: (ms) => realClaims.waiting(ms),
      },
    });

    await enqueue(runs(3));
    await eventually(async () => (await ranCounts()).size === 3);
    await eventually(async () => (await jobsLeft()) === 0);

    expect([...(await ranCounts()).values()]).toEqual([["worker-1"], ["worker-1"], ["worker-1"]]);
  });

  it("a SIGKILLed worker's runs end `worker lost` through the reaper and are not run again", async () => {
    // Every host runs the reaper; whichever reaps the killed host reports it here, with the runs it ended.
    const reports = new Inbox<{ by: string; host: string; executionIds: number[] }>();
    const reaper = new HostLeases({
      pool,
      role: "api",
      hostId: "api",
      leaseMs: 10_000,
      onHostsLost: async (hosts, tx) => {
        const ended = await claims.endRunsOfLostHosts(
          hosts.map((h) => h.id),
          tx,
        );
        for (const host of hosts) {
          reports.push({ by: "api", host: host.id, executionIds: ended.map((run) => run.executionId) });
        }
      },
    });
    await reaper.start();
    cleanups.push(() => reaper.stop());
    const children = ["child-1", "child-2"].map((hostId) => spawnWorker(hostId, reports.push));
    cleanups.push(async () => {
      for (const child of children) child.process.kill("SIGKILL");
    });
    await Promise.all(children.map((child) => child.line("ready")));

    // One run that never ends, and 30 short ones.
    await enqueue([{ processId: 1000, executionId: 1000 }, ...runs(30)]);
    const killed = await Promise.race(children.map((child) => child.line("running 1000").then(() => child)));
    const survivor = children.find((child) => child !== killed)!;
    killed.process.kill("SIGKILL");

    // Reaped once its lease (3 s) ran out, with the runs it had claimed: the endless one among them.
    const report = await reports.next();
    expect(report.host).toBe(killed.hostId);
    expect(report.executionIds).toContain(1000);
    // Every other run ends, on the survivor or (claimed before the kill) as lost: none stays queued or running.
    await eventually(async () => {
      const { rows } = await pool.query("SELECT count(*)::int AS n FROM cluster_run_claims WHERE ended_at IS NULL");
      return rows[0].n === 0;
    });

    const counts = await ranCounts();
    expect([...counts.values()].filter((hosts) => hosts.length !== 1)).toEqual([]);
    expect(counts.get(1000)).toEqual([killed.hostId]);
    const outcomes = await pool.query("SELECT execution_id, claimed_by, outcome FROM cluster_run_claims");
    for (const row of outcomes.rows as Array<{ execution_id: string; claimed_by: string; outcome: string }>) {
      const id = Number(row.execution_id);
      if (row.claimed_by === killed.hostId) {
        // The runs the killed host had: ended as lost, never run again elsewhere.
        expect(row.outcome).toBe(`failed: ${WORKER_LOST}`);
        expect(report.executionIds).toContain(id);
        // It may have died between claiming and the call: at most once, never elsewhere.
        expect([[], [killed.hostId]]).toContainEqual(counts.get(id) ?? []);
      } else {
        expect(row).toMatchObject({ claimed_by: survivor.hostId, outcome: "success" });
        expect(counts.get(id)).toEqual([survivor.hostId]);
      }
    }
    // Reported once, by one reaper.
    expect(reports.pending).toEqual([]);
  }, 60_000);

  function spawnWorker(
    hostId: string,
    onReaped: (report: { by: string; host: string; executionIds: number[] }) => void,
  ) {
    const child: ChildProcess = spawn(
      process.execPath,
      ["--import", join(supportDir, "ts-register.mjs"), join(supportDir, "cluster-worker.ts")],
      {
        env: { ...process.env, DATABASE_URL: url, HOST_ID: hostId, LEASE_MS: "3000" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const lines: string[] = [];
    const waiters: Array<{ line: string; resolve: () => void }> = [];
    let buffered = "";
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      buffered += chunk;
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        const reaped = /^reaped (\S+) (.*)$/.exec(line);
        if (reaped) onReaped({ by: hostId, host: reaped[1]!, executionIds: JSON.parse(reaped[2]!) });
        for (const waiter of waiters.filter((w) => w.line === line)) waiter.resolve();
      }
    });
    child.once("exit", (code, signal) => {
      if (signal !== "SIGKILL") throw new Error(`worker ${hostId} exited (${code}): ${stderr}`);
    });
    return {
      hostId,
      process: child,
      line: (line: string) =>
        lines.includes(line) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ line, resolve })),
    };
  }
});
