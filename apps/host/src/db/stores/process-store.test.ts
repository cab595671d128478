import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { usePostgres } from "../../../test/support/cluster-postgres.js";
import type { NewCallRow } from "../../domain/governance/call-store.js";
import type { Store } from "../store.js";
import { openPgStore } from "../store-pg.js";
import { openSqliteStore } from "../store-sqlite.js";

/**
 * The process and call stores, written once (process-store.ts, call-store.ts), on both dialects: the same cases
 * against a SQLite file and a throw-away PostgreSQL. The host's suites cover them end to end; these reach what the
 * host takes only on one dialect (on PostgreSQL every run goes through the queue, and the cluster writes its ends).
 */
const postgres = usePostgres();

const dialects: [string, () => Promise<Store>][] = [
  ["SQLite", async () => openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-process-store-")), () => undefined)],
  ["PostgreSQL", async () => openPgStore(await postgres.server.createDatabase(), () => undefined, 4)],
];

const newProcess = { code: "cyrnel.output({})", ref: null, timeoutMs: null, keyId: "key-1" };
const result = {
  exitState: "success" as const,
  error: null,
  output: { answer: 42, nested: { text: "a\u0000b" } },
  stdout: "line\u0000with NUL\n",
  stderr: "",
};

describe.each(dialects)("the process and call stores on %s", (_name, open) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it("writes a process's life and reads it back as it was written", async () => {
    store = await open();
    const { processId, executionId } = await store.processes.create(newProcess, "typescript-ivm");
    expect(await store.processes.get(processId)).toMatchObject({ state: "queued", runs: 1, keyId: "key-1" });
    expect(await store.processes.countActive("key-1")).toBe(1);
    await store.processes.setRunning(processId, "2026-01-01T00:00:00.000Z");
    await store.processes.setState(processId, "suspended");
    expect(await store.processes.get(processId)).toMatchObject({
      state: "suspended",
      startedAt: "2026-01-01T00:00:00.000Z",
    });
    await store.processes.finish(processId, executionId, result);
    expect(await store.processes.get(processId)).toMatchObject({ state: "idle", ...result });
    expect(await store.processes.countActive("key-1")).toBe(0);

    const again = await store.processes.startRun(processId, "typescript-ivm");
    expect(again).toBeGreaterThan(executionId);
    expect(await store.processes.get(processId)).toMatchObject({
      state: "queued",
      runs: 2,
      output: null,
      stdout: "",
      exitState: null,
      finishedAt: null,
    });
    expect(await store.processes.markInterrupted("interrupted: host restarted")).toBe(1);
    expect(await store.processes.get(processId)).toMatchObject({
      state: "idle",
      exitState: "failed",
      error: "interrupted: host restarted",
    });
  });

  it("creates many processes at once, each with its own ids, never reusing a deleted one", async () => {
    store = await open();
    const created = await Promise.all(
      Array.from({ length: 20 }, () => store.processes.create(newProcess, "typescript-ivm")),
    );
    expect(new Set(created.map((run) => run.processId)).size).toBe(20);
    expect(new Set(created.map((run) => run.executionId)).size).toBe(20);
    const highest = Math.max(...created.map((run) => run.processId));
    await store.processes.delete(highest);
    expect(await store.processes.get(highest)).toBeUndefined();
    const next = await store.processes.create(newProcess, "typescript-ivm");
    expect(next.processId).toBeGreaterThan(highest);
    // Newest first, one more than the limit (the caller's sign of a next page).
    const page = await store.processes.list({ keyId: "key-1", limit: 5 });
    expect(page.map((row) => row.id)).toEqual([
      next.processId,
      ...created
        .map((run) => run.processId)
        .sort((a, b) => b - a)
        .slice(1, 6),
    ]);
  });

  it("writes a run through the queue's hook on PostgreSQL only", async () => {
    store = await open();
    const queued = { typecheck: false, addJob: () => "NULL" };
    if (store.dialect === "sqlite") {
      await expect(store.processes.create(newProcess, "typescript-ivm", queued)).rejects.toThrow(/PostgreSQL only/);
      return;
    }
    const created = await store.processes.create(newProcess, "typescript-ivm", queued);
    expect(created.row).toMatchObject({ id: created.processId, state: "queued", runs: 1 });
    await expect(store.processes.startRun(created.processId, "typescript-ivm", queued)).rejects.toThrow(/idle/);
    await store.processes.finish(created.processId, created.executionId, result);
    expect(await store.processes.startRun(created.processId, "typescript-ivm", queued)).toBeGreaterThan(
      created.executionId,
    );
  });

  it("writes call records in batches, a batch again without doubling it, and never gives a pruned id again", async () => {
    store = await open();
    const { processId, executionId } = await store.processes.create(newProcess, "typescript-ivm");
    expect(await store.calls.lastId()).toBe(0);
    const call = (id: number, outcome: string, startedAt: string): NewCallRow => ({
      id,
      processId,
      executionId,
      keyId: "key-1",
      connectionId: id === 2 ? "conn-1" : null,
      serviceId: "shop",
      toolId: id % 2 === 0 ? "getItem" : "listItems",
      startedAt,
      durationMs: 3,
      outcome,
      status: outcome === "ok" ? 200 : 500,
      parameters: JSON.stringify({ id: `n${id}`, text: "a\u0000b" }),
    });
    const batch = [call(1, "ok", "2026-01-01T00:00:00.000Z"), call(2, "adapter_error", "2026-01-02T00:00:00.000Z")];
    await store.calls.insertMany(batch);
    // CallLog writes a batch again after a storage fault whose first try may have committed.
    await store.calls.insertMany([...batch, call(3, "ok", "2026-01-03T00:00:00.000Z")]);
    expect(await store.calls.countsOfLatestRun(processId)).toEqual({
      count: 3,
      failed: 1,
      byTool: { "shop.getItem": { count: 1, failed: 1 }, "shop.listItems": { count: 2, failed: 0 } },
    });
    const listed = await store.calls.list({ processId, limit: 10 });
    expect(listed.map((row) => row.id)).toEqual([3, 2, 1]);
    expect(listed[0]?.parameters).toEqual({ id: "n3", text: "a\u0000b" });
    expect((await store.calls.list({ outcome: "ok", since: "2026-01-02T00:00:00.000Z", limit: 10 })).length).toBe(1);

    expect(await store.calls.prune("2026-01-04T00:00:00.000Z")).toBe(3);
    expect(await store.calls.lastId()).toBe(3);
    await store.processes.startRun(processId, "typescript-ivm");
    expect(await store.calls.countsOfLatestRun(processId)).toEqual({ count: 0, failed: 0, byTool: {} });
  });

  it("prunes idle processes that finished before a time, with their calls", async () => {
    store = await open();
    const old = await store.processes.create(newProcess, "typescript-ivm");
    await store.processes.finish(old.processId, old.executionId, result);
    const running = await store.processes.create(newProcess, "typescript-ivm");
    await store.calls.insertMany([
      {
        id: 1,
        processId: old.processId,
        executionId: old.executionId,
        keyId: null,
        serviceId: "shop",
        toolId: "getItem",
        startedAt: new Date().toISOString(),
        durationMs: 1,
        outcome: "ok",
        status: 200,
        connectionId: null,
        parameters: "{}",
      },
    ]);
    expect(await store.processes.prune(new Date(Date.now() + 60_000).toISOString(), "failed")).toBe(0);
    expect(await store.processes.prune(new Date(Date.now() + 60_000).toISOString())).toBe(1);
    expect(await store.processes.get(old.processId)).toBeUndefined();
    expect(await store.calls.list({ limit: 10 })).toEqual([]);
    expect(await store.processes.get(running.processId)).toMatchObject({ state: "queued" });
  });
});
