import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { queryDatabase, testDialect } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";

/** The typescript-ivm sandbox process lives and dies with the host that forked it. */

/** Fields of /proc/<pid>/stat after the command name: state, ppid, …; null once the process is gone. */
function stat(pid: number): { state: string; ppid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: state ?? "", ppid: Number(ppid) };
  } catch {
    return null;
  }
}

/** A zombie has ended; only its exit status is left for a parent that may never collect it. */
const alive = (pid: number) => {
  const state = stat(pid)?.state;
  return state !== undefined && state !== "Z";
};

/** Sandbox processes (the forked typescript-ivm worker) whose parent is `pid`. */
function sandboxesOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => stat(child)?.ppid === pid && alive(child))
    .filter((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, "utf8").includes("worker/main.js");
      } catch {
        return false;
      }
    });
}

let host: TestHost | undefined;
afterEach(async () => {
  await host?.stop();
});

describe("the sandbox process", () => {
  it("exits when its host is SIGKILLed, even while an isolate spins; a restart runs exactly one", async () => {
    const postgres = testDialect() === "postgres";
    host = await startHost(postgres ? { env: { CYRNEL_LEASE_MS: "3000" } } : {});
    const created = await host.api("POST", "/processes", {
      code: "console.log('spinning'); while (true) {}",
      timeoutMs: null,
    });
    expect(created.status, created.text).toBe(201);
    await expect.poll(async () => (await host!.api("GET", `/processes/${created.body.id}`)).body.state).toBe("running");
    const pid = host.child.pid as number;
    const sandboxes = sandboxesOf(pid);
    expect(sandboxes).toHaveLength(1);
    const sandbox = sandboxes[0] as number;

    await host.kill();
    await expect.poll(() => alive(sandbox), { interval: 50 }).toBe(false);

    host = await restart(host);
    const running = sandboxesOf(host.child.pid as number);
    expect(running).toHaveLength(1);
    expect(running[0]).not.toBe(sandbox);
    // The run is durable: the restarted host (on PostgreSQL, the one that takes it from the queue once the killed
    // host's lease ran out) resumes it, spinning again in the one sandbox process.
    await expect
      .poll(
        async () =>
          queryDatabase(host!.dataDir, "SELECT attempts FROM executions WHERE process_id = ?", [created.body.id]),
        {
          timeout: 30_000,
          interval: 200,
        },
      )
      .toEqual([{ attempts: 2 }]);
    await expect.poll(async () => (await host!.api("GET", `/processes/${created.body.id}`)).body.state).toBe("running");
    expect(sandboxesOf(host.child.pid as number)).toHaveLength(1);
    expect((await host.api("POST", `/processes/${created.body.id}/signals/kill`)).status).toBe(200);
    expect((await host.api("GET", `/processes/${created.body.id}`)).body).toMatchObject({
      state: "idle",
      exitState: "canceled",
    });
    const after = await host.api("POST", "/processes", { code: "cyrnel.output({ fine: true });", block: true });
    expect(after.body).toMatchObject({ exitState: "success", output: { fine: true } });
  });

  // A 1 ms setup timeout: the host gives up on the environment's setup while its sandbox process is starting.
  const gaveUp = (entry: Record<string, unknown>) =>
    entry.msg === "module setup failed" && entry.module === "typescript-ivm";

  it("tears down a setup that finished after the host stopped waiting for it, then stops cleanly", async () => {
    host = await startHost({ env: { CYRNEL_MODULE_LOAD_TIMEOUT_MS: "1" } });
    await host.waitForLog(gaveUp);
    await host.waitForLog(
      (entry) =>
        entry.msg === "a setup that timed out finished late; tearing it down" && entry.module === "typescript-ivm",
      30_000,
    );
    const pid = host.child.pid as number;
    await expect.poll(() => sandboxesOf(pid).length, { interval: 50 }).toBe(0);
    expect(await host.stop()).toBe(0);
  });

  it("does not keep a host alive that is stopped while a setup it gave up on is still starting", async () => {
    host = await startHost({ env: { CYRNEL_MODULE_LOAD_TIMEOUT_MS: "1" } });
    await host.waitForLog(gaveUp);
    expect(await host.stop()).toBe(0);
  });
});
