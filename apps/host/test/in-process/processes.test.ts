import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryDatabase, testDialect } from "../support/database.js";
import { fixturesDir } from "../support/host.js";
import { type InProcessHost, rebuild, startInProcess } from "../support/in-process.js";
import { enableRecorder, installRecorded } from "../support/recorder.js";

/**
 * Process semantics of the host (the process runner), driven through the `echo-env` fixture environment (no
 * sandbox involved). Restarts of the binary are in test/processes.test.ts.
 */
let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcess({
    modules: ["recorder", "echo-env"],
    env: {
      CYRNEL_PROCESS_CODE_LIMIT_BYTES: "2048",
      CYRNEL_PROCESS_FOLLOWERS_LIMIT: "3",
      CYRNEL_AGENT_TEXT_LIMIT_CHARS: "1000",
    },
  });
  expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
  await enableRecorder(host);
  await installRecorded(host, "svc", [{ id: "ok" }, { id: "off" }, { id: "bad", behavior: "fail" }], { enabled: true });
  await host.api("POST", "/tools/svc/off/enabled", { enabled: false });
});
afterAll(() => host?.stop());

const waitIdle = async (id: number) => {
  await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe("idle");
  return (await host.api("GET", `/processes/${id}`)).body;
};

describe("the environment hears of the services ahead of the runs", () => {
  const prepared = async () =>
    (await host.api("POST", "/processes", { code: "prepared", block: true })).body.output.prepared;

  it("once it is active, and again after each change of what runs can reach", async () => {
    // Told at activation, then after the installs of beforeAll: the catalog a run gets (svc's callable tools).
    await expect.poll(prepared).toMatchObject({ svc: ["ok", "bad"] });
    await installRecorded(host, "later", [{ id: "one" }], { enabled: true });
    await expect.poll(prepared).toMatchObject({ svc: ["ok", "bad"], later: ["one"] });
    expect((await host.api("POST", "/tools/svc/bad/enabled", { enabled: false })).status).toBe(200);
    await expect.poll(prepared).toMatchObject({ svc: ["ok"], later: ["one"] });
    expect((await host.api("POST", "/services/later/enabled", { enabled: false })).status).toBe(200);
    await expect.poll(async () => Object.keys(await prepared())).not.toContain("later");
    expect((await host.api("POST", "/tools/svc/bad/enabled", { enabled: true })).status).toBe(200);
    await expect.poll(prepared).toMatchObject({ svc: ["ok", "bad"] });
  });
});

