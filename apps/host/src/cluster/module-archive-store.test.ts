import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { ModuleArchiveStore } from "./module-archive-store.js";
import { inTransaction } from "./sql.js";

const postgres = usePostgres();

describe("ModuleArchiveStore", () => {
  let pool: pg.Pool;
  let store: ModuleArchiveStore;

  beforeEach(async () => {
    pool = new pg.Pool({ connectionString: await postgres.server.createHostDatabase(), max: 4 });
    store = new ModuleArchiveStore(pool);
  });

  afterEach(async () => {
    await pool.end();
  });

  it("keeps one archive per module, byte for byte, and what hosts compare without reading it", async () => {
    const v1 = randomBytes(300_000);
    await store.put({ moduleId: "echo", version: "1.0.0", body: v1, folderDigest: "d1", hostId: "host-a" });
    const v2 = randomBytes(1_000);
    await store.put({ moduleId: "echo", version: "1.1.0", body: v2, folderDigest: "d2", hostId: "host-b" });
    await store.put({ moduleId: "audit", version: "0.1.0", body: v1, folderDigest: "d3", hostId: "host-a" });

    expect(await store.describe("echo")).toMatchObject({ version: "1.1.0", folderDigest: "d2", updatedBy: "host-b" });
    const stored = await store.archive("echo");
    expect(stored?.body.equals(v2)).toBe(true);
    expect((await store.list()).map((m) => `${m.moduleId}@${m.version}`)).toEqual(["audit@0.1.0", "echo@1.1.0"]);
    expect(await store.archive("missing")).toBeNull();
  });

  it("commits with the caller's transaction, and refuses a corrupted archive", async () => {
    await store.put({ moduleId: "echo", version: "1.0.0", body: Buffer.from("v1"), folderDigest: "d1", hostId: "a" });
    await expect(
      inTransaction(pool, async (tx) => {
        await store.put(
          { moduleId: "echo", version: "2.0.0", body: Buffer.from("v2"), folderDigest: "d2", hostId: "a" },
          tx,
        );
        throw new Error("the module failed to load");
      }),
    ).rejects.toThrow("the module failed to load");
    expect((await store.describe("echo"))?.version).toBe("1.0.0");

    await pool.query("UPDATE cluster_module_archives SET archive = 'tampered'::bytea WHERE module_id = 'echo'");
    await expect(store.archive("echo")).rejects.toThrow(/does not match its SHA-256/);
    expect(await store.delete("echo")).toBe(true);
    expect(await store.describe("echo")).toBeNull();
  });
});
