import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, httpService, type RunResult } from "./support/fake-host.js";
import {
  ESCAPES,
  GATE_NAMES,
  type HostileProgram,
  NON_ERRORS,
  type ProgramResult,
  RESOURCE_ABUSE,
  SABOTAGE,
  SERIALISATION,
  STACK_TRACES,
} from "./support/hostile-programs.mjs";
import { startToolServer, type ToolServer } from "./support/tool-server.js";

/**
 * Hostile code against one warm environment (FakeHost). Most programs and
 * their checks live in support/hostile-programs.mjs, shared with the host's
 * hostile campaign; the cases here depend on this fake host's setup (its one
 * service, the limits it starts with, a second environment beside it).
 */
const host = new FakeHost();
let server: ToolServer;

beforeAll(async () => {
  server = await startToolServer();
  host.services.demo = httpService(server.url);
  // One isolate: every run reuses the same warm isolate, so leaks between runs would show.
  await host.start({ maxExecutions: 1, memoryLimitMb: 64 });
});

afterEach(async () => {
  // After every hostile run the environment must still run normal code correctly.
  const after = await host.run(`
    const reply = await cyrnel.services.demo.tools.echo.invoke({ check: [1, 2] });
    console.log("healthy");
    cyrnel.output({ reply, keys: Object.keys(cyrnel.services), polluted: ({} as Record<string, unknown>).polluted ?? null });
  `);
  expect(after.exit).toBe("success");
  expect(after.stdout).toBe("healthy\n");
  expect(after.output).toEqual({ reply: { received: { check: [1, 2] } }, keys: ["demo"], polluted: null });
});

afterAll(async () => {
  await host.stop();
  await server.close();
});

/** A run as the host records it: the last error is the process's error; here every error counts. */
const asRecorded = (result: RunResult): ProgramResult => ({
  exit: result.exit,
  error: result.errors.length === 0 ? null : result.errors.join("\n"),
  output: result.output,
  stdout: result.stdout,
  stderr: result.stderr,
});

const runProgram = async ({ code, timeoutMs, check }: HostileProgram) =>
  check(asRecorded(await host.run(code, timeoutMs === undefined ? {} : { timeoutMs })));

describe.each([
  ["escapes through constructors and prototypes", ESCAPES],
  ["stack-trace tricks", STACK_TRACES],
  ["names special to JavaScript", GATE_NAMES],
  ["sabotaged built-ins", SABOTAGE],
  ["throwing non-Errors", NON_ERRORS],
  ["values that break serialisation", SERIALISATION],
  ["resource abuse", RESOURCE_ABUSE],
])("%s", (_group, programs) => {
  it.each(programs.map((entry) => [entry.label, entry] as const))("%s", async (_label, entry) => {
    await runProgram(entry);
  });
});