describe("creating and reading processes", () => {
  it("runs code and, with block, answers with output, stdout and stderr", async () => {
    const response = await host.api("POST", "/processes", { code: "hello", ref: "  greeting  ", block: true });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      ref: "greeting",
      state: "idle",
      exitState: "success",
      error: null,
      timeoutMs: 30000,
      output: { echo: "hello" },
      stdout: "hello",
      stderr: "",
    });
    expect(Date.parse(response.body.startedAt)).toBeLessThanOrEqual(Date.parse(response.body.finishedAt));
    const id = response.body.id;
    expect((await host.api("GET", `/processes/${id}/code`)).text).toBe("hello");
    expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({ echo: "hello" });
    expect((await host.api("GET", `/processes/${id}/stdout`)).text).toBe("hello");
    expect((await host.api("GET", `/processes/${id}/stderr`)).text).toBe("");
  });

  it("keeps any text as it was sent: U+0000, U+FFFF and lone surrogates in JSON come back unchanged", async () => {
    // PostgreSQL's text cannot hold U+0000 (schema-pg.ts escapes it); SQLite's can: both answer the same.
    const code = "a\u0000b\uffff0c\uffffF\u0000\uffff";
    const created = await host.api("POST", "/processes", { code, block: true, ref: "nul\u0000ref" });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ stdout: code, output: { echo: code }, ref: "nul\u0000ref" });
    expect((await host.api("GET", `/processes/${created.body.id}`)).body.ref).toBe("nul\u0000ref");
    expect((await host.api("GET", `/processes/${created.body.id}/code`)).text).toBe(code);
    expect((await host.api("GET", `/processes/${created.body.id}/stdout`)).text).toBe(code);
    const listed = await host.api("GET", `/processes?ref=${encodeURIComponent("nul\u0000ref")}`);
    expect(listed.body.items.map((item: any) => item.id)).toEqual([created.body.id]);
    // Stored text is UTF-8 on both (a lone surrogate in stdout becomes U+FFFD); JSON keeps it escaped.
    const lone = await host.api("POST", "/processes", { code: "half \ud800 a pair", block: true });
    expect(lone.status, lone.text).toBe(201);
    expect(lone.body.output).toEqual({ echo: "half \ud800 a pair" });
    expect((await host.api("GET", `/processes/${lone.body.id}/output`)).body).toEqual({ echo: "half \ud800 a pair" });
  });

  it("answers without block at once, and results become readable when idle", async () => {
    const response = await host.api("POST", "/processes", { code: "sleep:300" });
    expect(response.status).toBe(201);
    expect(["queued", "running"]).toContain(response.body.state);
    expect(response.body).not.toHaveProperty("output");
    const early = await host.api("GET", `/processes/${response.body.id}/output`);
    expect(early.status).toBe(409);
    expect((await host.api("GET", `/processes/${response.body.id}/stdout`)).status).toBe(409);
    expect((await waitIdle(response.body.id)).exitState).toBe("success");
    expect((await host.api("GET", `/processes/${response.body.id}/output`)).status).toBe(200);
  });

  it("records the environment's error for a failed run", async () => {
    const response = await host.api("POST", "/processes", { code: "fail:compile error at line 3", block: true });
    expect(response.body).toMatchObject({ exitState: "failed", error: "compile error at line 3" });
  });

  it("gates tool calls from code exactly like POST /tools/.../invoke", async () => {
    const call = async (target: string) =>
      (await host.api("POST", "/processes", { code: `call:${target}`, block: true })).body.output;
    expect((await call("svc.ok")).result.parameters).toEqual({});
    expect((await call("nope.ok")).error).toMatchObject({ status: 404, code: "not_found" });
    expect((await call("svc.nope")).error).toMatchObject({ status: 404, code: "not_found" });
    expect((await call("svc.off")).error).toMatchObject({ status: 409, code: "tool_disabled" });
    expect((await call("svc.bad")).error).toMatchObject({ status: 502, code: "adapter_error" });
  });

  it.each([
    ["an empty ref", { code: "x", ref: "   " }, 400, "ref"],
    ["a zero timeout", { code: "x", timeoutMs: 0 }, 400, "timeoutMs"],
    ["a fractional timeout", { code: "x", timeoutMs: 1.5 }, 400, "timeoutMs"],
    ["a timeout past 2^31 - 1 ms", { code: "x", timeoutMs: 2 ** 31 }, 400, "timeoutMs"],
    ["missing code", { ref: "a" }, 400, "code"],
    ["an unknown field", { code: "x", priority: 1 }, 400, "priority"],
    ["code over the limit", { code: "x".repeat(2049) }, 413, "code"],
  ])("rejects %s", async (_label, body, status, mentions) => {
    const response = await host.api("POST", "/processes", body);
    expect(response.status, response.text).toBe(status);
    expect(response.body.error).toContain(mentions);
  });

  it("accepts the largest timeoutMs (2^31 - 1 ms) and runs with it", async () => {
    const response = await host.api("POST", "/processes", { code: "sleep:50", timeoutMs: 2 ** 31 - 1, block: true });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ timeoutMs: 2 ** 31 - 1, exitState: "success", error: null });
  });

  it("accepts timeoutMs: null (no limit)", async () => {
    const response = await host.api("POST", "/processes", { code: "x", timeoutMs: null, block: true });
    expect(response.body).toMatchObject({ timeoutMs: null, exitState: "success" });
  });

  it("lists newest first with filters and a cursor", async () => {
    await host.api("POST", "/processes", { code: "a", ref: "batch", block: true });
    await host.api("POST", "/processes", { code: "fail:x", ref: "batch", block: true });
    const batch = await host.api("GET", "/processes?ref=batch");
    expect(batch.body.items.map((p: any) => p.exitState)).toEqual(["failed", "success"]);
    const failed = await host.api("GET", "/processes?exitState=failed");
    expect(failed.body.items.every((p: any) => p.exitState === "failed")).toBe(true);
    expect((await host.api("GET", "/processes?state=idle")).body.items.length).toBeGreaterThan(0);
    const all = (await host.api("GET", "/processes?limit=1000")).body.items.map((p: any) => p.id);
    expect([...all].sort((a, b) => b - a)).toEqual(all);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await host.api("GET", `/processes?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.items.map((p: any) => p.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect((await host.api("GET", "/processes?state=sleeping")).status).toBe(400);
  });

  it("lists by ref prefix (wildcards as themselves), by creation time, and oldest first with a cursor", async () => {
    const refs = ["night-1", "night-2", "nightly%", "night_x", "nights", "Night-3", "day-1"];
    const ids: Record<string, number> = {};
    for (const ref of refs) {
      ids[ref] = (await host.api("POST", "/processes", { code: "a", ref, block: true })).body.id;
      // Times are kept to the millisecond, and these runs take less: each is created in a millisecond of its own, so
      // the time range below can fall between two of them.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const refsOf = async (query: string) =>
      ((await host.api("GET", `/processes?limit=1000&${query}`)).body.items as any[]).map((p) => p.ref);
    // Case-sensitive, newest first; `%`, `_` and `*` match only themselves (they are LIKE and GLOB wildcards).
    expect(await refsOf("refPrefix=night-")).toEqual(["night-2", "night-1"]);
    expect(await refsOf("refPrefix=night")).toEqual(["nights", "night_x", "nightly%", "night-2", "night-1"]);
    expect(await refsOf(`refPrefix=${encodeURIComponent("nightly%")}`)).toEqual(["nightly%"]);
    expect(await refsOf("refPrefix=night_")).toEqual(["night_x"]);
    expect(await refsOf(`refPrefix=${encodeURIComponent("night*")}`)).toEqual([]);
    expect(await refsOf(`refPrefix=${encodeURIComponent("night[")}`)).toEqual([]);
    expect(await refsOf("refPrefix=Night")).toEqual(["Night-3"]);

    // Oldest first, a page at a time: the cursor continues upwards.
    const mine = `refPrefix=night&order=oldest`;
    const first = await host.api("GET", `/processes?${mine}&limit=2`);
    expect(first.body.items.map((p: any) => p.ref)).toEqual(["night-1", "night-2"]);
    const second = await host.api("GET", `/processes?${mine}&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((p: any) => p.ref)).toEqual(["nightly%", "night_x"]);

    // A time range over createdAt: at or after `since`, before `until` (an offset names the same instant).
    const created = (await host.api("GET", `/processes/${ids["nightly%"]}`)).body.createdAt as string;
    const later = (await host.api("GET", `/processes/${ids.night_x}`)).body.createdAt as string;
    expect(later > created).toBe(true);
    const since = await refsOf(`refPrefix=night&since=${encodeURIComponent(created)}`);
    expect(since).toContain("nightly%");
    expect(since).not.toContain("night-2");
    const until = await refsOf(`refPrefix=night&until=${encodeURIComponent(later.replace("Z", "+00:00"))}`);
    expect(until).not.toContain("night_x");
    expect(until).toContain("nightly%");
    expect((await host.api("GET", "/processes?since=yesterday")).status).toBe(400);
    expect((await host.api("GET", "/processes?order=random")).status).toBe(400);
  });

  it("404s unknown processes and 400s ids that are not integers", async () => {
    expect((await host.api("GET", "/processes/999999")).status).toBe(404);
    expect((await host.api("GET", "/processes/abc")).status).toBe(400);
  });
});

