import { afterEach, describe, expect, it } from "vitest";
import { queryDatabase, testDialect } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";

/**
 * Processes across restarts of the binary, through the `echo-env` fixture environment. The rest of the process
 * semantics run in-process (test/in-process/processes.test.ts).
 */
describe("across restarts", () => {
  let crashed: TestHost | undefined;
  afterEach((context) => {
    if (context.task.result?.state === "fail" && crashed) console.log(crashed.output.join("\n"));
    return crashed?.kill();
  });

  it("keeps results, and resumes the run a killed host left unfinished", async () => {
    // On PostgreSQL the restarted host is a new host: the killed one's run is re-queued once its lease (the shortest
    // allowed here) runs out, through the reaper, and the new host takes it. On SQLite the one host resumes it as it
    // starts. Either way it is the same run (its execution), in its second attempt.
    const postgres = testDialect() === "postgres";
    crashed = await startHost({ modules: ["echo-env"], ...(postgres && { env: { CYRNEL_LEASE_MS: "3000" } }) });
    await crashed.api("POST", "/modules/echo-env/enabled", { enabled: true });
    const done = (await crashed.api("POST", "/processes", { code: "kept", block: true })).body;
    const running = (await crashed.api("POST", "/processes", { code: "sleep:60000", ref: "long" })).body;
    await expect.poll(async () => (await crashed!.api("GET", `/processes/${running.id}`)).body.state).toBe("running");
    const [before] = await queryDatabase<{ id: number }>(
      crashed.dataDir,
      "SELECT id FROM executions WHERE process_id = ?",
      [running.id],
    );
    await crashed.kill();
    crashed = await restart(crashed);
    expect((await crashed.api("GET", `/processes/${done.id}/output`)).body).toEqual({ echo: "kept" });
    await expect
      .poll(
        async () =>
          queryDatabase(crashed!.dataDir, "SELECT id, attempts FROM executions WHERE process_id = ?", [running.id]),
        {
          interval: 200,
          timeout: 30_000,
        },
      )
      .toEqual([{ id: before!.id, attempts: 2 }]);
    await expect.poll(async () => (await crashed!.api("GET", `/processes/${running.id}`)).body.state).toBe("running");
    expect((await crashed.api("POST", `/processes/${running.id}/signals/kill`)).status).toBe(200);
    expect((await crashed.api("GET", `/processes/${running.id}`)).body).toMatchObject({
      state: "idle",
      exitState: "canceled",
    });
    const next = (await crashed.api("POST", "/processes", { code: "x", block: true })).body;
    expect(next.id).toBeGreaterThan(running.id);
  });

  it("lets go of running processes on a graceful shutdown, answers blocked requests, and resumes them", async () => {
    crashed = await startHost({ modules: ["echo-env"] });
    await crashed.api("POST", "/modules/echo-env/enabled", { enabled: true });
    const blocked = crashed.api("POST", "/processes", { code: "sleep:60000", block: true });
    await expect.poll(async () => (await crashed!.api("GET", "/processes?state=running")).body.items.length).toBe(1);
    const exit = crashed.stop();
    const answer = await blocked;
    // The run was not ended: it is the process's still, to be resumed (on PostgreSQL it went back in the queue).
    const postgres = testDialect() === "postgres";
    expect(answer.body).toMatchObject({ state: postgres ? "queued" : "running", exitState: null });
    expect(await exit).toBe(0);
    crashed = await restart(crashed);
    await expect
      .poll(async () => (await crashed!.api("GET", `/processes/${answer.body.id}`)).body.state)
      .toBe("running");
    expect(
      await queryDatabase(crashed.dataDir, "SELECT attempts FROM executions WHERE process_id = ?", [answer.body.id]),
    ).toEqual([{ attempts: 2 }]);
    await crashed.api("POST", `/processes/${answer.body.id}/signals/kill`);
    expect((await crashed.api("GET", `/processes/${answer.body.id}`)).body.exitState).toBe("canceled");
  });
});
