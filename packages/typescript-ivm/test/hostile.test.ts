import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, httpService, type RunResult } from "./support/fake-host.js";
import { startToolServer, type ToolServer } from "./support/tool-server.js";

/** Standard ECMAScript (and V8) globals; the sandbox adds exactly `cyrnel`, `console`, `setTimeout`, `clearTimeout`. */
const STANDARD_GLOBALS = new Set([
  "Object",
  "Function",
  "Array",
  "Number",
  "parseFloat",
  "parseInt",
  "Infinity",
  "NaN",
  "undefined",
  "Boolean",
  "String",
  "Symbol",
  "Date",
  "Promise",
  "RegExp",
  "Error",
  "AggregateError",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
  "globalThis",
  "JSON",
  "Math",
  "Intl",
  "ArrayBuffer",
  "Uint8Array",
  "Int8Array",
  "Uint16Array",
  "Int16Array",
  "Uint32Array",
  "Int32Array",
  "Float32Array",
  "Float64Array",
  "Uint8ClampedArray",
  "BigUint64Array",
  "BigInt64Array",
  "DataView",
  "Map",
  "BigInt",
  "Set",
  "WeakMap",
  "WeakSet",
  "Proxy",
  "Reflect",
  "FinalizationRegistry",
  "WeakRef",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  "eval",
  "isFinite",
  "isNaN",
  "SharedArrayBuffer",
  "Atomics",
]);
const SANDBOX_GLOBALS = ["cyrnel", "console", "setTimeout", "clearTimeout"];

const host = new FakeHost();
let server: ToolServer;