describe("results sized for an LLM (GET /processes/:id/results) and their pages (GET /processes/:id/text)", () => {
  it("keeps the texts within CYRNEL_AGENT_TEXT_LIMIT_CHARS with head, tail and a marker, and pages them whole", async () => {
    const code = Array.from({ length: 300 }, (_, i) => `${i}`.padStart(4, "0")).join(",");
    const { id } = (await host.api("POST", "/processes", { code, block: true })).body;
    const output = (await host.api("GET", `/processes/${id}/output`)).text;

    const results = await host.api("GET", `/processes/${id}/results`);
    expect(results.status, results.text).toBe(200);
    const { stdout, stderr, output: shownOutput, error, cut } = results.body;
    expect([stderr, error]).toEqual(["", null]);
    expect(JSON.stringify(stdout).length + JSON.stringify(shownOutput).length - 4).toBeLessThanOrEqual(1000);
    expect(cut).toEqual([
      { stream: "output", totalChars: output.length, headChars: expect.any(Number), tailChars: expect.any(Number) },
      { stream: "stdout", totalChars: code.length, headChars: expect.any(Number), tailChars: expect.any(Number) },
    ]);
    const stdoutCut = cut[1];
    expect(stdout).toBe(
      `${code.slice(0, stdoutCut.headChars)}\n[… ${(code.length - stdoutCut.headChars - stdoutCut.tailChars).toLocaleString("en-US")} ` +
        `characters cut; read on with get_process {"id":${id},"stream":"stdout","offset":${stdoutCut.headChars}} ` +
        `(HTTP: GET /processes/${id}/text?stream=stdout&offset=${stdoutCut.headChars}) …]\n` +
        code.slice(code.length - stdoutCut.tailChars),
    );

    // Pages: the limit asked for, capped at the agent text limit; they join to the whole text.
    const first = await host.api("GET", `/processes/${id}/text?stream=stdout&limit=5000`);
    expect(first.body).toEqual({
      stream: "stdout",
      totalChars: code.length,
      offset: 0,
      text: code.slice(0, 1000),
      nextOffset: 1000,
    });
    const rest = await host.api("GET", `/processes/${id}/text?stream=stdout&offset=1000&limit=400`);
    expect(rest.body).toMatchObject({ offset: 1000, text: code.slice(1000, 1400), nextOffset: 1400 });
    let joined = "";
    for (let next: number | null = 0; next !== null; ) {
      const page: any = (await host.api("GET", `/processes/${id}/text?stream=output&offset=${next}`)).body;
      joined += page.text;
      next = page.nextOffset;
    }
    expect(joined).toBe(output);
    const noError = await host.api("GET", `/processes/${id}/text?stream=error`);
    expect(noError.body).toEqual({ stream: "error", totalChars: 0, offset: 0, text: "", nextOffset: null });
  });

  it("answers small results whole, with nothing cut", async () => {
    const { id } = (await host.api("POST", "/processes", { code: "fail:it broke", block: true })).body;
    const results = await host.api("GET", `/processes/${id}/results`);
    expect(results.body).toMatchObject({ exitState: "failed", error: "it broke", output: {}, stdout: "", cut: [] });
    expect((await host.api("GET", `/processes/${id}/text?stream=error&offset=3`)).body.text).toBe("broke");
  });

  it.each([
    ["an offset past the end", "stream=stdout&offset=6", 400, "offset 6 is past the end of the stdout of process"],
    ["an unknown stream", "stream=stdin", 400, "stream"],
    ["no stream", "offset=0", 400, "stream"],
    ["a negative offset", "stream=stdout&offset=-1", 400, "offset"],
    ["a zero limit", "stream=stdout&limit=0", 400, "limit"],
  ])("refuses %s", async (_label, query, status, message) => {
    const { id } = (await host.api("POST", "/processes", { code: "hello", block: true })).body;
    const response = await host.api("GET", `/processes/${id}/text?${query}`);
    expect(response.status).toBe(status);
    expect(response.body.error).toContain(message);
  });

  it("answers 409 while the process is not idle", async () => {
    const { id } = (await host.api("POST", "/processes", { code: "sleep:60000" })).body;
    try {
      for (const path of [`/processes/${id}/results`, `/processes/${id}/text?stream=stdout`]) {
        const response = await host.api("GET", path);
        expect(response.status, path).toBe(409);
        expect(response.body.code).toBe("conflict");
      }
    } finally {
      await host.api("POST", `/processes/${id}/signals/kill`);
    }
  });
});

