import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Inbox } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { ClusterMutex, lockInTransaction } from "./cluster-mutex.js";
import { inTransaction } from "./sql.js";

const postgres = usePostgres();

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe("ClusterMutex", () => {
  let poolA: pg.Pool;
  let poolB: pg.Pool;

  beforeEach(async () => {
    const url = await postgres.server.createDatabase();
    poolA = new pg.Pool({ connectionString: url, max: 4, application_name: "host-a" });
    poolB = new pg.Pool({ connectionString: url, max: 4, application_name: "host-b" });
  });

  afterEach(async () => {
    await poolA.end();
    await poolB.end();
  });

  it("runs one operation per key at a time across hosts, and different keys at once", async () => {
    const a = new ClusterMutex(poolA);
    const b = new ClusterMutex(poolB);
    const log: string[] = [];
    const release = gate();
    const aInside = new Inbox<"inside">();

    const first = a.run("service:github", async () => {
      log.push("a enters");
      aInside.push("inside");
      await release.opened;
      log.push("a leaves");
    });
    await aInside.next();
    const second = b.run("service:github", async () => {
      log.push("b enters");
    });
    // Another key is not held up by the first: it runs to its end while A still holds "service:github".
    await b.run("service:stripe", async () => {
      log.push("b on another key");
    });
    release.open();
    await Promise.all([first, second]);

    expect(log).toEqual(["a enters", "b on another key", "a leaves", "b enters"]);
  });

  it("releases the lock when the operation fails, and when the holder's connection dies", async () => {
    const a = new ClusterMutex(poolA);
    const b = new ClusterMutex(poolB);
    await expect(
      a.run("module:x", async () => {
        throw new Error("setup failed");
      }),
    ).rejects.toThrow("setup failed");
    expect(await b.run("module:x", async () => "after a failure")).toBe("after a failure");

    // A holder whose connection is terminated (its host died) loses the lock; the next host gets it.
    const holding = new Inbox<"holding">();
    const never = gate();
    const stuck = a
      .run("module:x", async () => {
        holding.push("holding");
        await never.opened;
      })
      .catch(() => undefined);
    await holding.next();
    const waiting = b.run("module:x", async () => "after the holder died");
    await poolB.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'host-a' AND query LIKE '%pg_advisory_lock%'",
    );
    expect(await waiting).toBe("after the holder died");
    never.open();
    await stuck;
  });

  it("a transaction can take the same lock", async () => {
    const a = new ClusterMutex(poolA);
    const log: string[] = [];
    const inTx = new Inbox<"locked">();
    const commit = gate();
    const tx = inTransaction(poolB, async (client) => {
      await lockInTransaction(client, "service:github");
      log.push("transaction holds it");
      inTx.push("locked");
      await commit.opened;
    });
    await inTx.next();
    const run = a.run("service:github", async () => {
      log.push("mutex after the commit");
    });
    commit.open();
    await Promise.all([tx, run]);
    expect(log).toEqual(["transaction holds it", "mutex after the commit"]);
  });
});
