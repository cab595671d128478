import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost } from "./support/fake-host.js";

const host = new FakeHost();

beforeAll(async () => {
  await host.start({ maxExecutions: 2, memoryLimitMb: 64 });
});

afterAll(async () => {
  await host.stop();
});

describe("running code", () => {
  it("reports queued then running and succeeds", async () => {
    const result = await host.run("const x: number = 1 + 1;");
    expect(result.exit).toBe("success");
    expect(result.states).toEqual(["queued", "running"]);
    expect(result.errors).toEqual([]);
  });

  it("supports top-level await", async () => {
    const result = await host.run(`
      const value = await new Promise<number>((resolve) => setTimeout(() => resolve(42), 10));
      cyrnel.output({ value });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ value: 42 });
  });

  it("supports return to end early", async () => {
    const result = await host.run(`
      cyrnel.output({ before: true });
      if (Math.max(1, 2) === 2) return;
      cyrnel.output({ after: true });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ before: true });
    expect(result.stderr).toBe("");
  });

  it.each([
    ["an object", "return { answer: 42, list: [1, 2] };", "{ answer: 42, list: [ 1, 2 ] }"],
    ["a string", 'return "done";', '"done"'],
    ["null", "return null;", "null"],
    ["a long value, cut", 'return "x".repeat(1000);', `"${"x".repeat(199)}…`],
  ])(
    "reports a returned value (%s) as discarded on stderr: only cyrnel.output is kept",
    async (_label, code, shown) => {
      const result = await host.run(`cyrnel.output({ kept: true });\n${code}`);
      expect(result.exit).toBe("success");
      expect(result.output).toEqual({ kept: true });
      expect(result.stderr).toBe(
        `[cyrnel] the code returned a value, which is discarded (use cyrnel.output({ ... }) to keep results): ${shown}\n`,
      );
    },
  );

  it("strips TypeScript syntax without type-checking", async () => {
    const result = await host.run(`
      enum Color { Red = "red", Blue = "blue" }
      interface Box<T> { value: T }
      type Pair = [string, number];
      const box: Box<Color> = { value: Color.Blue };
      const wrong: number = "not a number" as unknown as number;
      const pair = ["a", 1] as Pair;
      function id<T>(value: T): T { return value; }
      class Counter { private count = 0; inc(): this { this.count++; return this; } get value() { return this.count; } }
      cyrnel.output({ color: box.value, wrong, pair: id(pair), count: new Counter().inc().inc().value });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ color: "blue", wrong: "not a number", pair: ["a", 1], count: 2 });
  });

  it("merges output shallowly across calls", async () => {
    const result = await host.run(`
      cyrnel.output({ a: 1, nested: { x: 1 } });
      cyrnel.output({ b: 2, nested: { y: 2 } });
      cyrnel.output({ a: 3 });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ a: 3, b: 2, nested: { y: 2 } });
    // Calls in quick succession reach the host merged (see src/worker/outbox.ts); the merge is the same.
    expect(result.outputCalls).toBeGreaterThanOrEqual(1);
    expect(result.outputCalls).toBeLessThanOrEqual(3);
  });

  it("writes console.log/info/debug to stdout and warn/error to stderr, one line per call", async () => {
    const result = await host.run(`
      console.log("plain", "strings");
      console.info({ a: 1, b: "two", c: [1, 2, { d: null }] });
      console.debug(1, -0, 10n, true, undefined, null, Symbol("s"));
      console.warn("careful", new Map([["k", 1]]), new Set([1]));
      console.error(new Error("bad"));
      console.log(function named() {}, () => 1, new Date(0), /re/g, "multi\\nline");
      const circular: Record<string, unknown> = { name: "loop" };
      circular.self = circular;
      console.log(circular, { deep: { deeper: { deepest: { gone: 1 } } } }, Object.create(null));
    `);
    expect(result.exit).toBe("success");
    expect(result.stdout.split("\n")).toEqual([
      "plain strings",
      '{ a: 1, b: "two", c: [ 1, 2, { d: null } ] }',
      "1 -0 10n true undefined null Symbol(s)",
      "[Function: named] [Function (anonymous)] 1970-01-01T00:00:00.000Z /re/g multi",
      "line",
      '{ name: "loop", self: [Circular] } { deep: { deeper: { deepest: [Object] } } } [Object: null prototype] {}',
      "",
    ]);
    const stderr = result.stderr.split("\n");
    expect(stderr[0]).toBe('careful Map(1) { "k" => 1 } Set(1) { 1 }');
    expect(stderr[1]).toBe("Error: bad");
    expect(stderr[2]).toMatch(/^ {4}at code\.ts:6:21$/);
  });

  it("cyrnel.output rejects non-objects and unserialisable values with a catchable TypeError", async () => {
    const result = await host.run(`
      const attempts: [string, () => void][] = [
        ["string", () => cyrnel.output("text" as never)],
        ["null", () => cyrnel.output(null as never)],
        ["array", () => cyrnel.output([1, 2] as never)],
        ["function value", () => cyrnel.output({ f: () => 1 })],
        ["bigint", () => cyrnel.output({ n: 10n })],
        ["symbol", () => cyrnel.output({ s: Symbol("x") })],
        ["cycle", () => { const o: Record<string, unknown> = {}; o.o = o; cyrnel.output({ o }); }],
        ["__proto__", () => cyrnel.output(JSON.parse('{"__proto__": {"polluted": true}}'))],
      ];
      const seen: Record<string, string> = {};
      for (const [name, attempt] of attempts) {
        try { attempt(); seen[name] = "no error"; } catch (error) {
          seen[name] = error instanceof TypeError ? "TypeError: " + error.message : "other: " + String(error);
        }
      }
      cyrnel.output({ seen, fine: true });
    `);
    expect(result.exit).toBe("success");
    const seen = result.output.seen as Record<string, string>;
    for (const value of Object.values(seen)) expect(value).toMatch(/^TypeError: /);
    expect(seen.string).toContain("expects a plain object, got string");
    expect(seen["function value"]).toContain('property "f" is a function');
    expect(seen.bigint).toContain('property "n" is a bigint');
    expect(seen.cycle).toContain("circular");
    expect(result.output.fine).toBe(true);
    expect(result.outputCalls).toBe(1);
  });
});