describe("signals", () => {
  it("re-runs an idle process only with force, replacing its results", async () => {
    const first = (await host.api("POST", "/processes", { code: "again", block: true })).body;
    const refused = await host.api("POST", `/processes/${first.id}/signals/run`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("force");
    const rerun = await host.api("POST", `/processes/${first.id}/signals/run`, { force: true, block: true });
    expect(rerun.status).toBe(200);
    expect(rerun.body).toMatchObject({ id: first.id, exitState: "success", output: { echo: "again" } });
    expect(Date.parse(rerun.body.finishedAt)).toBeGreaterThanOrEqual(Date.parse(first.finishedAt));
  });

  it("refuses to run a process that is not idle", async () => {
    const running = (await host.api("POST", "/processes", { code: "sleep:5000" })).body;
    const response = await host.api("POST", `/processes/${running.id}/signals/run`, { force: true });
    expect(response.status).toBe(409);
    await host.api("POST", `/processes/${running.id}/signals/kill`);
  });

  it("kills a running process: terminating, then idle and canceled", async () => {
    const running = (await host.api("POST", "/processes", { code: "sleep:10000" })).body;
    const killed = await host.api("POST", `/processes/${running.id}/signals/kill`);
    expect(killed.status).toBe(200);
    expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled" });
    const again = await host.api("POST", `/processes/${running.id}/signals/kill`);
    expect(again.status).toBe(409);
  });

  it("ends a run at its deadline even if the environment does not (host backstop)", async () => {
    // echo-env's sleep ignores deadlines (it would end `success`), so only the host's backstop can end this run.
    const response = await host.api("POST", "/processes", { code: "sleep:60000", timeoutMs: 300, block: true });
    expect(response.body).toMatchObject({ exitState: "timeout", error: "timed out after 300 ms" });
  });

  it("ends a process that never leaves the queue at its timeoutMs, and block returns", async () => {
    // echo-env keeps "queue:forever" queued and ignores its deadline: only the host can end it.
    const response = await host.api("POST", "/processes", { code: "queue:forever", timeoutMs: 300, block: true });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      state: "idle",
      exitState: "timeout",
      startedAt: null,
      error:
        "timed out after 300 ms before its code started (the environment held it queued or in its type check past its deadline); the code never ran",
    });
  });

  it("deletes idle processes only, and never reuses an id", async () => {
    const running = (await host.api("POST", "/processes", { code: "sleep:5000" })).body;
    expect((await host.api("DELETE", `/processes/${running.id}`)).status).toBe(409);
    await host.api("POST", `/processes/${running.id}/signals/kill`);
    expect((await host.api("DELETE", `/processes/${running.id}`)).status).toBe(204);
    expect((await host.api("GET", `/processes/${running.id}`)).status).toBe(404);
    const next = (await host.api("POST", "/processes", { code: "x", block: true })).body;
    expect(next.id).toBeGreaterThan(running.id);
  });
});

