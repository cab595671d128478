import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { FakeHost, waitFor } from "./support/fake-host.js";

/** Pids of this process's children (the sandbox worker). */
function childPids(): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(process.pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

describe("timeouts (one wall-clock deadline, from when the run starts)", () => {
  const host = new FakeHost();

  beforeAll(async () => {
    host.services.slow = {
      enabled: true,
      tools: { forever: { enabled: true, call: () => new Promise((resolve) => setTimeout(resolve, 5000)) } },
    };
    await host.start({ maxExecutions: 2, memoryLimitMb: 64 });
  });

  afterAll(async () => {
    await host.stop();
  });

  const BUSY =
    "Timed out after 300 ms while the code was running without awaiting anything (a loop, or a long computation)";
  it.each([
    ["a synchronous endless loop", "while (true) {}", BUSY],
    [
      "a promise that never settles",
      "await new Promise(() => {});",
      "Timed out after 300 ms while awaiting a promise that nothing settles (no tool call or timer was pending)",
    ],
    [
      "a slow tool call",
      'console.log("first");\n  await cyrnel.services.slow.tools.forever.invoke({});',
      "Timed out after 300 ms while awaiting slow.forever (code.ts:2:44)",
    ],
    [
      "an endless chain of timers",
      "const tick = () => setTimeout(tick, 1); tick(); await new Promise(() => {});",
      // Between two timers, or running one (in a turn of its own): where the deadline found it.
      /^Timed out after 300 ms while (awaiting a timer of 1 ms \(code\.ts:1:20\)|the code was running)/,
    ],
    [
      "an endless microtask loop",
      "const spin = (): Promise<void> => Promise.resolve().then(spin); await spin();",
      BUSY,
    ],
  ])("ends %s as timeout at the deadline, not before, saying where it was", async (_label, code, error) => {
    const result = await host.run(code, { timeoutMs: 300 });
    expect(result.exit).toBe("timeout");
    expect(result.errors).toHaveLength(1);
    if (typeof error === "string") expect(result.errors[0]).toBe(error);
    else expect(result.errors[0]).toMatch(error);
    // A lower bound only: load can delay the deadline, never bring it forward.
    expect(result.elapsedMs).toBeGreaterThanOrEqual(295);
    const after = await host.run("cyrnel.output({ fine: true });");
    expect(after.exit).toBe("success");
    expect(after.output).toEqual({ fine: true });
  });

  it("ends a run that waited in the queue for its whole timeoutMs as timeout, without running it", async () => {
    const single = new FakeHost();
    await single.start({ maxExecutions: 1 });
    try {
      const blocker = single.submit("console.log('started'); while (true) {}", { timeoutMs: null });
      await waitFor(() => single.record(blocker.executionId).stdout === "started\n");
      const queued = await single.run("cyrnel.output({ ran: true });", { timeoutMs: 300 });
      expect(queued.exit).toBe("timeout");
      expect(queued.states).toEqual(["queued"]);
      expect(queued.output).toEqual({});
      expect(queued.errors).toEqual([
        "Timed out after 300 ms waiting in the queue: the sandbox was at capacity, so the code never ran",
      ]);
      await single.env?.kill(blocker.executionId);
      expect((await blocker.result).exit).toBe("canceled");
      // Once it runs, a process gets its whole timeoutMs, however long it queued.
      const slowStart = single.submit("while (true) {}", { timeoutMs: null });
      await waitFor(() => single.record(slowStart.executionId).states.includes("running"));
      const next = single.submit(
        "await new Promise((resolve) => setTimeout(resolve, 2000)); cyrnel.output({ ran: true });",
        { timeoutMs: 3000 },
      );
      await waitFor(() => single.record(next.executionId).states.includes("queued"));
      // 1.5 s queued + 2 s running: past timeoutMs in total, but each phase is within it.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await single.env?.kill(slowStart.executionId);
      const ran = await next.result;
      expect([ran.exit, ran.errors]).toEqual(["success", []]);
      expect(ran.output).toEqual({ ran: true });
    } finally {
      await single.stop();
    }
  });

  it("does not time out when timeoutMs is null", async () => {
    const result = await host.run(
      "await new Promise((resolve) => setTimeout(resolve, 150)); cyrnel.output({ ok: 1 });",
      {
        timeoutMs: null,
      },
    );
    expect(result.exit).toBe("success");
  });
});

describe("kill", () => {
  const host = new FakeHost();

  beforeAll(async () => {
    await host.start({ maxExecutions: 1 });
  });

  afterAll(async () => {
    await host.stop();
  });

  it("cancels a queued execution without running it", async () => {
    const blocker = host.submit("await new Promise((resolve) => setTimeout(resolve, 200));");
    const queued = host.submit("cyrnel.output({ ran: true });");
    await waitFor(() => host.record(queued.executionId).states.includes("queued"));
    await host.env?.kill(queued.executionId);
    const result = await queued.result;
    expect(result.exit).toBe("canceled");
    expect(result.states).toEqual(["queued"]);
    expect(result.output).toEqual({});
    expect((await blocker.result).exit).toBe("success");
  });

  it("cancels a running execution (busy loop) and the pool keeps working", async () => {
    const running = host.submit("console.log('started'); while (true) {}", { timeoutMs: null });
    await waitFor(() => host.record(running.executionId).stdout === "started\n");
    await host.env?.kill(running.executionId);
    const result = await running.result;
    expect(result.exit).toBe("canceled");
    expect(result.states).toEqual(["queued", "running"]);
    const after = await host.run("cyrnel.output({ fine: true });");
    expect(after.exit).toBe("success");
  });

  it("cancels an execution waiting on a promise", async () => {
    const running = host.submit("console.log('started'); await new Promise(() => {});", { timeoutMs: null });
    await waitFor(() => host.record(running.executionId).stdout === "started\n");
    await host.env?.kill(running.executionId);
    expect((await running.result).exit).toBe("canceled");
  });

  it("ignores unknown and finished executions", async () => {
    const done = host.submit("1;");
    expect((await done.result).exit).toBe("success");
    await host.env?.kill(999_999);
    await host.env?.kill(done.executionId);
    expect((await host.run("cyrnel.output({ still: 'fine' });")).output).toEqual({ still: "fine" });
  });
});

describe("pool and queue", () => {
  let host: FakeHost;

  afterEach(async () => {
    await host.stop();
  });

  it("runs 20 concurrent executions on a pool of 2, all successfully, at most 2 at a time", async () => {
    host = new FakeHost();
    await host.start({ maxExecutions: 2 });
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        host.run(`
          const start = Date.now();
          await new Promise((resolve) => setTimeout(resolve, 20));
          cyrnel.output({ i: ${i}, start, end: Date.now() });
        `),
      ),
    );
    expect(results.map((result) => result.exit)).toEqual(Array(20).fill("success"));
    expect(results.map((result) => result.output.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const spans = results.map((result) => ({ start: result.output.start as number, end: result.output.end as number }));
    // Sweep over start/end events (ends first at equal times) for the largest number running at once.
    const events = spans
      .flatMap((span) => [
        { at: span.start, delta: 1 },
        { at: span.end, delta: -1 },
      ])
      .sort((a, b) => a.at - b.at || a.delta - b.delta);
    let running = 0;
    let peak = 0;
    for (const event of events) {
      running += event.delta;
      peak = Math.max(peak, running);
    }
    expect(peak).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(10 * 20);
  });

  it("admits maxExecutions into the sandbox and queueSize more, then refuses with a Retry-After", async () => {
    host = new FakeHost();
    const env = await host.start({ maxExecutions: 1, queueSize: 2 });
    const admitted = Array.from({ length: 3 }, () => {
      expect(env.admit?.()).toEqual({ admitted: true });
      return host.submit("await new Promise((r) => setTimeout(r, 50));");
    });
    const reason = "typescript-ivm is at capacity: 1 execution in the sandbox and 2 waiting in the queue";
    // Nothing has ended yet to estimate from: the whole 10 s window.
    expect(env.admit?.()).toEqual({ admitted: false, retryAfterSeconds: 10, reason });
    // A host that submits anyway gets a failed run with the same reason and no state.
    const refused = await host.submit("1;").result;
    expect(refused).toMatchObject({ exit: "failed", errors: [reason], states: [] });
    const results = await Promise.all(admitted.map((run) => run.result));
    expect(results.map((result) => result.exit)).toEqual(["success", "success", "success"]);
    expect(env.admit?.()).toEqual({ admitted: true });
  });

  it("refuses a second execution with an id that is still active", async () => {
    host = new FakeHost();
    await host.start({ maxExecutions: 1 });
    const first = host.submit("await new Promise((r) => setTimeout(r, 50));");
    const second = await host.submit("1;", { executionId: first.executionId }).result;
    expect(second.exit).toBe("failed");
    expect(second.errors).toContain(`Execution ${first.executionId} is already queued or running`);
    expect((await first.result).exit).toBe("success");
  });

  it("teardown cancels queued and running executions; execute afterwards fails", async () => {
    host = new FakeHost();
    await host.start({ maxExecutions: 1 });
    const running = host.submit("while (true) {}", { timeoutMs: null });
    const queued = host.submit("1;");
    await waitFor(() => host.record(running.executionId).states.includes("running"));
    const env = host.env;
    await host.stop();
    expect((await running.result).exit).toBe("canceled");
    expect((await queued.result).exit).toBe("canceled");
    expect(childPids()).toEqual([]);
    await expect(
      env?.execute({ executionId: 12345, processId: 1, code: "1", options: { timeoutMs: 100 }, services: {} }),
    ).resolves.toBe("failed");
  });

  it("restarts a sandbox process that dies: the running execution fails clearly, the next one runs", async () => {
    host = new FakeHost();
    await host.start({ maxExecutions: 2 });
    const running = host.submit("console.log('started'); await new Promise(() => {});", { timeoutMs: null });
    await waitFor(() => host.record(running.executionId).stdout === "started\n");
    const [worker] = childPids();
    expect(worker).toBeDefined();
    process.kill(worker as number, "SIGKILL");
    const result = await running.result;
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([
      "Interrupted: the sandbox process ended (signal SIGKILL) while this execution was running",
    ]);
    const after = await host.run("cyrnel.output({ fine: true });");
    expect(after.exit).toBe("success");
    expect(childPids()).toHaveLength(1);
    expect(childPids()[0]).not.toBe(worker);
  });

  it("replaces a sandbox process that stops responding: running runs fail clearly, the queue is kept", async () => {
    host = new FakeHost();
    const env = await host.start({ maxExecutions: 1, watchdogTimeoutMs: 2000 });
    expect(env.health?.()).toEqual({ status: "ok" });
    const running = host.submit("console.log('started'); await new Promise(() => {});", { timeoutMs: null });
    await waitFor(() => host.record(running.executionId).stdout === "started\n");
    const queued = host.submit("cyrnel.output({ ran: true });", { timeoutMs: null });
    await waitFor(() => host.record(queued.executionId).states.includes("queued"));
    const [worker] = childPids();
    expect(worker).toBeDefined();
    // A stopped process answers nothing (as one whose event loop is stuck), and only SIGKILL ends it.
    process.kill(worker as number, "SIGSTOP");
    try {
      await waitFor(() => env.health?.().status === "degraded", 30_000);
      expect(env.health?.().reason).toMatch(/^the sandbox process (has not responded for|is restarting)/);
      const result = await running.result;
      expect(result.exit).toBe("failed");
      expect(result.errors).toEqual([
        "Interrupted: the sandbox process stopped responding for more than 2000 ms, so it was restarted",
      ]);
      const after = await queued.result;
      expect([after.exit, after.errors, after.output]).toEqual(["success", [], { ran: true }]);
      expect(childPids()).toHaveLength(1);
      expect(childPids()[0]).not.toBe(worker);
      expect(env.health?.()).toEqual({ status: "ok" });
      expect(host.logs.some((log) => /stopped responding/.test(log.message))).toBe(true);
    } finally {
      try {
        process.kill(worker as number, "SIGKILL");
      } catch {
        // Already gone: the watchdog killed it.
      }
    }
  });

  it("reports itself degraded while the sandbox process restarts", async () => {
    host = new FakeHost();
    const env = await host.start({ maxExecutions: 1 });
    const [worker] = childPids();
    process.kill(worker as number, "SIGKILL");
    await waitFor(() => env.health?.().status === "degraded");
    expect(env.health?.().reason).toMatch(/^the sandbox process is restarting/);
    await waitFor(() => env.health?.().status === "ok", 30_000);
    expect((await host.run("cyrnel.output({ fine: true });")).exit).toBe("success");
  });

  it("a setup the host stopped waiting for is ended by the next one: never two sandbox processes", async () => {
    host = new FakeHost();
    const env = instantiate();
    const context = { config: { maxExecutions: 1 }, secrets: {}, logger: host.logger, bindings: host };
    // The host gives up on a setup after its hook timeout and may set the module up again later.
    const abandoned = env.setup(context);
    abandoned.catch(() => {});
    await waitFor(() => childPids().length === 1, 30_000);
    const first = childPids()[0];
    await env.setup(context);
    await expect(abandoned).rejects.toThrow(/did not start/);
    expect(childPids()).toHaveLength(1);
    expect(childPids()[0]).not.toBe(first);
    await env.teardown();
    expect(childPids()).toEqual([]);
  });

  it("gives the sandbox process no environment variables (no secrets)", async () => {
    host = new FakeHost();
    process.env.CYRNEL_TEST_SECRET = "do-not-leak";
    try {
      await host.start({ maxExecutions: 1 });
      const [worker] = childPids();
      const environ = execFileSync("cat", [`/proc/${worker}/environ`], { encoding: "utf8" });
      const names = environ
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.split("=")[0]);
      // Node's own IPC plumbing is all there is.
      expect(names.every((name) => name?.startsWith("NODE_CHANNEL_"))).toBe(true);
      expect(environ).not.toContain("do-not-leak");
    } finally {
      delete process.env.CYRNEL_TEST_SECRET;
    }
  });
});
