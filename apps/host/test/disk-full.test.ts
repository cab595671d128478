/**
 * A full disk under a host on SQLite: the data directory is a real, small
 * tmpfs (mounted by the test, so it needs root, as `.ci/run` has) that the
 * test fills to the last byte with a file of its own, then empties again.
 * While it is full:
 * - a request whose write needs space answers `507 insufficient_storage`
 *   with `Retry-After`, never `500`, and changes nothing;
 * - `/health` says `degraded`, naming the cause;
 * - a run that executed keeps its results in the host and writes them once
 *   there is space again (no restart), and the client blocked on it gets
 *   them then, with the upstream's POST made exactly once.
 *
 * SQLite reuses the space of its WAL file, so a write only meets the full
 * disk when it is bigger than that file: the writes here are megabytes
 * (a 2,000-operation definition; a run whose output is 6 MB), and the run's
 * end meets the full disk before anything else grew the WAL.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CounterApi, startCounterApi } from "./support/counter-api.js";
import { testDialect } from "./support/database.js";
import { startHost, type TestHost, tempDir } from "./support/host.js";

const KEY = "disk-full-counter-key";
const BLOB_BYTES = 6 * 1024 * 1024;

/** Writes zeros into `path` until the file system has no byte left. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) {
      try {
        writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
        // The last partial chunk: write what still fits, byte by byte in halves.
        for (let size = chunk.length / 2; size >= 1; size = Math.floor(size / 2)) {
          try {
            for (;;) writeSync(fd, chunk, 0, size);
          } catch {}
        }
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** A definition big enough that installing it writes megabytes. */
function bigDefinition(url: string): string {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 2000; i++) {
    paths[`/things${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        description: `Reads thing ${i}. ${"A long description of the thing. ".repeat(20)}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
      },
    };
  }
  return JSON.stringify({ openapi: "3.0.3", info: { title: "Big", version: "1" }, servers: [{ url }], paths });
}

describe.skipIf(testDialect() !== "sqlite")("a full disk under a host on SQLite", () => {
  let mount: string;
  let filler: string;
  let host: TestHost;
  let counter: CounterApi;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) {
      throw new Error("this test mounts a small tmpfs for the data directory and needs root (run it as root)");
    }
    mount = tempDir("cyrnel-disk-full-");
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m,mode=700", "cyrnel-disk-full", mount]);
    filler = join(mount, "filler");
    mkdirSync(join(mount, "data"), { mode: 0o700 });
    counter = await startCounterApi(KEY);
    host = await startHost({
      dataDir: join(mount, "data"),
      env: { CYRNEL_PROCESS_OUTPUT_LIMIT_BYTES: String(8 * 1024 * 1024) },
    });
    const installed = await host.api("POST", "/services", {
      id: "counter",
      adapter: "openapi",
      definition: counter.definition,
    });
    expect(installed.status, installed.text).toBe(201);
    expect((await host.api("PATCH", "/services/counter/secrets", { counterKey: KEY })).status).toBe(200);
    expect((await host.api("POST", "/services/counter/enabled", { enabled: true })).status).toBe(200);
    // The sandbox's own cap on output (1 MB by default) raised with the host's, for the 6 MB end.
    const limit = await host.api("PATCH", "/modules/typescript-ivm/config", { maxOutputBytes: 8 * 1024 * 1024 });
    expect(limit.status, limit.text).toBe(200);
  });

  afterAll(async () => {
    await host?.kill();
    await counter?.close();
    if (mount) {
      execFileSync("umount", ["-l", mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  it("answers 507 with Retry-After while full, changes nothing, reports degraded; a run's end is kept and written once there is space", async () => {
    expect((await host.api("GET", "/health")).body).toMatchObject({ status: "ok" });
    // A run that POSTs once, waits at the upstream while the disk fills, then outputs 6 MB.
    const blocked = host.api("POST", "/processes", {
      block: true,
      code:
        'const r = await cyrnel.services.counter.tools.record.invoke({ tag: "full", hold: true });\n' +
        `cyrnel.output({ count: r.count, blob: "x".repeat(${BLOB_BYTES}) });`,
    });
    await counter.held(["full"]);
    fill(filler);

    // The run ends now; its end cannot be written while the disk is full: the host keeps it and retries.
    counter.release("full");
    await host.waitForLog(
      (entry) => entry.msg === "a write failed on a storage fault; kept and retried until storage is back",
    );
    const meanwhile = await host.api("GET", "/processes");
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.body.items[0].state).not.toBe("idle");

    const install = await host.api("POST", "/services", {
      id: "big",
      adapter: "openapi",
      definition: bigDefinition(counter.url),
    });
    expect(install.status, install.text).toBe(507);
    expect(install.body).toMatchObject({ code: "insufficient_storage" });
    expect(install.body.error).toContain("no space left on the data directory's device");
    expect(Number(install.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await host.api("GET", "/services/big")).status).toBe(404);
    const health = (await host.api("GET", "/health")).body;
    expect(health.status).toBe("degraded");
    expect(health.reasons).toContain("storage: no space left on the data directory's device");

    rmSync(filler);
    const answer = await blocked;
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ state: "idle", exitState: "success", output: { count: 1 } });
    expect(answer.body.output.blob).toHaveLength(BLOB_BYTES);
    expect(counter.counts.get("full")).toBe(1);
    // The same record for every later reader, and a healthy host again (no restart).
    const stored = await host.api("GET", `/processes/${answer.body.id}`);
    expect(stored.body).toMatchObject({ state: "idle", exitState: "success" });
    expect((await host.api("GET", `/processes/${answer.body.id}/output`)).body.count).toBe(1);
    await expect.poll(async () => (await host.api("GET", "/health")).body.status).toBe("ok");
    const again = await host.api("POST", "/services", {
      id: "big",
      adapter: "openapi",
      definition: bigDefinition(counter.url),
    });
    expect(again.status, again.text).toBe(201);
  });
});

describe.skipIf(testDialect() !== "sqlite")("a data directory on a read-only file system", () => {
  it("stops the start with the real cause (EROFS), not a missing folder", async () => {
    if (process.getuid?.() !== 0) throw new Error("this test mounts a read-only tmpfs and needs root (run it as root)");
    const readOnly = tempDir("cyrnel-read-only-");
    execFileSync("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "cyrnel-read-only", readOnly]);
    try {
      const host = await startHost({ dataDir: join(readOnly, "data"), expectListening: false, cwd: readOnly });
      expect(await host.waitForExit()).toBe(1);
      expect(host.output.join("\n")).toContain(
        `cyrnel: could not start: EROFS: read-only file system, mkdir '${join(readOnly, "data")}'`,
      );
    } finally {
      execFileSync("umount", ["-l", readOnly]);
      rmSync(readOnly, { recursive: true, force: true });
    }
  });
});