describe("retention: DELETE /processes and CYRNEL_PROCESSES_RETENTION_DAYS", () => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  const finishedDaysAgo = (id: number, days: number) =>
    queryDatabase(host.dataDir, "UPDATE processes SET finished_at = ? WHERE id = ?", [
      new Date(Date.now() - days * DAY_MS).toISOString(),
      id,
    ]);
  const callsOf = async (id: number) => (await host.api("GET", `/calls?processId=${id}`)).body.items.length;

  it("deletes the idle processes that finished before a time, with their calls; never a running one", async () => {
    const old = (await host.api("POST", "/processes", { code: "call:svc.ok", block: true })).body;
    const failedOld = (await host.api("POST", "/processes", { code: "fail:boom", block: true })).body;
    const recent = (await host.api("POST", "/processes", { code: "call:svc.ok", block: true })).body;
    const running = (await host.api("POST", "/processes", { code: "sleep:60000" })).body;
    await finishedDaysAgo(old.id, 10);
    await finishedDaysAgo(failedOld.id, 10);
    expect(await callsOf(old.id)).toBe(1);
    const cutoff = new Date(Date.now() - 5 * DAY_MS).toISOString();

    const onlyFailed = await host.api("DELETE", `/processes?finishedBefore=${cutoff}&exitState=failed`);
    expect(onlyFailed.status, onlyFailed.text).toBe(200);
    expect(onlyFailed.body).toEqual({ deleted: 1 });
    expect((await host.api("GET", `/processes/${failedOld.id}`)).status).toBe(404);

    const pruned = await host.api("DELETE", `/processes?finishedBefore=${encodeURIComponent(cutoff)}`);
    expect(pruned.body).toEqual({ deleted: 1 });
    expect((await host.api("GET", `/processes/${old.id}`)).status).toBe(404);
    expect(await callsOf(old.id)).toBe(0);
    expect((await host.api("GET", `/processes/${recent.id}`)).status).toBe(200);
    expect(await callsOf(recent.id)).toBe(1);

    // Even a cutoff in the future leaves what has not finished.
    const future = new Date(Date.now() + DAY_MS).toISOString();
    await host.api("DELETE", `/processes?finishedBefore=${future}`);
    expect((await host.api("GET", `/processes/${running.id}`)).body.state).toBe("running");
    await host.api("POST", `/processes/${running.id}/signals/kill`);
  });

  it.each([
    ["no finishedBefore", "", "finishedBefore"],
    ["a finishedBefore that is no time", "?finishedBefore=yesterday", "finishedBefore"],
    ["an unknown exitState", `?finishedBefore=${new Date().toISOString()}&exitState=gone`, "exitState"],
  ])("refuses %s with a 400 naming it, deleting nothing", async (_label, query, mentions) => {
    const kept = (await host.api("POST", "/processes", { code: "x", block: true })).body;
    const response = await host.api("DELETE", `/processes${query}`);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain(mentions);
    expect((await host.api("GET", `/processes/${kept.id}`)).status).toBe(200);
  });

  it("deletes processes past CYRNEL_PROCESSES_RETENTION_DAYS when the host starts", async () => {
    const old = (await host.api("POST", "/processes", { code: "call:svc.ok", block: true })).body;
    const young = (await host.api("POST", "/processes", { code: "x", block: true })).body;
    await finishedDaysAgo(old.id, 3);
    await finishedDaysAgo(young.id, 1);
    host = await rebuild(host, { env: { ...host.options.env, CYRNEL_PROCESSES_RETENTION_DAYS: "2" } });
    await expect.poll(async () => (await host.api("GET", `/processes/${old.id}`)).status).toBe(404);
    expect(await callsOf(old.id)).toBe(0);
    expect((await host.api("GET", `/processes/${young.id}`)).status).toBe(200);
  });
});

