// Hostile programs for the sandbox, with what each must end as. Shared by
// this package's hostile.test.ts (FakeHost, one warm environment) and the
// host's hostile campaign (apps/host/test/hostile-campaign.test.ts, the real
// host over HTTP), so the two suites run one list instead of two copies.
// Plain JavaScript with declarations beside it (hostile-programs.d.mts):
// each package type-checks its tests under its own root folder, so a
// TypeScript file here could not be imported by the host's tests.
//
// The programs expect an enabled service `demo` with a tool `echo` that
// accepts any object and a disabled tool `off`; every other service name
// they use does not exist. Each check receives the run's end as the host
// records it: `exit`, `error` (the run's error message, null on success),
// `output`, `stdout`, `stderr`.
import { expect } from "vitest";

/**
 * @param {string} label
 * @param {string} code
 * @param {(result: import("./hostile-programs.d.mts").ProgramResult) => void} check
 * @param {number} [timeoutMs] set where the deadline is under test; otherwise the runner's generous default
 */
const program = (label, code, check, timeoutMs) => ({ label, code, check, ...(timeoutMs ? { timeoutMs } : {}) });

/** Standard ECMAScript (and V8) globals; the sandbox adds exactly `cyrnel`, `console`, `setTimeout`, `clearTimeout`. */
export const STANDARD_GLOBALS = new Set([
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
export const SANDBOX_GLOBALS = [
  "cyrnel",
  "console",
  "setTimeout",
  "clearTimeout",
  "atob",
  "btoa",
  "TextEncoder",
  "TextDecoder",
  "structuredClone",
  "URL",
  "URLSearchParams",
  "crypto",
];

/** Ways out of the sandbox through constructors, prototypes, the global object and `.caller`. */
export const ESCAPES = [
  program(
    "this.constructor.constructor('return process')()",
    `this.constructor.constructor("return process")();`,
    (r) => {
      expect(r.exit).toBe("failed");
      expect(r.error).toMatch(/^Uncaught ReferenceError: process is not defined/);
    },
  ),
  program(
    "Function('return this')() is the sandbox's own global",
    `const g = Function("return this")();
     cyrnel.output({ same: g === globalThis, process: typeof g.process, require: typeof g.require, module: typeof g.module });`,
    (r) => {
      expect(r.exit).toBe("success");
      expect(r.output).toEqual({ same: true, process: "undefined", require: "undefined", module: "undefined" });
    },
  ),
  program(
    "cyrnel.constructor.constructor",
    `cyrnel.output({ ctor: typeof (cyrnel as any).constructor, proto: Object.getPrototypeOf(cyrnel) });
     (cyrnel as any).constructor.constructor("return process")();`,
    (r) => {
      expect(r.exit).toBe("failed");
      expect(r.output).toEqual({ ctor: "undefined", proto: null });
      expect(r.error).toMatch(/^Uncaught TypeError: Cannot read properties of undefined/);
    },
  ),
  program(
    "invoke.constructor('return this')()",
    `const g = (cyrnel.services.x.tools.y.invoke as any).constructor("return this")();
     cyrnel.output({ same: g === globalThis, process: typeof g.process });`,
    (r) => {
      expect(r.exit).toBe("success");
      expect(r.output).toEqual({ same: true, process: "undefined" });
    },
  ),
  program(
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
      expect(r.output.visited).toBeGreaterThan(500);
      expect(r.output.foreign).toEqual([]);
      expect(r.output.suspicious).toEqual([]);
    },
  ),
  program(
    "globalThis holds only standard globals plus the sandbox surface",
    `cyrnel.output({ keys: Reflect.ownKeys(globalThis).map(String) });`,
    (r) => {
      expect(r.exit).toBe("success");
      const keys = r.output.keys;
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
  ),
  program(
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
  ),
];

/** `Error.prepareStackTrace` used to look at, hang or break the frames of the sandbox's own code. */
export const STACK_TRACES = [
  program(
    "Error.prepareStackTrace sees no receivers or functions of the prelude",
    `const frames: { file: string | null; fn: boolean; self: boolean }[] = [];
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
     cyrnel.output({ preludeFrames: prelude.length, leaked: prelude.filter((frame) => frame.fn || frame.self).length });`,
    (r) => {
      expect(r.exit).toBe("success");
      expect(r.output.preludeFrames).toBeGreaterThan(5);
      expect(r.output.leaked).toBe(0);
    },
  ),
  program(
    "a prepareStackTrace that never returns only ends its own run (timeout)",
    `(Error as any).prepareStackTrace = () => { while (true) {} };
     await cyrnel.services.demo.tools.off.invoke({});`,
    (r) => expect(r.exit).toBe("timeout"),
    300,
  ),
  program(
    "a prepareStackTrace that throws does not break error reporting",
    `(Error as any).prepareStackTrace = () => { throw new Error("nope"); };
     throw new Error("original");`,
    (r) => {
      expect(r.exit).toBe("failed");
      expect(r.error).toMatch(/^Uncaught Error: original/);
    },
  ),
];

/** Names that are special to JavaScript reach the host's gate as plain (unknown) service and tool names. */
export const GATE_NAMES = [
  program(
    "odd property names reach the host's gate instead of the sandbox's internals",
    `const outcomes: string[] = [];
     for (const name of ["__proto__", "constructor", "toString", "then", "prototype"]) {
       try { await (cyrnel.services as any)[name].tools[name].invoke({}); outcomes.push("resolved"); }
       catch (e) { outcomes.push((e as { status?: number }).status + " " + (e as { code?: string }).code); }
     }
     cyrnel.output({ outcomes });`,
    (r) => {
      expect(r.exit).toBe("success");
      expect(r.output.outcomes).toEqual(Array(5).fill("404 not_found"));
    },
  ),
];

/** A run that breaks its own built-ins, the ones the sandbox's code relies on too. */
export const SABOTAGE = [
  program(
    "a run that sabotages its own built-ins still ends with a clear result",
    `Object.defineProperty(Object.prototype, "then", { get() { throw new Error("then trap"); }, configurable: true });
     JSON.parse = () => { throw new Error("no parse"); };
     Promise.prototype.then = function () { throw new Error("no then"); } as never;
     let caught = "none";
     try { await cyrnel.services.demo.tools.echo.invoke({}); } catch (e) { caught = String(e); }
     console.log("caught:", caught);`,
    // It ends on its own (not at the deadline) with a clear result.
    (r) => expect(["success", "failed"]).toContain(r.exit),
  ),
];

/** Thrown values that are not Errors, or that break while being described. */
export const NON_ERRORS = [
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
].map(([label, code, message]) =>
  program(`${label} fails the run with a description`, code, (r) => {
    expect(r.exit).toBe("failed");
    expect(r.error).toBe(message);
  }),
);

/** Values that throw or lie while `cyrnel.output` serialises them. */
export const SERIALISATION = [
  program(
    "values that throw or lie while being serialised raise a catchable TypeError",
    `const seen: string[] = [];
     const tries = [
       () => cyrnel.output({ get boom() { throw new Error("getter"); } }),
       () => cyrnel.output({ v: { toJSON() { return () => 1; } } }),
       () => cyrnel.output(new Proxy({}, { ownKeys() { throw new Error("keys"); } })),
     ];
     for (const t of tries) { try { t(); seen.push("ok"); } catch (e) { seen.push((e as Error).name); } }
     let deep: Record<string, unknown> = {};
     for (let i = 0; i < 100000; i++) deep = { deep };
     try { cyrnel.output({ deep }); seen.push("ok"); } catch (e) { seen.push((e as Error).name); }
     cyrnel.output({ seen });`,
    (r) => {
      expect(r.exit).toBe("success");
      expect(r.output.seen).toEqual(["TypeError", "TypeError", "TypeError", "TypeError"]);
    },
  ),
];

/** CPU and stack abuse that must end the run itself, at its deadline or with a clear error. */
export const RESOURCE_ABUSE = [
  program(
    "deep recursion fails with a RangeError",
    "function down(n: number): number { return down(n + 1) + 1; }\ndown(0);",
    (r) => {
      expect(r.exit).toBe("failed");
      expect(r.error).toMatch(/^Uncaught RangeError: Maximum call stack size exceeded\n {4}at down \(code\.ts:1:/);
    },
  ),
  program(
    "Atomics.wait blocking the isolate thread ends at the deadline",
    "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);",
    (r) => {
      expect(r.exit).toBe("timeout");
      expect(r.error).toBe(
        "Timed out after 300 ms while the code was running without awaiting anything (a loop, or a long computation)",
      );
    },
    300,
  ),
  program(
    "a catastrophic regular expression ends at the deadline",
    `/^(a+)+$/.test("a".repeat(40) + "b");`,
    (r) => expect(r.exit).toBe("timeout"),
    300,
  ),
  program(
    "an endless flood of console output ends at the deadline",
    `while (true) console.log("x".repeat(1000));`,
    (r) => {
      expect(r.exit).toBe("timeout");
      expect(r.error).toBe(
        "Timed out after 300 ms while the code was running without awaiting anything (a loop, or a long computation)",
      );
    },
    300,
  ),
  program(
    "code that closes the wrapper function early still runs inside the sandbox",
    `});\ncyrnel.output({ outside: typeof process });\n(async function () {`,
    (r) => {
      expect(r.exit).toBe("success");
      expect(r.output).toEqual({ outside: "undefined" });
    },
  ),
  program(
    "code that closes the wrapper function early still ends at the deadline",
    `});\nwhile (true) {}\n(async function () {`,
    (r) => expect(r.exit).toBe("timeout"),
    300,
  ),
];

/** Every program above, in one list. */
export const HOSTILE_PROGRAMS = [
  ...ESCAPES,
  ...STACK_TRACES,
  ...GATE_NAMES,
  ...SABOTAGE,
  ...NON_ERRORS,
  ...SERIALISATION,
  ...RESOURCE_ABUSE,
];
