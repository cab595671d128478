import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectHost, Inbox, type TestHostConnections } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { ChangeFeed, encodeChange, type ReceivedChange } from "./change-feed.js";
import { inTransaction } from "./sql.js";

const postgres = usePostgres();

describe("ChangeFeed", () => {
  let a: TestHostConnections;
  let b: TestHostConnections;
  let feedA: ChangeFeed;
  let feedB: ChangeFeed;

  beforeEach(async () => {
    const url = await postgres.server.createDatabase();
    a = await connectHost(url, "host-a");
    b = await connectHost(url, "host-b");
    feedA = new ChangeFeed({ pool: a.pool, listener: a.listener, hostId: a.hostId });
    feedB = new ChangeFeed({ pool: b.pool, listener: b.listener, hostId: b.hostId });
  });

  afterEach(async () => {
    await a.close();
    await b.close();
  });

  it("delivers a change made through one host to the other, with its origin", async () => {
    const atB = new Inbox<ReceivedChange>();
    await feedB.subscribe(atB.push, { onMissed: () => {} });

    await feedA.publish({ kind: "service", id: "github", action: "updated" });

    expect(await atB.next()).toEqual({
      kind: "service",
      id: "github",
      action: "updated",
      origin: "host-a",
      own: false,
    });
  });

  it("leaves a host's own changes out unless it asks for them", async () => {
    const ownSkipped = new Inbox<ReceivedChange>();
    const ownIncluded = new Inbox<ReceivedChange>();
    await feedA.subscribe(ownSkipped.push, { onMissed: () => {} });
    await feedA.subscribe(ownIncluded.push, { onMissed: () => {}, includeOwn: true });

    await feedA.publish({ kind: "policy", id: "stripe" });
    await feedB.publish({ kind: "key", id: "k1" });

    expect(await ownIncluded.next()).toMatchObject({ kind: "policy", id: "stripe", own: true });
    expect(await ownIncluded.next()).toMatchObject({ kind: "key", id: "k1", own: false, origin: "host-b" });
    // Changes arrive in commit order, so the foreign one arriving means the own one was skipped, not late.
    expect(await ownSkipped.next()).toMatchObject({ kind: "key", id: "k1" });
    expect(ownSkipped.pending).toEqual([]);
  });

  it("sends a change published in a transaction only when that transaction commits", async () => {
    const atB = new Inbox<ReceivedChange>();
    await feedB.subscribe(atB.push, { onMissed: () => {} });

    await expect(
      inTransaction(a.pool, async (tx) => {
        await feedA.publish({ kind: "module", id: "rolled-back" }, tx);
        throw new Error("the caller's work failed");
      }),
    ).rejects.toThrow("the caller's work failed");
    await inTransaction(a.pool, async (tx) => {
      await feedA.publish({ kind: "module", id: "committed" }, tx);
    });

    // Notifications arrive in commit order: the committed change arriving first and alone means the rolled-back one
    // was never sent (not merely late).
    expect(await atB.next()).toMatchObject({ kind: "module", id: "committed" });
    expect(atB.pending).toEqual([]);
  });

  it("reconnects after its connection is terminated and reports that changes may have been missed", async () => {
    const atB = new Inbox<ReceivedChange>();
    const missed = new Inbox<"missed">();
    await feedB.subscribe(atB.push, { onMissed: () => missed.push("missed") });

    const { rows } = await a.pool.query(
      "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = 'listen-host-b'",
    );
    expect(rows).toEqual([{ terminated: true }]);
    // Sent while B may be disconnected: possibly lost, which is what the gap report is for.
    await feedA.publish({ kind: "tools", id: "lost-maybe" });

    expect(await missed.next()).toBe("missed");
    await feedA.publish({ kind: "tools", id: "after-reconnect" });
    let change = await atB.next();
    if (change.id === "lost-maybe") change = await atB.next();
    expect(change).toMatchObject({ kind: "tools", id: "after-reconnect" });
  });

  it("refuses a change that would not fit in a notification", () => {
    expect(() => encodeChange({ kind: "service", id: "x".repeat(8000) }, "host-a")).toThrow(/ids, not data/);
    expect(() => encodeChange({ kind: "nonsense" as never, id: "x" }, "host-a")).toThrow(/unknown change kind/);
  });
});