describe("following a process (GET /processes/:id/events)", () => {
  // Over a real connection: a follower goes away by closing it.
  let url: string;
  beforeAll(async () => {
    url = await host.listen();
  });

  it("caps live followers per process (CYRNEL_PROCESS_FOLLOWERS_LIMIT) with a 429", async () => {
    const running = (await host.api("POST", "/processes", { code: "sleep:60000" })).body;
    const open = (id: number) => fetch(`${url}/processes/${id}/events`);
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

describe("GET /health", () => {
  // The host's role, and on PostgreSQL (where it may be one of many) its id and whether it holds its lease.
  const identity = {
    role: "all",
    ...(testDialect() === "postgres" && { hostId: expect.stringMatching(/^h[0-9a-f]{16}$/), leaseAlive: true }),
  };

  it("is ok with a healthy active environment", async () => {
    const response = await host.api("GET", "/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok", version: expect.any(String), ...identity });
  });

  it("reports an environment that says it is degraded, with its reason", async () => {
    await host.api("POST", "/processes", { code: "health:sandbox wedged", block: true });
    try {
      const response = await host.api("GET", "/health");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: "degraded",
        version: expect.any(String),
        reasons: ['environment "echo-env": sandbox wedged'],
        ...identity,
      });
    } finally {
      await host.api("POST", "/processes", { code: "health:", block: true });
    }
    expect((await host.api("GET", "/health")).body.status).toBe("ok");
  });

  it("reports that no environment is active", async () => {
    await host.api("POST", "/modules/echo-env/enabled", { enabled: false });
    try {
      const response = await host.api("GET", "/health");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: "degraded",
        version: expect.any(String),
        reasons: ["no environment module is active: processes cannot run"],
        ...identity,
      });
    } finally {
      await host.api("POST", "/modules/echo-env/enabled", { enabled: true });
    }
  });
});