describe("Symbol and Proxy tricks on cyrnel.services", () => {
  it("cannot be modified, extended or re-prototyped, and answers symbols with undefined", async () => {
    const result = await host.run(`
      "use strict";
      const services = cyrnel.services as any;
      const attempts: Record<string, string> = {};
      const attempt = (name: string, fn: () => unknown) => { try { fn(); attempts[name] = "allowed"; } catch (e) { attempts[name] = (e as Error).name; } };
      attempt("assign", () => { services.demo = 1; });
      attempt("define", () => Object.defineProperty(services, "evil", { value: 1 }));
      attempt("delete", () => { delete services.demo; });
      attempt("setPrototypeOf", () => Object.setPrototypeOf(services, { injected: true }));
      attempt("assignTool", () => { services.demo.tools.echo = 1; });
      attempt("replaceInvoke", () => { services.demo.tools.echo.invoke = () => "fake"; });
      attempt("outputReplace", () => { (cyrnel as any).output = () => {}; });
      cyrnel.output({
        attempts,
        symbols: Object.getOwnPropertySymbols(services).length,
        iterator: typeof services[Symbol.iterator],
        toPrimitive: typeof services[Symbol.toPrimitive],
        keys: Reflect.ownKeys(services),
        wrapped: Object.keys(new Proxy(services, {})),
        frozen: Object.isFrozen(services),
        echoStill: typeof services.demo.tools.echo.invoke,
        unknownIsInvokable: typeof services.nope.tools.nada.invoke,
        stringTag: Object.prototype.toString.call(services),
      });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({
      attempts: {
        assign: "TypeError",
        define: "TypeError",
        delete: "TypeError",
        setPrototypeOf: "TypeError",
        assignTool: "TypeError",
        replaceInvoke: "TypeError",
        outputReplace: "TypeError",
      },
      symbols: 0,
      iterator: "undefined",
      toPrimitive: "undefined",
      keys: ["demo"],
      wrapped: ["demo"],
      frozen: true,
      echoStill: "function",
      unknownIsInvokable: "function",
      stringTag: "[object Object]",
    });
  });
});

describe("state between runs", () => {
  it("prototype pollution and globals of one run are gone in the next (same isolate)", async () => {
    const first = await host.run(`
      (Object.prototype as any).polluted = "yes";
      Array.prototype.push = () => 0;
      JSON.stringify = () => "hacked";
      (globalThis as any).leftover = "still here";
      (Promise.prototype as any).then = function () { throw new Error("then hijacked"); };
      (globalThis as any).cyrnel = { services: {} };
    `);
    expect(first.exit).toBe("success");
    const second = await host.run(`
      const items: number[] = [];
      items.push(1, 2);
      cyrnel.output({
        polluted: ({} as any).polluted ?? null,
        pushed: items.length,
        json: JSON.stringify({ a: 1 }),
        leftover: typeof (globalThis as any).leftover,
        keys: Object.keys(cyrnel.services),
      });
      await Promise.resolve(1).then((value) => value);
    `);
    expect(second.exit).toBe("success");
    expect(second.output).toEqual({
      polluted: null,
      pushed: 2,
      json: '{"a":1}',
      leftover: "undefined",
      keys: ["demo"],
    });
  });
});

describe("huge and unserialisable output", () => {
  it("one oversized cyrnel.output fails the run without sending it", async () => {
    const result = await host.run(`cyrnel.output({ small: 1 }); cyrnel.output({ big: "x".repeat(2 * 1024 * 1024) });`);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([
      "Output limit exceeded: the merged cyrnel.output() data is larger than 1048576 bytes",
    ]);
    expect(result.output).toEqual({ small: 1 });
  });

  it("output that grows past the limit across calls fails the run, even if the code catches the error", async () => {
    const result = await host.run(`
      for (let i = 0; i < 20; i++) {
        try { cyrnel.output({ ["k" + i]: "y".repeat(100 * 1024) }); } catch {}
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    `);
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^Output limit exceeded/);
    expect(Object.keys(result.output)).toHaveLength(10);
  });

  it("a tight loop of cyrnel.output reaches the host coalesced, not as one message per call", async () => {
    const result = await host.run('for (let i = 0; i < 100000; i++) cyrnel.output({ last: i, ["k" + (i % 10)]: i });');
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({
      last: 99999,
      ...Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`k${k}`, 99990 + k])),
    });
    // One message per ~10 ms of the run at most; the run ends long before 100,000 of those could pass.
    expect(result.outputCalls).toBeLessThan(10_000);
  });

  it("replacing a key counts its new size, not both", async () => {
    const result = await host.run(`for (let i = 0; i < 30; i++) cyrnel.output({ same: "z".repeat(500 * 1024) + i });`);
    expect(result.exit).toBe("success");
  });

  it("a flood of console output is cut at the limit with one marker line", async () => {
    // 2,000 lines of 1,000 bytes: past the 1 MiB limit however slowly the machine runs them.
    const result = await host.run(`for (let i = 0; i < 2000; i++) console.log("x".repeat(1000));`);
    expect(result.exit).toBe("success");
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1024 * 1024 + 100);
    expect(result.stdout.endsWith("\n[cyrnel] stdout truncated: more than 1048576 bytes\n")).toBe(true);
    expect(result.stdout.match(/truncated/g)).toHaveLength(1);
  });

  it("tells a host that marks cuts itself exactly how much it dropped, with no marker line in the stream", async () => {
    class CountingHost extends FakeHost {
      readonly dropped: { stream: string; bytes: number }[] = [];
      streamDropped(_executionId: number, stream: "stdout" | "stderr", bytes: number): void {
        this.dropped.push({ stream, bytes });
      }
    }
    const counting = new CountingHost();
    await counting.start({ maxExecutions: 1, memoryLimitMb: 64 });
    try {
      // 2,000 lines of 1,000 bytes (newline included): 2,000,000 bytes, of which 1 MiB goes out.
      const result = await counting.run(`for (let i = 0; i < 2000; i++) console.log("x".repeat(999));`);
      expect(result.exit).toBe("success");
      expect(result.stdout).not.toContain("[cyrnel]");
      const forwarded = Buffer.byteLength(result.stdout);
      expect(forwarded).toBe(1024 * 1024);
      // A running total, growing; the last, before the run ended, is exact.
      const last = counting.dropped.at(-1);
      expect(last).toEqual({ stream: "stdout", bytes: 2_000_000 - forwarded });
      expect(counting.dropped.every((told) => told.stream === "stdout" && told.bytes <= last!.bytes)).toBe(true);
      // A giant line of two-byte characters, cut inside the sandbox and again here: still exact.
      counting.dropped.length = 0;
      const giant = await counting.run(`console.error("é".repeat(3 * 1024 * 1024)); console.error("after");`);
      expect(giant.exit).toBe("success");
      expect(giant.stderr).toMatch(/^é+$/);
      const total = 3 * 1024 * 1024 * 2 + 1 + "after\n".length;
      expect(counting.dropped.at(-1)).toEqual({ stream: "stderr", bytes: total - Buffer.byteLength(giant.stderr) });
    } finally {
      await counting.stop();
    }
  });

  it("a single giant console line is cut without being copied whole", async () => {
    const result = await host.run(`console.error("é".repeat(5 * 1024 * 1024)); console.error("after");`);
    expect(result.exit).toBe("success");
    expect(Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(1024 * 1024 + 100);
    expect(result.stderr).toMatch(/^é+\n\[cyrnel\] stderr truncated: more than 1048576 bytes\n$/);
  });
});

describe("resource abuse through the bridge", () => {
  it("deep recursion through the bridge (console.log at every level) fails cleanly", async () => {
    // Thousands of bridge calls: slow on a loaded machine, so the deadline (not under test) is generous.
    const result = await host.run("function down(n: number): void { console.log(n); down(n + 1); }\ndown(0);", {
      timeoutMs: 100_000,
    });
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/RangeError: Maximum call stack size exceeded/);
  });
});

describe("V8 features the sandbox cannot survive are removed", () => {
  const pair = new FakeHost();

  beforeAll(async () => {
    await pair.start({ maxExecutions: 2 });
  });

  afterAll(async () => {
    await pair.stop();
  });

  it.each([
    ["with a timeout", "Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);"],
    ["awaited", "await Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10).value;"],
    [
      "woken by Atomics.notify",
      "const cell = new Int32Array(new SharedArrayBuffer(4)); const waiting = Atomics.waitAsync(cell, 0, 0); Atomics.notify(cell, 0); await waiting.value;",
    ],
  ])("Atomics.waitAsync %s fails its own run only; the process beside it succeeds", async (_label, code) => {
    const neighbour = pair.submit(
      "await new Promise((resolve) => setTimeout(resolve, 300)); cyrnel.output({ neighbour: true });",
    );
    const result = await pair.run(code, { timeoutMs: 5000 });
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^Uncaught TypeError: Atomics\.waitAsync is not a function/);
    const beside = await neighbour.result;
    expect([beside.exit, beside.errors, beside.output]).toEqual(["success", [], { neighbour: true }]);
  });

  it("leaves the rest of Atomics and SharedArrayBuffer working", async () => {
    const result = await pair.run(`
      const cell = new Int32Array(new SharedArrayBuffer(4));
      Atomics.add(cell, 0, 5);
      cyrnel.output({
        value: Atomics.load(cell, 0),
        woken: Atomics.notify(cell, 0, 1),
        waited: Atomics.wait(cell, 0, 0, 1),
        waitAsync: "waitAsync" in Atomics,
      });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ value: 5, woken: 0, waited: "not-equal", waitAsync: false });
  });
});