beforeAll(async () => {
  server = await startToolServer();
  host.services.demo = httpService(server.url);
  // One isolate: every run reuses the same warm isolate, so leaks between runs would show.
  await host.start({ poolSize: 1, memoryLimitMb: 64 });
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

type Check = (result: RunResult) => void;

describe("escapes through constructors and prototypes", () => {
  it.each<[string, string, Check]>([
    [
      "this.constructor.constructor('return process')()",
      `this.constructor.constructor("return process")();`,
      (r) => {
        expect(r.exit).toBe("failed");
        expect(r.errors[0]).toMatch(/^Uncaught ReferenceError: process is not defined/);
      },
    ],
    [
      "Function('return this')() is the sandbox's own global",
      `const g = Function("return this")();
       cyrnel.output({ same: g === globalThis, process: typeof g.process, require: typeof g.require, module: typeof g.module });`,
      (r) => {
        expect(r.exit).toBe("success");
        expect(r.output).toEqual({ same: true, process: "undefined", require: "undefined", module: "undefined" });
      },
    ],
    [
      "cyrnel.constructor.constructor",
      `cyrnel.output({ ctor: typeof (cyrnel as any).constructor, proto: Object.getPrototypeOf(cyrnel) });
       (cyrnel as any).constructor.constructor("return process")();`,
      (r) => {
        expect(r.exit).toBe("failed");
        expect(r.output).toEqual({ ctor: "undefined", proto: null });
        expect(r.errors[0]).toMatch(/^Uncaught TypeError: Cannot read properties of undefined/);
      },
    ],
    [
      "invoke.constructor('return this')()",
      `const g = (cyrnel.services.x.tools.y.invoke as any).constructor("return this")();
       cyrnel.output({ same: g === globalThis, process: typeof g.process });`,
      (r) => {
        expect(r.exit).toBe("success");
        expect(r.output).toEqual({ same: true, process: "undefined" });
      },
    ],
    [
      "walking every reachable object from the sandbox globals finds nothing from another realm",
      `const seen = new Set<unknown>();
       const queue: unknown[] = [globalThis, cyrnel, cyrnel.services, cyrnel.services.demo, cyrnel.services.demo.tools,
         cyrnel.services.demo.tools.echo, cyrnel.services.nope.tools.nada, console, setTimeout, clearTimeout];
       const foreign: string[] = [];
       const suspicious: string[] = [];
       while (queue.length > 0 && seen.size < 20000) {
         const value = queue.shift();
         if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
         seen.add(value);
         // Function.prototype is the one callable of this realm that is not an instance of Function.
         if (typeof value === "function" && value !== Function.prototype && !(value instanceof Function)) foreign.push(String(value));
         if (typeof value === "object" && !(value instanceof Object) && Object.getPrototypeOf(value) !== null) foreign.push("object");
         queue.push(Object.getPrototypeOf(value));
         for (const key of Reflect.ownKeys(value)) {
           if (/^(derefInto|applySync|applySyncPromise|copyInto|Reference|ExternalCopy|Isolate|Callback|ivm|send|deliver|bridge)$/i.test(String(key))) suspicious.push(String(key));
           const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
           if (descriptor === undefined) continue;
           queue.push(descriptor.value, descriptor.get, descriptor.set);
         }
       }
       cyrnel.output({ visited: seen.size, foreign, suspicious });`,
      (r) => {
        expect(r.exit).toBe("success");
        expect(r.output.visited as number).toBeGreaterThan(500);
        expect(r.output.foreign).toEqual([]);
        expect(r.output.suspicious).toEqual([]);
      },
    ],
    [
      "globalThis holds only standard globals plus the sandbox surface",
      `cyrnel.output({ keys: Reflect.ownKeys(globalThis).map(String) });`,
      (r) => {
        expect(r.exit).toBe("success");
        const keys = r.output.keys as string[];
        const extra = keys.filter(
          (key) => !STANDARD_GLOBALS.has(key) && !SANDBOX_GLOBALS.includes(key) && !key.startsWith("Symbol("),
        );
        expect(extra).toEqual([]);
        for (const name of SANDBOX_GLOBALS) expect(keys).toContain(name);
        for (const absent of [
          "process",
          "require",
          "module",
          "exports",
          "global",
          "Buffer",
          "fetch",
          "WebAssembly",
          "queueMicrotask",
          "setInterval",
          "import",
        ]) {
          expect(keys).not.toContain(absent);
        }
      },
    ],
    [
      "sloppy callbacks cannot reach the prelude through .caller",
      `let fromTimer: unknown = "unset";
       await new Promise<void>((resolve) => setTimeout(function timerCallback() { fromTimer = (timerCallback as any).caller; resolve(); }, 1));
       // Only sloppy function expressions have their own .caller; attach them as getters by hand.
       let fromGetter: unknown = "unset";
       const logged = {};
       Object.defineProperty(logged, "probe", { enumerable: true, get: function getter() { fromGetter = (getter as any).caller; return 1; } });
       console.log(logged);
       let fromInvoke: unknown = "unset";
       const params = {};
       Object.defineProperty(params, "probe", { enumerable: true, get: function getter() { fromInvoke = (getter as any).caller; return 1; } });
       await cyrnel.services.demo.tools.echo.invoke(params);
       const describe = (value: unknown) => (value === null ? null : typeof value);
       cyrnel.output({ fromTimer: describe(fromTimer), fromGetter: describe(fromGetter), fromInvoke: describe(fromInvoke) });`,
      (r) => {
        expect(r.exit).toBe("success");
        expect(r.output).toEqual({ fromTimer: null, fromGetter: null, fromInvoke: null });
      },
    ],
  ])("%s", async (_label, code, check) => {
    check(await host.run(code));
  });
});

describe("stack-trace tricks", () => {
  it("Error.prepareStackTrace sees no receivers or functions of the prelude", async () => {
    const result = await host.run(`
      const frames: { file: string | null; fn: boolean; self: boolean }[] = [];
      (Error as any).prepareStackTrace = (_error: Error, sites: any[]) => {
        for (const site of sites) {
          frames.push({ file: site.getFileName() ?? null, fn: site.getFunction() !== undefined, self: site.getThis() !== undefined });
        }
        return "captured";
      };
      const probe = () => void new Error("probe").stack;
      // Errors created inside prelude frames: a tool rejection, output and invoke validation, console getters.
      try { await cyrnel.services.demo.tools.off.invoke({}); } catch (e) { void (e as Error).stack; }
      try { cyrnel.output({ get bad() { probe(); throw new Error("getter"); } }); } catch (e) { void (e as Error).stack; }
      try { await cyrnel.services.demo.tools.echo.invoke({ get bad() { probe(); return 1; } }); } catch (e) { void (e as Error).stack; }
      console.log({ get bad() { probe(); return 1; } });
      await new Promise<void>((resolve) => setTimeout(() => { probe(); resolve(); }, 1));
      const prelude = frames.filter((frame) => frame.file === "cyrnel-prelude.js");
      (Error as any).prepareStackTrace = undefined;
      cyrnel.output({ preludeFrames: prelude.length, leaked: prelude.filter((frame) => frame.fn || frame.self).length });
    `);
    expect(result.exit).toBe("success");
    expect(result.output.preludeFrames as number).toBeGreaterThan(5);
    expect(result.output.leaked).toBe(0);
  });

  it("a prepareStackTrace that never returns only ends its own run (timeout)", async () => {
    const result = await host.run(
      `(Error as any).prepareStackTrace = () => { while (true) {} };
       await cyrnel.services.demo.tools.off.invoke({});`,
      { timeoutMs: 300 },
    );
    expect(result.exit).toBe("timeout");
  });

  it("a prepareStackTrace that throws does not break error reporting", async () => {
    const result = await host.run(`(Error as any).prepareStackTrace = () => { throw new Error("nope"); };
      throw new Error("original");`);
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^Uncaught Error: original/);
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

  it("odd property names reach the host's gate instead of the sandbox's internals", async () => {
    const result = await host.run(`
      const outcomes: string[] = [];
      for (const name of ["__proto__", "constructor", "toString", "then", "prototype"]) {
        try { await (cyrnel.services as any)[name].tools[name].invoke({}); outcomes.push("resolved"); }
        catch (e) { outcomes.push((e as { status?: number }).status + " " + (e as { code?: string }).code); }
      }
      cyrnel.output({ outcomes });
    `);
    expect(result.exit).toBe("success");
    expect(result.output.outcomes).toEqual(Array(5).fill("404 not_found"));
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

  it("a run that sabotages its own built-ins still ends with a clear result", async () => {
    const result = await host.run(`
      Object.defineProperty(Object.prototype, "then", { get() { throw new Error("then trap"); }, configurable: true });
      JSON.parse = () => { throw new Error("no parse"); };
      Promise.prototype.then = function () { throw new Error("no then"); } as never;
      let caught = "none";
      try { await cyrnel.services.demo.tools.echo.invoke({}); } catch (e) { caught = String(e); }
      console.log("caught:", caught);
    `);
    // It ends on its own (not at the deadline) with a clear result.
    expect(["success", "failed"]).toContain(result.exit);
  });
});

describe("throwing non-Errors", () => {
  it.each([
    ["a symbol", 'throw Symbol("s");', "Uncaught Symbol(s)"],
    ["a function", "throw function thrower() {};", "Uncaught [Function: thrower]"],
    [
      "an object whose toString throws",
      'throw { toString() { throw new Error("x"); } };',
      "Uncaught { toString: [Function: toString] }",
    ],
    [
      "an Error subclass with a getter message that throws",
      'class E extends Error { get message(): string { throw new Error("no"); } } throw new E();',
      "Uncaught exception (the thrown value could not be described)",
    ],
    [
      "a revoked proxy",
      "const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); throw proxy;",
      "Uncaught exception (the thrown value could not be described)",
    ],
  ])("%s fails the run with a description", async (_label, code, message) => {
    const result = await host.run(code);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([message]);
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

  it("an endless flood of console output ends at the deadline", async () => {
    const result = await host.run(`while (true) console.log("x".repeat(1000));`, { timeoutMs: 300 });
    expect(result.exit).toBe("timeout");
    expect(result.errors).toEqual(["Timed out after 300 ms"]);
  });

  it("a flood of console output is cut at the limit with one marker line", async () => {
    // 2,000 lines of 1,000 bytes: past the 1 MiB limit however slowly the machine runs them.
    const result = await host.run(`for (let i = 0; i < 2000; i++) console.log("x".repeat(1000));`);
    expect(result.exit).toBe("success");
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1024 * 1024 + 100);
    expect(result.stdout.endsWith("\n[cyrnel] stdout truncated: more than 1048576 bytes\n")).toBe(true);
    expect(result.stdout.match(/truncated/g)).toHaveLength(1);
  });

  it("a single giant console line is cut without being copied whole", async () => {
    const result = await host.run(`console.error("é".repeat(5 * 1024 * 1024)); console.error("after");`);
    expect(result.exit).toBe("success");
    expect(Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(1024 * 1024 + 100);
    expect(result.stderr).toMatch(/^é+\n\[cyrnel\] stderr truncated: more than 1048576 bytes\n$/);
  });

  it("values that throw or lie while being serialised raise a catchable TypeError", async () => {
    const result = await host.run(`
      const seen: string[] = [];
      const tries = [
        () => cyrnel.output({ get boom() { throw new Error("getter"); } }),
        () => cyrnel.output({ v: { toJSON() { return () => 1; } } }),
        () => cyrnel.output(new Proxy({}, { ownKeys() { throw new Error("keys"); } })),
      ];
      for (const t of tries) { try { t(); seen.push("ok"); } catch (e) { seen.push((e as Error).name); } }
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 100000; i++) deep = { deep };
      try { cyrnel.output({ deep }); seen.push("ok"); } catch (e) { seen.push((e as Error).name); }
      cyrnel.output({ seen });
    `);
    expect(result.exit).toBe("success");
    expect(result.output.seen).toEqual(["TypeError", "TypeError", "TypeError", "TypeError"]);
  });
});

describe("resource abuse", () => {
  it("deep recursion fails with a RangeError", async () => {
    const result = await host.run("function down(n: number): number { return down(n + 1) + 1; }\ndown(0);");
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(
      /^Uncaught RangeError: Maximum call stack size exceeded\n {4}at down \(code\.ts:1:/,
    );
  });

  it("deep recursion through the bridge (console.log at every level) fails cleanly", async () => {
    // Thousands of bridge calls: slow on a loaded machine, so the deadline (not under test) is generous.
    const result = await host.run("function down(n: number): void { console.log(n); down(n + 1); }\ndown(0);", {
      timeoutMs: 100_000,
    });
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/RangeError: Maximum call stack size exceeded/);
  });

  it("Atomics.wait blocking the isolate thread ends at the deadline", async () => {
    const result = await host.run("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);", { timeoutMs: 300 });
    expect(result.exit).toBe("timeout");
    expect(result.errors).toEqual(["Timed out after 300 ms"]);
  });

  it("a catastrophic regular expression ends at the deadline", async () => {
    const result = await host.run(`/^(a+)+$/.test("a".repeat(40) + "b");`, { timeoutMs: 300 });
    expect(result.exit).toBe("timeout");
  });

  it("code that closes the wrapper function early still runs inside the sandbox, under the deadline", async () => {
    const breakout = await host.run(`});\ncyrnel.output({ outside: typeof process });\n(async function () {`);
    expect(breakout.exit).toBe("success");
    expect(breakout.output).toEqual({ outside: "undefined" });
    const loop = await host.run(`});\nwhile (true) {}\n(async function () {`, { timeoutMs: 300 });
    expect(loop.exit).toBe("timeout");
  });
});

describe("V8 features the sandbox cannot survive are removed", () => {
  const pair = new FakeHost();

  beforeAll(async () => {
    await pair.start({ poolSize: 2 });
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
