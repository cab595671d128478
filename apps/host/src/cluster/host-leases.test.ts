import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventually, Inbox } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { HostLeases, type HostRecord } from "./host-leases.js";

const postgres = usePostgres();

/** Blocks this whole process (timers included), as a stopped process or a paused VM would stand still. */
function standStill(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("HostLeases", () => {
  let pool: pg.Pool;
  const started: HostLeases[] = [];

  /** Hosts that should stay alive get a long lease (a loaded machine must not make them lose it); victims a short one. */
  function host(options: Partial<ConstructorParameters<typeof HostLeases>[0]> & { hostId: string }): HostLeases {
    const leases = new HostLeases({ pool, role: "worker", leaseMs: 10_000, ...options });
    started.push(leases);
    return leases;
  }

  beforeEach(async () => {
    pool = new pg.Pool({ connectionString: await postgres.server.createHostDatabase(), max: 10 });
  });

  afterEach(async () => {
    for (const leases of started.splice(0)) await leases.stop({ leave: false });
    await pool.end();
  });

  it("reports a host that stops renewing, after its lease, exactly once with two reapers racing", async () => {
    const reports: Array<{ by: string; host: string }> = [];
    const reporter = (by: string) => async (hosts: HostRecord[]) => {
      for (const lost of hosts) reports.push({ by, host: lost.id });
    };
    const victim = host({ hostId: "victim", leaseMs: 300 });
    const reaperA = host({ hostId: "reaper-a", onHostsLost: reporter("reaper-a") });
    const reaperB = host({ hostId: "reaper-b", onHostsLost: reporter("reaper-b") });
    await victim.start();
    await reaperA.start();
    await reaperB.start();
    expect((await reaperA.liveHosts()).map((h) => h.id).sort()).toEqual(["reaper-a", "reaper-b", "victim"]);

    // The victim stops renewing without leaving, as a SIGKILLed host would.
    await victim.stop({ leave: false });
    // Both reapers run on their timers, and explicit rounds race them and each other.
    await eventually(async () => {
      await Promise.all([reaperA.reap(), reaperB.reap(), reaperA.reap(), reaperB.reap()]);
      return reports.length > 0;
    });
    await Promise.all([reaperA.reap(), reaperB.reap()]);

    expect(reports.map((r) => r.host)).toEqual(["victim"]);
    expect((await reaperA.liveHosts()).map((h) => h.id).sort()).toEqual(["reaper-a", "reaper-b"]);
    expect(reaperA.isAlive() && reaperB.isAlive()).toBe(true);
  });

  it("ends a lost host's work in the reaper's transaction, and tries again when that fails", async () => {
    await pool.query("CREATE TABLE work (id int PRIMARY KEY, host text, state text)");
    await pool.query("INSERT INTO work VALUES (1, 'victim', 'running'), (2, 'survivor', 'running')");
    let failures = 1;
    const rounds: string[][] = [];
    const reaper = host({
      hostId: "survivor",
      onHostsLost: async (hosts, tx) => {
        rounds.push(hosts.map((h) => h.id));
        await tx.query("UPDATE work SET state = 'failed' WHERE host = ANY($1)", [hosts.map((h) => h.id)]);
        if (failures-- > 0) throw new Error("the callback failed this time");
      },
    });
    const victim = host({ hostId: "victim", leaseMs: 300 });
    await victim.start();
    await reaper.start();
    await victim.stop({ leave: false });

    await eventually(() => rounds.length >= 2);

    // The failed round rolled back (the host stayed, its work untouched); the next one removed it and ended its work.
    expect(rounds.slice(0, 2)).toEqual([["victim"], ["victim"]]);
    const { rows } = await pool.query("SELECT id, state FROM work ORDER BY id");
    expect(rows).toEqual([
      { id: 1, state: "failed" },
      { id: 2, state: "running" },
    ]);
    expect((await reaper.liveHosts()).map((h) => h.id)).toEqual(["survivor"]);
  });

  it("a host that stood still past its lease notices, stops, and is reaped by the others", async () => {
    const lost = new Inbox<string>();
    const reaped = new Inbox<string>();
    const paused = host({ hostId: "paused", leaseMs: 500 });
    paused.onLost(lost.push);
    const other = host({
      hostId: "other",
      onHostsLost: async (hosts) => {
        for (const lost of hosts) reaped.push(lost.id);
      },
    });
    await paused.start();
    await other.start();
    expect(paused.isAlive()).toBe(true);

    standStill(1_200);

    expect(await lost.next()).toMatch(/ran out|expired/);
    expect(paused.isAlive()).toBe(false);
    // Never revived: renewing now refuses, even before anyone reaped it.
    expect(await paused.renew()).toBe(false);
    await other.reap();
    expect(await reaped.next()).toBe("paused");
    expect(lost.pending).toEqual([]);
  });

  it("a graceful stop removes the host without anyone reporting it", async () => {
    const reports: string[] = [];
    const leaving = host({ hostId: "leaving", leaseMs: 300 });
    const reaper = host({
      hostId: "staying",
      onHostsLost: async (hosts) => void reports.push(...hosts.map((h) => h.id)),
    });
    await leaving.start();
    await reaper.start();

    await leaving.stop();

    expect((await reaper.liveHosts()).map((h) => h.id)).toEqual(["staying"]);
    expect(await reaper.reap()).toEqual([]);
    expect(reports).toEqual([]);
  });
});
