import { afterEach, describe, expect, it } from "vitest";
import { testDialect } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";

/**
 * Processes across restarts of the binary, through the `echo-env` fixture environment. The rest of the process
 * semantics run in-process (test/in-process/processes.test.ts).
 */
describe("across restarts", () => {
  let crashed: TestHost | undefined;
  afterEach(() => crashed?.kill());

  it("keeps results, and brings interrupted processes back idle/failed", async () => {
    // On PostgreSQL the restarted host is a new host: the run of the killed one ends once its lease (the shortest
    // allowed here) runs out, through the reaper. On SQLite the one host ends it as it starts.
    const postgres = testDialect() === "postgres";
    crashed = await startHost({ modules: ["echo-env"], ...(postgres && { env: { CYRNEL_LEASE_MS: "1000" } }) });
    await crashed.api("POST", "/modules/echo-env/enabled", { enabled: true });
    const done = (await crashed.api("POST", "/processes", { code: "kept", block: true })).body;
    const running = (await crashed.api("POST", "/processes", { code: "sleep:60000", ref: "long" })).body;
    await expect.poll(async () => (await crashed!.api("GET", `/processes/${running.id}`)).body.state).toBe("running");
    await crashed.kill();
    crashed = await restart(crashed);
    expect((await crashed.api("GET", `/processes/${done.id}/output`)).body).toEqual({ echo: "kept" });
    if (postgres) {
      await expect.poll(async () => (await crashed!.api("GET", `/processes/${running.id}`)).body.state).toBe("idle");
    }
    expect((await crashed.api("GET", `/processes/${running.id}`)).body).toMatchObject({
      state: "idle",
      exitState: "failed",
      error: postgres ? "interrupted: worker lost" : "interrupted: host restarted",
    });
    const next = (await crashed.api("POST", "/processes", { code: "x", block: true })).body;
    expect(next.id).toBeGreaterThan(running.id);
  });

  it("cancels running processes on a graceful shutdown and answers blocked requests", async () => {
    crashed = await startHost({ modules: ["echo-env"] });
    await crashed.api("POST", "/modules/echo-env/enabled", { enabled: true });
    const blocked = crashed.api("POST", "/processes", { code: "sleep:60000", block: true });
    await expect.poll(async () => (await crashed!.api("GET", "/processes?state=running")).body.items.length).toBe(1);
    const exit = crashed.stop();
    const answer = await blocked;
    expect(answer.body).toMatchObject({ state: "idle", exitState: "canceled" });
    expect(await exit).toBe(0);
    crashed = await restart(crashed);
    expect((await crashed.api("GET", `/processes/${answer.body.id}`)).body.exitState).toBe("canceled");
  });
});
