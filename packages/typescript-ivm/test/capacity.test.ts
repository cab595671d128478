import { afterEach, describe, expect, it } from "vitest";
import { FakeHost, waitFor } from "./support/fake-host.js";

/**
 * Admission counts executions that are live in the sandbox, not busy ones:
 * an execution awaiting a tool call holds an isolate (memory) but no
 * thread, so many wait side by side. The memory budget of the sandbox
 * process bounds them, and a run that keeps growing past it fails alone.
 */
let host: FakeHost | undefined;

afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** A tool whose calls are all answered once `size` of them are pending: overlap is counted, not timed. */
function gatheringTool(size: number) {
  const pending: (() => void)[] = [];
  let peak = 0;
  return {
    peak: () => peak,
    pending: () => pending.length,
    release: () => {
      for (const answer of pending.splice(0)) answer();
    },
    tool: {
      enabled: true,
      call: (parameters: Record<string, unknown>) =>
        new Promise<unknown>((resolve) => {
          pending.push(() => resolve({ echo: parameters }));
          peak = Math.max(peak, pending.length);
          if (pending.length >= size) for (const answer of pending.splice(0)) answer();
        }),
    },
  };
}

describe("waiting is not running", () => {
  it("runs 200 executions side by side, each awaiting a tool call that answers once all 200 are pending", async () => {
    host = new FakeHost();
    const gather = gatheringTool(200);
    host.services.hold = { enabled: true, tools: { wait: gather.tool } };
    await host.start();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        host!.run(`
          const { echo } = await cyrnel.services.hold.tools.wait.invoke({ i: ${i} });
          cyrnel.output({ i: echo.i });
        `),
      ),
    );
    expect(results.map((result) => [result.exit, result.errors])).toEqual(Array(200).fill(["success", []]));
    expect(results.map((result) => result.output.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(gather.peak()).toBe(200);
  }, 120_000);
});

describe("memory budget of the sandbox process", () => {
  it("keeps admitting while the sandbox is never idle and its memory is steady", async () => {
    host = new FakeHost();
    const gather = gatheringTool(Number.POSITIVE_INFINITY);
    host.services.hold = { enabled: true, tools: { wait: gather.tool } };
    // Room for ~100 estimated executions above an idle sandbox process: admission must follow what it reports.
    await host.start({ memoryBudgetMb: 256 });
    const waiter = host.run("await cyrnel.services.hold.tools.wait.invoke({}); cyrnel.output({ waited: true });");
    await waitFor(() => gather.pending() === 1, 30_000);
    for (let i = 0; i < 300; i++) {
      const result = await host.run(`cyrnel.output({ i: ${i} });`);
      expect([result.exit, result.output]).toEqual(["success", { i }]);
    }
    gather.release();
    expect((await waiter).output).toEqual({ waited: true });
  }, 120_000);

  it("fails the execution with the largest heap once the process keeps growing past its budget; the others go on", async () => {
    host = new FakeHost();
    const gather = gatheringTool(Number.POSITIVE_INFINITY);
    host.services.hold = { enabled: true, tools: { wait: gather.tool } };
    // Each isolate may grow far beyond what the whole process may: the budget is what stops the grower.
    await host.start({ memoryBudgetMb: 192, memoryLimitMb: 1024 });
    const waiters = Array.from({ length: 5 }, (_, i) =>
      host!.run(`
        const { echo } = await cyrnel.services.hold.tools.wait.invoke({ i: ${i} });
        cyrnel.output({ i: echo.i });
      `),
    );
    // Grows by ~2 MB every 10 ms and yields in between, so its isolate can say how large it is.
    const grower = await host.run(`
      const hoard: number[][] = [];
      for (;;) {
        hoard.push(new Array(250_000).fill(hoard.length + 0.5));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    `);
    expect(grower.exit).toBe("failed");
    expect(grower.errors).toHaveLength(1);
    expect(grower.errors[0]).toMatch(
      /^Memory budget exceeded: the sandbox process grew to \d+ MB, past its budget of 192 MB, and this execution's isolate was the largest \(\d+ MB\)$/,
    );
    expect(gather.pending()).toBe(5);
    gather.release();
    const results = await Promise.all(waiters);
    expect(results.map((result) => [result.exit, result.output])).toEqual(
      Array.from({ length: 5 }, (_, i) => ["success", { i }]),
    );
    // The sandbox still takes work (replaced first if it stayed above its budget once idle).
    expect((await host.run("cyrnel.output({ after: true });")).output).toEqual({ after: true });
  }, 120_000);
});
