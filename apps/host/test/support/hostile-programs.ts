/**
 * Programs that try to reach the host from the sandbox through the `shop`
 * service's tools (support/shop-api.ts, installed as "shop" and enabled),
 * each with how its process must end. Shared by code-mode.test.ts and the
 * hostile campaign.
 */

import { expect } from "vitest";

export type HostileExpectation = { failed: RegExp } | { output: Record<string, unknown> };

/** Asserts that a finished process record ended as `expected` says. */
export function expectEndedAs(
  process: { exitState: string | null; error: string | null; output: Record<string, unknown> },
  expected: HostileExpectation,
): void {
  if ("failed" in expected) {
    expect(process.exitState).toBe("failed");
    expect(process.error).toMatch(expected.failed);
  } else {
    expect(process.exitState, process.error ?? "").toBe("success");
    expect(process.output).toMatchObject(expected.output);
  }
}

/** Appended where a snippet survives: what it could see of Node. */
const REPORT = "cyrnel.output({ processType: typeof process, requireType: typeof require });";
const NOTHING = { processType: "undefined", requireType: "undefined" };
/** Where a snippet reaches a Function constructor, it tries to print the host's environment with it. */
const PRINT_ENV = "cyrnel.output({ env: JSON.stringify(p.env) });";
const noProcess = /^Uncaught ReferenceError: process is not defined\n\s+at /;

