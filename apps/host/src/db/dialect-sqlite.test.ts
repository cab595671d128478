import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "./store-sqlite.js";

/**
 * The gate of dialect-sqlite.ts: a transaction whose body awaits keeps every
 * query from outside it out until it ends, so nothing another request writes
 * meanwhile is committed with it or lost when it rolls back.
 */
describe("SQLite transactions with bodies that await", () => {
  let store: SqliteStore;
  beforeEach(() => {
    store = openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-gate-")), () => undefined);
  });
  afterEach(async () => {
    await store.close();
  });

  const names = async () =>
    (await store.query<{ id: string }>("select id from registries order by id")).map((row) => row.id);

  it("a write from outside waits for the transaction and survives its rollback", async () => {
    const { registries } = store.sql.tables;
    const opened = signal();
    const proceed = signal();
    const failed = store.sql
      .transaction(async (tx) => {
        await tx.insert(registries).values(row("inside"));
        opened.resolve();
        await proceed.promise;
        await tx.insert(registries).values(row("inside-2"));
        throw new Error("refused");
      })
      .catch((error: Error) => error.message);
    await opened.promise;
    // Another request's write, started while the transaction is open: it waits.
    let written = false;
    const outside = store.registries
      .insert({ id: "outside", name: "o", url: "https://o.example", definitionsUrl: null, modulesUrl: null })
      .then(() => {
        written = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(written).toBe(false);
    proceed.resolve();
    expect(await failed).toBe("refused");
    await outside;
    expect(await names()).toEqual(["outside"]);
  });

  it("a read from outside sees the transaction's rows only once it committed", async () => {
    const { registries } = store.sql.tables;
    const opened = signal();
    const proceed = signal();
    const done = store.sql.transaction(async (tx) => {
      await tx.insert(registries).values(row("a"));
      opened.resolve();
      await proceed.promise;
      await tx.insert(registries).values(row("b"));
    });
    await opened.promise;
    const seen = names();
    proceed.resolve();
    await done;
    expect(await seen).toEqual(["a", "b"]);
  });

  it("transactions and writes that waited for the same one take their turns when it ends", async () => {
    const { registries } = store.sql.tables;
    const opened = signal();
    const proceed = signal();
    const first = store.sql.transaction(async (tx) => {
      await tx.insert(registries).values(row("first"));
      opened.resolve();
      await proceed.promise;
    });
    await opened.promise;
    // All three wait for the first; woken together, each must still find the connection free before it takes it.
    const rolledBack = store.sql
      .transaction(async (tx) => {
        await tx.insert(registries).values(row("rolled-back"));
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error("refused");
      })
      .catch((error: Error) => error.message);
    const outside = store.registries.insert({
      id: "outside",
      name: "o",
      url: "https://o.example",
      definitionsUrl: null,
      modulesUrl: null,
    });
    const second = store.sql.transaction(async (tx) => {
      await tx.insert(registries).values(row("second"));
    });
    proceed.resolve();
    await first;
    expect(await rolledBack).toBe("refused");
    await outside;
    await second;
    expect(await names()).toEqual(["first", "outside", "second"]);
  });

  it("the body's own queries through the store go ahead, and a nested transaction is a savepoint", async () => {
    const { registries } = store.sql.tables;
    await store.sql.transaction(async (tx) => {
      await tx.insert(registries).values(row("a"));
      expect((await store.registries.get("a"))?.id).toBe("a");
      await store.sql
        .transaction(async (inner) => {
          await inner.insert(registries).values(row("b"));
          throw new Error("inner only");
        })
        .catch(() => undefined);
      await tx.insert(registries).values(row("c"));
    });
    expect(await names()).toEqual(["a", "c"]);
  });
});

function signal() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const row = (id: string) => ({
  id,
  name: id,
  url: `https://${id}.example`,
  definitionsUrl: null,
  modulesUrl: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});
