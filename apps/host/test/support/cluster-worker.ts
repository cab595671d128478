/**
 * A worker host as a child process, for the tests that SIGKILL one: it
 * holds a lease, takes runs from the queue, and records every run it
 * starts in `ran` (the stand-in for a tool call: it must happen at most
 * once per execution). A run whose process id is at least 1000 never ends
 * (the test kills the host while it runs). It prints `ready` once it takes
 * work, `running <executionId>` when a run starts, and, as every host runs
 * the lease reaper, `reaped <hostId> <JSON execution ids>` when it ends the
 * runs of a lost host.
 *
 * Env: DATABASE_URL, HOST_ID, LEASE_MS.
 */
import pg from "pg";
import { HostLeases } from "../../src/cluster/host-leases.js";
import { ProcessQueue } from "../../src/cluster/process-queue.js";
import { TableRunClaims } from "./table-run-claims.js";

const url = process.env.DATABASE_URL;
const hostId = process.env.HOST_ID;
if (!url || !hostId) throw new Error("DATABASE_URL and HOST_ID are required");
const leaseMs = Number(process.env.LEASE_MS ?? 1000);

const pool = new pg.Pool({ connectionString: url, max: 6 });
const claims = new TableRunClaims(pool);
const leases = new HostLeases({
  pool,
  role: "worker",
  hostId,
  leaseMs,
  onHostsLost: async (hosts, tx) => {
    const ended = await claims.endRunsOfLostHosts(
      hosts.map((host) => host.id),
      tx,
    );
    for (const host of hosts) {
      process.stdout.write(`reaped ${host.id} ${JSON.stringify(ended.map((run) => run.executionId))}\n`);
    }
  },
});
await leases.start();
const queue = new ProcessQueue({ pool, hostId, claims, isAlive: () => leases.isAlive(), strandedAfterMs: leaseMs });
await queue.start({
  concurrency: 3,
  handler: async (run) => {
    await pool.query("INSERT INTO ran (execution_id, host) VALUES ($1, $2)", [run.executionId, hostId]);
    process.stdout.write(`running ${run.executionId}\n`);
    if (run.processId >= 1000) await new Promise(() => {});
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    await claims.finish(run.executionId, hostId, "success");
  },
});
process.stdout.write("ready\n");