/** The programs; `services` is every enabled service id in id order (what `cyrnel.services` lists). */
export const shopHostilePrograms = (
  services: readonly string[] = ["shop"],
): [label: string, code: string, expected: HostileExpectation][] => [
  [
    "this.constructor.constructor",
    `const p = this.constructor.constructor("return process")();\n${PRINT_ENV}`,
    { failed: noProcess },
  ],
  [
    "cyrnel.constructor.constructor",
    `const p = (cyrnel as any).constructor.constructor("return process")();\n${PRINT_ENV}`,
    { failed: /^Uncaught TypeError: Cannot read properties of undefined \(reading 'constructor'\)/ },
  ],
  [
    "the constructor of a bridge function",
    `const p = cyrnel.output.constructor("return process")();\n${PRINT_ENV}`,
    { failed: noProcess },
  ],
  [
    "the constructor of a tool's invoke",
    `const p = cyrnel.services.shop.tools.getItem.invoke.constructor("return process")();\n${PRINT_ENV}`,
    { failed: noProcess },
  ],
  [
    "Object.getPrototypeOf(cyrnel.services)",
    `const proto = Object.getPrototypeOf(cyrnel.services);\ncyrnel.output({ proto: String(proto) });\nconst p = proto.constructor.constructor("return process")();\n${PRINT_ENV}`,
    { failed: /^Uncaught TypeError: Cannot read properties of null \(reading 'constructor'\)/ },
  ],
  [
    "cyrnel.services.__proto__",
    `const proto = (cyrnel.services as any).__proto__;\nconst p = proto.constructor.constructor("return process")();\n${PRINT_ENV}`,
    { failed: /^Uncaught TypeError: Cannot read properties of undefined \(reading 'constructor'\)/ },
  ],
  [
    "prototype pollution and tampering with cyrnel",
    `(Object.prototype as any).polluted = "yes";
try { Object.setPrototypeOf(cyrnel.services, { env: 1 }); } catch {}
try { (cyrnel as any).services = {}; } catch {}
const tool = cyrnel.services.shop.tools.getItem;
cyrnel.output({
  frozen: Object.isFrozen(cyrnel),
  setProto: Reflect.setPrototypeOf(cyrnel.services, null),
  servicesProto: Object.getPrototypeOf(cyrnel.services),
  toolProto: Object.getPrototypeOf(tool),
  item: await tool.invoke({ id: "p" }),
});
${REPORT}`,
    {
      output: {
        frozen: true,
        setProto: false,
        servicesProto: null,
        toolProto: null,
        item: { id: "p", name: "Item p" },
        ...NOTHING,
      },
    },
  ],
  [
    "Error.prepareStackTrace walking the frames of a tool error",
    `const seen: string[] = [];
(Error as any).prepareStackTrace = (_error: unknown, frames: any[]) => {
  for (const frame of frames) {
    for (const value of [frame.getThis?.(), frame.getFunction?.()]) {
      if (!value) continue;
      try { seen.push(JSON.stringify(value.constructor.constructor("return process")().env)); }
      catch (error: any) { seen.push(String(error.message)); }
    }
  }
  return "custom";
};
try { await (cyrnel.services as any).nope.tools.x.invoke({}); } catch (error: any) { seen.push(String(error.stack)); }
try { (cyrnel as any).output(1); } catch (error: any) { seen.push(String(error.stack)); }
cyrnel.output({ leaked: seen.filter((text) => !/^(process is not defined|custom)$/.test(text)) });
${REPORT}`,
    { output: { leaked: [], ...NOTHING } },
  ],
  [
    "callee and caller",
    `function probe(): unknown { return (probe as any).caller; }
const wrapper = (arguments as any).callee;
let callerOfWrapper: unknown = "threw";
try { callerOfWrapper = wrapper.caller; } catch {}
const timerCaller = await new Promise((resolve) => setTimeout(function tick() { resolve((tick as any).caller); }, 0));
cyrnel.output({ probeCallerIsOwnCode: probe() === wrapper, callerOfWrapper, timerCaller });
${REPORT}`,
    // The only caller user code can reach is its own wrapper; the sandbox's own functions are strict.
    { output: { probeCallerIsOwnCode: true, callerOfWrapper: "threw", timerCaller: null, ...NOTHING } },
  ],
  [
    "Symbol and Proxy tricks on cyrnel.services",
    `const s: any = cyrnel.services;
cyrnel.output({
  ownKeys: Reflect.ownKeys(s).map(String),
  symbols: [Symbol.toPrimitive, Symbol.iterator, Symbol.for("nodejs.util.inspect.custom")].map((sym) => typeof s[sym]),
  defined: Reflect.defineProperty(s, "evil", { value: 1 }),
  deleted: Reflect.deleteProperty(s, "shop"),
  viaProxy: typeof new Proxy(s, {}).shop.tools.getItem.invoke,
  viaProxyCall: await new Proxy(s, { get: (t, k) => t[k] }).shop.tools.getItem.invoke({ id: "x" }),
  globalOfInvoke: typeof s.shop.tools.getItem.invoke.constructor("return this")().process,
});
${REPORT}`,
    {
      output: {
        ownKeys: services,
        symbols: ["undefined", "undefined", "undefined"],
        defined: false,
        deleted: false,
        viaProxy: "function",
        viaProxyCall: { id: "x" },
        globalOfInvoke: "undefined",
        ...NOTHING,
      },
    },
  ],
  [
    "getters in tool parameters",
    `const params = { get id() { return typeof process === "undefined" ? "none" : JSON.stringify(process.env); } };
cyrnel.output({ result: await cyrnel.services.shop.tools.getItem.invoke(params as any) });
${REPORT}`,
    { output: { result: { id: "none" }, ...NOTHING } },
  ],
  [
    "a dynamic import",
    `const fs = await import("fs");\ncyrnel.output({ fs: Object.keys(fs) });`,
    { failed: /^Uncaught Error: Not supported/ },
  ],
  [
    "require",
    `const fs = require("fs");\ncyrnel.output({ fs: Object.keys(fs) });`,
    { failed: /^Uncaught ReferenceError: require is not defined/ },
  ],
  [
    "a static import",
    `import { readFileSync } from "node:fs";\ncyrnel.output({ file: readFileSync("/etc/passwd", "utf8") });`,
    { failed: /^SyntaxError: Cannot use import statement outside a module \(line 1, column 1\)$/ },
  ],
  ["eval of process", `cyrnel.output({ env: JSON.stringify(eval("process").env) });`, { failed: noProcess }],
  [
    "the global object",
    `const global = Function("return this")();
cyrnel.output({ found: Object.getOwnPropertyNames(global).filter((n) => /^(process|require|module|exports|global|Buffer|fetch)$/.test(n)) });
${REPORT}`,
    { output: { found: [], ...NOTHING } },
  ],
];
