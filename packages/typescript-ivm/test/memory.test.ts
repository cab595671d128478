import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, waitFor } from "./support/fake-host.js";

/**
 * Crash containment: the host process must survive memory bombs in bulk.
 * Some of these (Map growth, huge array fills) make V8 lose control of the
 * isolate ("catastrophic out-of-memory"): in-process that parks a thread and
 * leaks the heap forever, or aborts the process. They are the reason the
 * isolates live in a supervised sandbox process (see README).
 */
const BOMBS: [string, string][] = [
  ["array growth", "const a: unknown[] = []; while (true) a.push({ x: Math.random() });"],
  ["string doubling", 'let s = "x"; while (true) s += s;'],
  ["object graph", "let o: any = {}; while (true) o = { next: o, pad: new Array(64).fill(o) };"],
  ["large arrays", "const a: number[][] = []; while (true) a.push(new Array(1e5).fill(1.5));"],
  ["map growth", "const m = new Map(); let i = 0; while (true) m.set(i++, String(i));"],
  ["array buffers", "const b: ArrayBuffer[] = []; while (true) b.push(new ArrayBuffer(8 * 1024 * 1024));"],
  ["many strings", 'const a: string[] = []; while (true) a.push("y".repeat(1e6) + Math.random());'],
  ["huge array fill", "new Array(2 ** 30).fill(0);"],
  ["nested arrays", "const a: unknown[] = []; for (;;) a.push([a.length, { a }]);"],
  ["deep recursion", "function f(n: number): number { return f(n + 1) + 1; } f(0);"],
  [
    "json strings",
    'const p: string[] = []; while (true) p.push(JSON.stringify({ big: "z".repeat(1e5), n: p.length }));',
  ],
];

const host = new FakeHost();

beforeAll(async () => {
  host.services.util = { enabled: true, tools: { ping: { enabled: true, call: async () => "pong" } } };
  await host.start({ memoryLimitMb: 16 });
});

afterAll(async () => {
  await host.stop();
});

describe("memory bombs", () => {
  it("survives 110 bombs in a row, mixed with normal runs, and stays healthy", async () => {
    const rssBefore = process.memoryUsage().rss;
    const outcomes = new Map<string, Set<string>>();
    for (let round = 0; round < 10; round++) {
      for (const [name, code] of BOMBS) {
        const bomb = await host.run(code, { timeoutMs: 30_000 });
        expect(bomb.exit, `${name}: ${bomb.errors.join(" / ")}`).toBe("failed");
        const reason = (bomb.errors[0] ?? "").split("\n")[0] as string;
        expect(reason).toMatch(/^(Memory limit exceeded|Uncaught RangeError)/);
        outcomes.set(name, (outcomes.get(name) ?? new Set()).add(reason.replace(/ \(V8 could not.*$/, "")));
        const normal = await host.run(`
          const reply = await cyrnel.services.util.tools.ping.invoke({});
          console.log(reply, ${round});
          cyrnel.output({ reply });
        `);
        expect(normal.exit).toBe("success");
        expect(normal.stdout).toBe(`pong ${round}\n`);
        expect(normal.output).toEqual({ reply: "pong" });
      }
    }
    // The host process itself never held an isolate.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    expect([...(outcomes.get("string doubling") ?? [])]).toEqual(["Uncaught RangeError: Invalid string length"]);
    expect([...(outcomes.get("deep recursion") ?? [])]).toEqual([
      "Uncaught RangeError: Maximum call stack size exceeded",
    ]);
    expect([...(outcomes.get("array growth") ?? [])]).toEqual([
      "Memory limit exceeded: the code used more than the 16 MB heap limit of its isolate",
    ]);
    // Concurrency still works afterwards.
    const parallel = await Promise.all(Array.from({ length: 6 }, (_, i) => host.run(`cyrnel.output({ i: ${i} });`)));
    expect(parallel.map((result) => result.exit)).toEqual(Array(6).fill("success"));
    // 220 runs, a third of them filling a heap: minutes on a loaded 2-core machine; the time is not under test.
  }, 600_000);

  it("V8 losing a bomb's isolate fails the bomb alone: executions waiting beside it finish in their sandbox process", async () => {
    const released: (() => void)[] = [];
    host.services.hold = {
      enabled: true,
      tools: { wait: { enabled: true, call: () => new Promise((resolve) => released.push(() => resolve("go"))) } },
    };
    const waiting = Array.from({ length: 5 }, (_, i) =>
      host.submit(`const go = await cyrnel.services.hold.tools.wait.invoke({}); cyrnel.output({ i: ${i}, go });`),
    );
    await waitFor(() => released.length === 5, 30_000);
    // Map growth is the bomb V8 cannot turn into a memory-limit error (the catastrophic path, see README).
    const bombs = [];
    for (let i = 0; i < 3; i++) {
      bombs.push(await host.run("const m = new Map(); let i = 0; while (true) m.set(i++, String(i));"));
      // New executions go to a fresh sandbox process at once.
      expect((await host.run("cyrnel.output({ ok: true });")).output).toEqual({ ok: true });
    }
    const catastrophes = host.logs.filter((log) => log.message.includes("an isolate hit a catastrophic error"));
    expect(catastrophes.length).toBeGreaterThan(0);
    for (const bomb of bombs) {
      expect(bomb.exit).toBe("failed");
      expect(bomb.errors[0]).toMatch(/^Memory limit exceeded: the code used more than the 16 MB heap limit/);
    }
    for (const release of released.splice(0)) release();
    const results = await Promise.all(waiting.map((run) => run.result));
    expect(results.map((result) => [result.exit, result.errors, result.output])).toEqual(
      Array.from({ length: 5 }, (_, i) => ["success", [], { i, go: "go" }]),
    );
  });
});
