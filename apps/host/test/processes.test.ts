import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { restart, startHost, type TestHost } from "./support/host.js";

/**
 * Processes over a real connection and across restarts of the binary, through the `echo-env` fixture environment.
 * The rest of the process semantics run in-process (test/in-process/processes.test.ts).
 */
describe("following a process (GET /processes/:id/events)", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ modules: ["echo-env"], env: { CYRNEL_PROCESS_FOLLOWERS_LIMIT: "3" } });
    expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
  });
  afterAll(() => host?.stop());

  it("caps live followers per process (CYRNEL_PROCESS_FOLLOWERS_LIMIT) with a 429", async () => {
    const running = (await host.api("POST", "/processes", { code: "sleep:60000" })).body;
    const open = (id: number) =>
      fetch(`${host.url}/processes/${id}/events`, { headers: { authorization: `Bearer ${host.apiKey ?? ""}` } });
    const followers = [await open(running.id), await open(running.id), await open(running.id)];
    try {
      expect(followers.map((response) => response.status)).toEqual([200, 200, 200]);
      const refused = await open(running.id);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({
        code: "too_many_followers",
        error: `process ${running.id} already has 3 live followers (CYRNEL_PROCESS_FOLLOWERS_LIMIT); try again later`,
      });
      // A follower that goes away frees its place.
      await followers.pop()?.body?.cancel();
      await expect
        .poll(async () => {
          const next = await open(running.id);
          if (next.status === 200) followers.push(next);
          return next.status;
        })
        .toBe(200);
      // An idle process answers at once and holds no place.
      const idle = (await host.api("POST", "/processes", { code: "done", block: true })).body;
      const answers = await Promise.all(Array.from({ length: 5 }, () => open(idle.id)));
      expect(answers.map((response) => response.status)).toEqual(Array(5).fill(200));
      await Promise.all(answers.map((response) => response.text()));
    } finally {
      await host.api("POST", `/processes/${running.id}/signals/kill`);
      await Promise.all(followers.map((response) => response.text()));
    }
  });
});

describe("across restarts", () => {
  let crashed: TestHost | undefined;
  afterEach(() => crashed?.kill());

  it("keeps results, and brings interrupted processes back idle/failed", async () => {
    crashed = await startHost({ modules: ["echo-env"] });
    await crashed.api("POST", "/modules/echo-env/enabled", { enabled: true });
    const done = (await crashed.api("POST", "/processes", { code: "kept", block: true })).body;
    const running = (await crashed.api("POST", "/processes", { code: "sleep:60000", ref: "long" })).body;
    await crashed.kill();
    crashed = await restart(crashed);
    expect((await crashed.api("GET", `/processes/${done.id}/output`)).body).toEqual({ echo: "kept" });
    expect((await crashed.api("GET", `/processes/${running.id}`)).body).toMatchObject({
      state: "idle",
      exitState: "failed",
      error: "interrupted: host restarted",
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
