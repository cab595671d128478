import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost } from "./support/fake-host.js";

/**
 * Work a finished run leaves behind in its isolate must never run in a
 * later run's time. FinalizationRegistry callbacks only run after V8
 * collected in that isolate, so one poisoned run reproduces the problem
 * only sometimes: every test poisons several isolates, pauses, and then
 * runs programs that allocate (which makes V8 collect).
 */
const host = new FakeHost();

beforeAll(async () => {
  await host.start({ maxExecutions: 2, memoryLimitMb: 64 });
});

afterAll(async () => {
  await host.stop();
});

const ALLOCATES = `
  const items: { i: number; pad: number[] }[] = [];
  for (let i = 0; i < 20000; i++) items.push({ i, pad: new Array(20).fill(i) });
  cyrnel.output({ count: items.length });
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("work a finished run left behind", () => {
  it.each([
    [
      "FinalizationRegistry callbacks that never return",
      `const fr = new FinalizationRegistry(() => { for (;;) {} });
       for (let i = 0; i < 1e4; i++) fr.register({ big: new Array(100).fill(i) }, i);
       (globalThis as any).keep = fr;
       cyrnel.output({ a: 1 });`,
    ],
    [
      "an endless microtask chain the code did not await",
      `const spin = (): Promise<void> => Promise.resolve().then(spin);
       void spin();
       cyrnel.output({ a: 1 });`,
    ],
    [
      "a WeakRef-guarded FinalizationRegistry that blocks on Atomics.wait",
      `const fr = new FinalizationRegistry(() => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); });
       for (let i = 0; i < 1e4; i++) fr.register(new WeakRef({ i }), i);
       (globalThis as any).keep = fr;
       cyrnel.output({ a: 1 });`,
    ],
  ])("%s never run in a later run", async (_label, poison) => {
    // Several rounds of pool-sized batches: every warm isolate gets poisoned at least once.
    for (let round = 0; round < 3; round++) {
      const poisoned = await Promise.all([
        host.run(poison, { timeoutMs: 2000 }),
        host.run(poison, { timeoutMs: 2000 }),
      ]);
      // How a poisoned run itself ends is not the point (an endless promise chain also fills the heap, so some
      // fail with the memory limit); that it ended, and what comes after, is.
      for (const result of poisoned) expect(["success", "timeout", "failed"]).toContain(result.exit);
    }
    await pause(200);
    const later = await Promise.all(Array.from({ length: 6 }, () => host.run(ALLOCATES, { timeoutMs: 20_000 })));
    expect(later.map((result) => [result.exit, result.errors])).toEqual(Array(6).fill(["success", []]));
    expect(later.map((result) => result.output)).toEqual(Array(6).fill({ count: 20000 }));
  });
});