describe("without an environment", () => {
  it("answers 503 no_environment and creates nothing", async () => {
    const before = (await host.api("GET", "/processes?limit=1")).body.items[0]?.id;
    await host.api("POST", "/modules/echo-env/enabled", { enabled: false });
    try {
      const response = await host.api("POST", "/processes", { code: "x" });
      expect(response.status).toBe(503);
      expect(response.body.code).toBe("no_environment");
      expect((await host.api("GET", "/environment/docs")).status).toBe(503);
      expect((await host.api("GET", "/processes?limit=1")).body.items[0]?.id).toBe(before);
    } finally {
      await host.api("POST", "/modules/echo-env/enabled", { enabled: true });
    }
  });

  it("cancels running processes when their environment is disabled", async () => {
    const running = (await host.api("POST", "/processes", { code: "sleep:10000" })).body;
    await host.api("POST", "/modules/echo-env/enabled", { enabled: false });
    expect((await waitIdle(running.id)).exitState).toBe("canceled");
    await host.api("POST", "/modules/echo-env/enabled", { enabled: true });
  });
});

describe("what environments going away means for their processes", () => {
  const CANCELED = "canceled: the environment was disabled";
  const state = async (id: number) => (await host.api("GET", `/processes/${id}`)).body;
  const module = async (id: string) => (await host.api("GET", `/modules/${id}`)).body;
  const environmentOf = async (id: number) =>
    (
      await host.host.store.query<{ environment: string }>(
        "select environment from executions where process_id = ? order by id desc",
        [id],
      )
    )[0]!.environment;
  const startRunning = async () => {
    const { id } = (await host.api("POST", "/processes", { code: "sleep:60000" })).body;
    await expect.poll(async () => (await state(id)).state).toBe("running");
    return id as number;
  };

  beforeAll(async () => {
    // A second environment: the fixture under another id.
    const folder = join(host.dataDir, "modules", "echo-env-b");
    cpSync(join(fixturesDir, "modules", "echo-env"), folder, { recursive: true });
    const file = join(folder, "module.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), id: "echo-env-b" }));
    expect((await host.api("POST", "/modules/reload")).status).toBe(200);
  });

  it("a switch lets the previous environment finish its running processes, then stops it", async () => {
    const running = await startRunning();
    try {
      expect((await host.api("POST", "/modules/echo-env-b/enabled", { enabled: true })).status).toBe(200);
      expect(await module("echo-env")).toMatchObject({ enabled: false, active: true });
      const next = (await host.api("POST", "/processes", { code: "on b", block: true })).body;
      expect(next.exitState).toBe("success");
      expect(await environmentOf(next.id)).toBe("echo-env-b");
      expect(await state(running)).toMatchObject({ state: "running" });
      expect(await environmentOf(running)).toBe("echo-env");
    } finally {
      await host.api("POST", `/processes/${running}/signals/kill`);
    }
    // Its last run ended (here: killed), so the previous environment is torn down.
    await expect.poll(async () => (await module("echo-env")).active).toBe(false);
    expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
    await expect.poll(async () => (await module("echo-env-b")).active).toBe(false);
  });

  it("a config change restarts the environment and cancels its processes first", async () => {
    const running = await startRunning();
    const patched = await host.api("PATCH", "/modules/echo-env/config", {});
    expect(patched.status, patched.text).toBe(200);
    expect(await state(running)).toMatchObject({ state: "idle", exitState: "canceled", error: CANCELED });
    expect(await module("echo-env")).toMatchObject({ enabled: true, active: true });
    expect((await host.api("POST", "/processes", { code: "after", block: true })).body.exitState).toBe("success");
  });

  it("deleting the active environment cancels its processes; then there is none", async () => {
    expect((await host.api("POST", "/modules/echo-env-b/enabled", { enabled: true })).status).toBe(200);
    const running = await startRunning();
    expect(await environmentOf(running)).toBe("echo-env-b");
    expect((await host.api("DELETE", "/modules/echo-env-b")).status).toBe(204);
    expect(await state(running)).toMatchObject({ state: "idle", exitState: "canceled", error: CANCELED });
    expect((await host.api("POST", "/processes", { code: "x" })).body.code).toBe("no_environment");
    expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
  });
});
