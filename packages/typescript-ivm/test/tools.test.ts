import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, httpService } from "./support/fake-host.js";
import { startToolServer, type ToolServer } from "./support/tool-server.js";

const host = new FakeHost();
let server: ToolServer;

beforeAll(async () => {
  server = await startToolServer();
  host.services.demo = httpService(server.url);
  host.services.sleepy = { enabled: false, tools: { nap: { enabled: true, call: async () => "zzz" } } };
  await host.start({ maxExecutions: 2, memoryLimitMb: 64 });
});

afterAll(async () => {
  await host.stop();
  await server.close();
});

describe("tool calls", () => {
  it("invokes a tool over the host's bindings and returns its result", async () => {
    const result = await host.run(`
      const reply = await cyrnel.services.demo.tools.echo.invoke({ city: "Oslo", days: [1, 2], nested: { ok: true } });
      cyrnel.output({ reply });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ reply: { received: { city: "Oslo", days: [1, 2], nested: { ok: true } } } });
    expect(host.calls.at(-1)).toEqual({
      serviceId: "demo",
      toolId: "echo",
      parameters: { city: "Oslo", days: [1, 2], nested: { ok: true } },
    });
  });

  it("defaults missing parameters to {} and rejects non-object parameters", async () => {
    const result = await host.run(`
      const empty = await cyrnel.services.demo.tools.echo.invoke();
      const failures: string[] = [];
      for (const bad of [1, "x", null, [1]]) {
        try { await cyrnel.services.demo.tools.echo.invoke(bad as never); } catch (e) { failures.push(String(e)); }
      }
      try { await cyrnel.services.demo.tools.echo.invoke({ f: () => 1 }); } catch (e) { failures.push(String(e)); }
      cyrnel.output({ empty, failures });
    `);
    expect(result.exit).toBe("success");
    expect(result.output.empty).toEqual({ received: {} });
    expect(result.output.failures).toEqual([
      "TypeError: invoke() expects a parameters object, got number",
      "TypeError: invoke() expects a parameters object, got string",
      "TypeError: invoke() expects a parameters object, got null",
      "TypeError: invoke() expects a parameters object, got an array",
      'TypeError: invoke() parameters must be JSON-serialisable: property "f" is a function',
    ]);
  });

  it("asks the host for the whole response with { withResponse: true }, and refuses other options", async () => {
    const result = await host.run(`
      await cyrnel.services.demo.tools.echo.invoke({ n: 1 }, { withResponse: true });
      await cyrnel.services.demo.tools.echo.invoke({ n: 2 }, { withResponse: false });
      await cyrnel.services.demo.tools.echo.invoke({ n: 3 }, {});
      const failures: string[] = [];
      for (const bad of [1, null, { withResponse: "yes" }]) {
        try { await cyrnel.services.demo.tools.echo.invoke({}, bad as never); } catch (e) { failures.push(String(e)); }
      }
      cyrnel.output({ failures, length: cyrnel.services.demo.tools.echo.invoke.length });
    `);
    expect(result.exit, result.errors.join("\n")).toBe("success");
    expect(host.calls.slice(-3).map((call) => [call.parameters.n, call.withResponse])).toEqual([
      [1, true],
      [2, undefined],
      [3, undefined],
    ]);
    expect(result.output).toEqual({
      failures: [
        "TypeError: invoke() expects its options as an object ({ withResponse: true }), got number",
        "TypeError: invoke() expects its options as an object ({ withResponse: true }), got null",
        "TypeError: invoke() option withResponse must be a boolean, got string",
      ],
      length: 1,
    });
    // Declared for the check: the response's parts are typed, the body as the tool's result.
    const typed = await host.run(
      // Checked, not run (this fake host answers with the body alone; the host composes the response).
      `async function read() {
        const r = await cyrnel.services.demo.tools.echo.invoke({}, { withResponse: true });
        const status: number | null = r.status; const link: string | undefined = r.headers.link; void r.body;
        return { status, link };
      }
      void read;`,
      { typecheck: true },
    );
    expect(typed.errors).toEqual([]);
    const wrong = await host.run(
      "async function read() { const r = await cyrnel.services.demo.tools.echo.invoke({}, { withResponse: true }); const s: string = r.status; return s; }",
      { typecheck: true },
    );
    expect(wrong.errors[0]).toMatch(/TS2322 Type 'number \| null' is not assignable to type 'string'/);
  });

  it("lists the snapshot's services and tools for discovery", async () => {
    const result = await host.run(`
      cyrnel.output({
        services: Object.keys(cyrnel.services),
        tools: Object.keys(cyrnel.services.demo.tools),
        hasDemo: "demo" in cyrnel.services,
        hasSleepy: "sleepy" in cyrnel.services,
      });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({
      services: ["demo"],
      tools: ["echo", "slow", "gather", "fail"],
      hasDemo: true,
      hasSleepy: false,
    });
  });

  it.each([
    ["an unknown service", "nowhere.tools.thing", 404, "not_found"],
    ["an unknown tool", "demo.tools.missing", 404, "not_found"],
    ["a disabled service", "sleepy.tools.nap", 409, "service_disabled"],
    ["a disabled tool", "demo.tools.off", 409, "tool_disabled"],
  ])(
    "surfaces the gate's answer for %s as a catchable Error with status and code",
    async (_label, path, status, code) => {
      const [serviceId, , toolId] = path.split(".");
      const hitsBefore = host.calls.length;
      const result = await host.run(`
      try {
        await cyrnel.services.${serviceId}.tools.${toolId}.invoke({});
        cyrnel.output({ reached: true });
      } catch (e) {
        const error = e as { status: number; code: string; message: string; name: string };
        cyrnel.output({ isError: e instanceof Error, name: error.name, status: error.status, code: error.code, message: error.message });
      }
    `);
      expect(result.exit).toBe("success");
      expect(result.output).toMatchObject({ isError: true, name: "ToolCallError", status, code });
      expect(String(result.output.message)).toMatch(/not found|disabled/);
      expect(host.calls.length).toBe(hitsBefore);
    },
  );

  it("mirrors validation details and adapter errors", async () => {
    const result = await host.run(`
      const seen: unknown[] = [];
      try { await cyrnel.services.demo.tools.slow.invoke({}); } catch (e) {
        const error = e as { status: number; code: string; details: unknown };
        seen.push({ status: error.status, code: error.code, details: error.details });
      }
      try { await cyrnel.services.demo.tools.fail.invoke({}); } catch (e) {
        const error = e as { status: number; code: string; message: string };
        seen.push({ status: error.status, code: error.code, message: error.message });
      }
      cyrnel.output({ seen });
    `);
    expect(result.exit).toBe("success");
    expect(result.output.seen).toEqual([
      {
        status: 400,
        code: "validation_failed",
        details: [{ instancePath: "", keyword: "required", params: { missingProperty: "ms" } }],
      },
      { status: 502, code: "adapter_error", message: "HTTP 500: upstream exploded" },
    ]);
  });

  it("fails the run on an uncaught tool rejection, with the message, status, code and call site", async () => {
    const result = await host.run(`const before = 1;

const value = await cyrnel.services.demo.tools.off.invoke({ x: before });`);
    expect(result.exit).toBe("failed");
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(
      /^Uncaught ToolCallError: Tool 'off' on service 'demo' is disabled \(status 409, code tool_disabled\)\n {4}at code\.ts:3:/,
    );
  });

  it("reports a tool call that fails with nobody awaiting or catching it on stderr, with its line, and goes on", async () => {
    const result = await host.run(`cyrnel.services.demo.tools.fail.invoke({});
cyrnel.services.demo.tools.fail.invoke({}).then((reply) => reply);
await cyrnel.services.demo.tools.slow.invoke({ ms: 50 });
cyrnel.output({ done: true });`);
    expect(result.exit, result.errors.join("\n")).toBe("success");
    expect(result.output).toEqual({ done: true });
    const report =
      "[cyrnel] unhandled rejection of a tool call nobody awaited or caught: ToolCallError: HTTP 500: upstream exploded (status 502, code adapter_error)";
    expect(result.stderr).toBe(`${report}\n    at code.ts:1:33\n${report}\n    at code.ts:2:33\n`);
  });

  it.each([
    ["await", "try { await call; } catch (e) { seen.push(e.code); }"],
    [".catch", "await call.catch((e) => seen.push(e.code));"],
    [".then(_, onRejected)", "await call.then(() => 0, (e) => seen.push(e.code));"],
    [".finally then .catch", "await call.finally(() => 0).catch((e) => seen.push(e.code));"],
    ["Promise.all", "await Promise.all([call]).catch((e) => seen.push(e.code));"],
    ["Promise.allSettled", "seen.push(((await Promise.allSettled([call]))[0] as any).reason.code);"],
  ])("does not report a failed call taken up later with %s (even after it failed)", async (_label, takeUp) => {
    const result = await host.run(`const seen: string[] = [];
const call = cyrnel.services.demo.tools.fail.invoke({});
await cyrnel.services.demo.tools.slow.invoke({ ms: 50 });
${takeUp}
cyrnel.output({ seen });`);
    expect(result.exit, result.errors.join("\n")).toBe("success");
    expect(result.output).toEqual({ seen: ["adapter_error"] });
    expect(result.stderr).toBe("");
  });

  it("fails the run on a call awaited after it failed, with the tool's error (not a bare message)", async () => {
    const result = await host.run(`const first = cyrnel.services.demo.tools.slow.invoke({ ms: 50 });
const second = cyrnel.services.demo.tools.fail.invoke({});
await first;
await second;`);
    expect(result.exit).toBe("failed");
    expect(result.errors[0]).toMatch(
      /^Uncaught ToolCallError: HTTP 500: upstream exploded \(status 502, code adapter_error\)\n {4}at code\.ts:2:/,
    );
    expect(result.stderr).toBe("");
  });

  it("reports calls still in flight when the code finishes (a forgotten await)", async () => {
    const result = await host.run(`cyrnel.services.demo.tools.slow.invoke({ ms: 1000 });
cyrnel.services.demo.tools.slow.invoke({ ms: 1000 });`);
    expect(result.exit).toBe("success");
    expect(result.stderr).toBe(
      "[cyrnel] 2 tool calls were still in flight when the code finished (not awaited); their results are discarded\n",
    );
  });

  it("still fails the run on a promise of the code's own that nobody takes up, saying so", async () => {
    const result = await host.run(`async function work() { await cyrnel.services.demo.tools.fail.invoke({}); }
work();
await cyrnel.services.demo.tools.slow.invoke({ ms: 50 });`);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([
      "Uncaught (in promise) Error: HTTP 500: upstream exploded (a promise nobody awaited or caught was rejected)",
    ]);
  });

  it("runs parallel tool calls concurrently (all 10 are in flight at the upstream at once)", async () => {
    // The upstream holds each call until all 10 are in flight (or 5 s have passed, so sequential calls still end).
    const result = await host.run(`
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => cyrnel.services.demo.tools.gather.invoke({ size: 10, capMs: 5000 })),
      );
      cyrnel.output({ replies });
    `);
    expect(result.exit).toBe("success");
    expect(result.output.replies).toEqual(Array(10).fill({ inFlight: 10 }));
    expect(server.gatherPeak()).toBe(10);
  });

  it("keeps the isolate responsive while a tool call is pending", async () => {
    const result = await host.run(`
      let ticks = 0;
      const pending = cyrnel.services.demo.tools.slow.invoke({ ms: 100 });
      while (ticks < 5) { await new Promise((resolve) => setTimeout(resolve, 5)); ticks++; }
      const reply = await pending;
      cyrnel.output({ ticks, reply });
    `);
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ ticks: 5, reply: { waited: 100 } });
  });

  it("caps tool calls in flight", async () => {
    const host2 = new FakeHost();
    host2.services.demo = httpService(server.url);
    await host2.start({ maxExecutions: 1, maxPendingToolCalls: 3 });
    try {
      // Each call is held at the upstream until 4 are in flight there (never, with the cap at 3) or 10 s have passed:
      // on a loaded machine the five calls still start while the first three are in flight.
      const result = await host2.run(`
        const calls = [];
        for (let i = 0; i < 5; i++) {
          const call = cyrnel.services.demo.tools.gather.invoke({ size: 4, capMs: 10000 });
          calls.push(call.then(() => "ok", (e) => String(e)));
        }
        cyrnel.output({ outcomes: await Promise.all(calls) });
      `);
      expect(result.exit).toBe("success");
      expect(result.output.outcomes).toEqual([
        "ok",
        "ok",
        "ok",
        "RangeError: more than 3 tool calls are in flight; await some before starting more",
        "RangeError: more than 3 tool calls are in flight; await some before starting more",
      ]);
    } finally {
      await host2.stop();
    }
  });
});