describe("failures", () => {
  it("fails a syntax error with the compiler message and the user's line and column", async () => {
    const result = await host.run("const ok = 1;\nconst broken = ;\n");
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual(["SyntaxError: Unexpected token (line 2, column 16)"]);
    expect(result.states).toEqual(["queued", "running"]);
  });

  it("reports V8-level syntax errors (not caught by the transpiler) with the user's position", async () => {
    const result = await host.run("let a = 1;\n  let a = 2;");
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual(["SyntaxError: Identifier 'a' has already been declared (line 2, column 7)"]);
  });

  it("places an error at the end of the input on the user's last line", async () => {
    const result = await host.run("const a = [1,\n  2,");
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^SyntaxError: .+ \(line 2, column \d+\)$/);
  });

  it("rejects import statements and dynamic import", async () => {
    const staticImport = await host.run('import fs from "node:fs";\nconsole.log(fs);');
    expect(staticImport.exit).toBe("failed");
    expect(staticImport.errors[0]).toMatch(/^SyntaxError: Cannot use import statement outside a module \(line 1/);
    const dynamicImport = await host.run('const fs = await import("node:fs");\ncyrnel.output({ fs: typeof fs });');
    expect(dynamicImport.exit).toBe("failed");
    expect(dynamicImport.errors[0]).toMatch(/^Uncaught Error: Not supported\n {4}at code\.ts:1:/);
    expect(dynamicImport.output).toEqual({});
  });

  it("fails on a thrown Error with its message and the user's stack frames (source line numbers)", async () => {
    const result = await host.run(`const a: number = 1;
function inner(): never {
  throw new RangeError("boom " + a);
}
inner();`);
    expect(result.exit).toBe("failed");
    expect(result.errors).toHaveLength(1);
    const [first, ...frames] = (result.errors[0] as string).split("\n");
    expect(first).toBe("Uncaught RangeError: boom 1");
    expect(frames[0]).toMatch(/^ {4}at inner \(code\.ts:3:9\)$/);
    expect(frames[1]).toMatch(/^ {4}at code\.ts:5:1$/);
  });

  it.each([
    ["a string", 'throw "just a string";', 'Uncaught "just a string"'],
    ["an object", "throw { reason: 'nope', code: 7 };", 'Uncaught { reason: "nope", code: 7 }'],
    ["null", "throw null;", "Uncaught null"],
    ["undefined", "throw undefined;", "Uncaught undefined"],
    ["a number", "throw 42;", "Uncaught 42"],
  ])("fails on thrown %s", async (_label, code, message) => {
    const result = await host.run(code);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([message]);
  });

  it("fails on a rejected promise that the code awaits", async () => {
    const result = await host.run("await Promise.reject(new TypeError('late'));");
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^Uncaught TypeError: late/);
  });

  it("fails when a timer callback throws, even while the main code still waits", async () => {
    const result = await host.run(`
      setTimeout(() => { throw new Error("from a timer"); }, 5);
      await new Promise(() => {});
    `);
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^Uncaught Error: from a timer\n {4}at code\.ts:2:32/);
  });

  it("describes thrown values whose getters throw without failing itself", async () => {
    const result = await host.run(`
      const hostile = new Proxy({}, { get() { throw new Error("trap"); }, ownKeys() { throw new Error("trap"); } });
      throw hostile;
    `);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual(["Uncaught exception (the thrown value could not be described)"]);
  });
});

describe("timers", () => {
  it("runs setTimeout callbacks with arguments and honours clearTimeout", async () => {
    const result = await host.run(`
      const order: string[] = [];
      const cleared = setTimeout(() => order.push("cleared"), 5);
      clearTimeout(cleared);
      await new Promise<void>((resolve) => setTimeout((a: string, b: string) => { order.push(a + b); resolve(); }, 20, "x", "y"));
      setTimeout(() => order.push("first"), 1);
      await new Promise((resolve) => setTimeout(resolve, 30));
      cyrnel.output({ order, id: typeof cleared });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ order: ["xy", "first"], id: "number" });
  });

  it("never fires a timer after the code has finished", async () => {
    const { executionId, result } = host.submit(`
      setTimeout(() => cyrnel.output({ late: true }), 1);
      cyrnel.output({ done: true });
    `);
    const finished = await result;
    expect(finished.exit).toBe("success");
    expect(finished.output).toEqual({ done: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(host.record(executionId).output).toEqual({ done: true });
    expect(host.record(executionId).outputCalls).toBe(1);
  });

  it("caps the number of pending timers", async () => {
    const result = await host.run(`
      let made = 0;
      try { for (let i = 0; i < 5000; i++) { setTimeout(() => {}, 100000); made++; } }
      catch (error) { cyrnel.output({ made, error: String(error) }); }
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ made: 1000, error: "RangeError: setTimeout(): more than 1000 timers are pending" });
  });

  it("rejects a non-function callback", async () => {
    const result = await host.run(`setTimeout("cyrnel.output({ evil: true })" as never, 1);`);
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(/^Uncaught TypeError: setTimeout\(\) expects a function/);
  });
});
