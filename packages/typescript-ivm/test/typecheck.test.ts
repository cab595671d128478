import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, type FakeService, waitFor } from "./support/fake-host.js";

/**
 * Type checks through the environment: the checker thread, the render
 * threads, the declarations kept per service revision, and what happens
 * when a check cannot finish or types are not to be had. A fake host
 * (support/fake-host.ts) answers `serviceTools` from its services' schemas.
 */

/** A union of 125,000 tuples: TypeScript takes tens of seconds (and much memory) to check this. */
const HOSTILE_TYPES = `type D = ${Array.from({ length: 50 }, (_, i) => i).join(" | ")};
type P = { [K in D]: { [L in D]: { [M in D]: [K, L, M] }[D] }[D] }[D];
const p: P = [1, 2, 3];`;

function shop(): FakeService {
  return {
    enabled: true,
    tools: {
      getItem: {
        enabled: true,
        call: async (parameters) => ({ id: parameters.id, name: `Item ${parameters.id}` }),
        inputSchema: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
        outputSchema: {
          type: "object",
          required: ["id", "name"],
          // A `status` of its own, as API results often have (a response's `status` is a number).
          properties: { id: { type: "string" }, name: { type: "string" }, status: { type: "string" } },
        },
      },
    },
  };
}

const BUDGET_MS = 6_000;
const host = new FakeHost();
beforeAll(async () => {
  host.services.shop = shop();
  // A budget far above what an ordinary program's check takes even on a loaded machine (a good check is tens of
  // milliseconds, and was seen past 1 s under load), and far below what the hostile types take (tens of seconds).
  // A heap the hostile types do not fill within the budget (they grow by tens of megabytes a second): these checks
  // end at their budget, whatever the machine's speed (running out of memory is the suite below).
  await host.start({ typecheck: true, typecheckTimeoutMs: BUDGET_MS, typecheckMemoryMb: 2048 });
});
afterAll(() => host.stop());

const GOOD = `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "1" });\ncyrnel.output({ name: item.name });`;

describe("with typecheck on by default (the module's config)", () => {
  it("refuses code with type errors before it runs: no tool call, only `queued` reported", async () => {
    const calls = host.calls.length;
    const result = await host.run(
      `await cyrnel.services.shop.tools.getItem.invoke({ id: "1" });\nconst n: number = "x";`,
    );
    expect(result.exit).toBe("failed");
    expect(result.states).toEqual(["queued"]);
    expect(result.errors).toEqual([
      "Type check failed with 1 type error, so the code did not run:\ncode.ts:2:7 TS2322 Type 'string' is not assignable to type 'number'.",
    ]);
    expect(host.calls.length).toBe(calls);
  });

  it("reports a wrong parameter once: the result keeps its type (no cascade onto what the code reads)", async () => {
    const result = await host.run(
      `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: 1 });\ncyrnel.output({ name: item.name, status: item.status });`,
    );
    expect(result.exit).toBe("failed");
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(
      /^Type check failed with 1 type error, so the code did not run:\ncode\.ts:1:\d+ TS2322 /,
    );
    const whole = await host.run(
      `const r = await cyrnel.services.shop.tools.getItem.invoke({ id: 1 }, { withResponse: true });\ncyrnel.output({ name: r.body.name, status: r.status });`,
    );
    expect(whole.errors[0]).toMatch(/^Type check failed with 1 type error/);
  });

  it("runs code that type-checks", async () => {
    const result = await host.run(GOOD);
    expect(result.exit, result.errors.join("\n")).toBe("success");
    expect(result.output).toEqual({ name: "Item 1" });
  });

  it("refuses a call to a tool the service's policy denies, naming it, before anything runs", async () => {
    const calls = host.calls.length;
    const services = { shop: { ...host.catalog().shop!, denied: ["getItem"] } };
    const result = await host.run(`console.log("first");\n${GOOD}`, { services });
    expect(result.exit).toBe("failed");
    expect(result.stdout).toBe("");
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(
      /^Type check failed with 1 type error, so the code did not run:\ncode\.ts:2:\d+ TS2339 Tool 'getItem' of service 'shop' is denied by the service's policy: every call fails with 403 tool_denied, so the code did not run \(any call before it would have been made\); remove the call, or ask an operator to change the policy$/,
    );
    expect(host.calls.length).toBe(calls);
    // Unchecked, the call reaches the host (whose gate answers 403 tool_denied): the catalog's list is not a gate.
    const unchecked = await host.run(GOOD, { services, typecheck: false });
    expect(unchecked.exit).toBe("success");
    expect(host.calls.length).toBe(calls + 1);
  });

  it("options.typecheck false runs code unchecked", async () => {
    const result = await host.run(
      `const n: number = "x" as any as string as never;\nconst m: number = "y";\ncyrnel.output({ m });`,
      {
        typecheck: false,
      },
    );
    expect(result.exit).toBe("success");
    expect(result.output).toEqual({ m: "y" });
  });

  it("prepares a service's declarations once per revision, and again when the service changes", async () => {
    const requests = () => host.toolRequests.filter((id) => id === "shop").length;
    const before = requests();
    for (let i = 0; i < 3; i++) expect((await host.run(`${GOOD}\n// ${i}`)).exit).toBe("success");
    expect(requests()).toBe(before);

    const getItem = host.services.shop!.tools.getItem!;
    const inputSchema = getItem.inputSchema;
    getItem.inputSchema = { type: "object", required: ["sku"], properties: { sku: { type: "string" } } };
    try {
      const changed = await host.run(GOOD);
      expect(changed.exit).toBe("failed");
      expect(changed.errors[0]).toMatch(
        /TS2353 Object literal may only specify known properties, and 'id' does not exist/,
      );
      expect(requests()).toBe(before + 1);
    } finally {
      getItem.inputSchema = inputSchema;
    }
    expect((await host.run(GOOD)).exit).toBe("success");
  });

  it("a check past its budget fails the code without running it, and the next check works", async () => {
    const calls = host.calls.length;
    const result = await host.run(`${HOSTILE_TYPES}\nawait cyrnel.services.shop.tools.getItem.invoke({ id: "1" });`);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([
      `Type check did not finish within its budget of ${BUDGET_MS} ms (typecheckTimeoutMs), so the code did not run: simplify the types it uses, or submit it with "typecheck": false to run it unchecked`,
    ]);
    expect(host.calls.length).toBe(calls);
    const next = await host.run(`${GOOD}\n// after the budget`);
    expect(next.exit, next.errors.join("\n")).toBe("success");
  });

  it("checks submitted together are checked together; one past the budget fails alone", async () => {
    const good = Array.from({ length: 20 }, (_, i) => host.submit(`${GOOD}\n// together ${i}`).result);
    const wrong = host.submit(`${GOOD}\nconst n: number = "together";`).result;
    // It names the service as the good ones do, so it is batched with them (checks of one scope go together).
    const hostile = host.submit(`${HOSTILE_TYPES}\nvoid cyrnel.services.shop;\n// together`).result;
    const results = await Promise.all(good);
    expect(results.map((result) => [result.exit, result.errors])).toEqual(Array(20).fill(["success", []]));
    expect((await wrong).errors).toEqual([
      "Type check failed with 1 type error, so the code did not run:\ncode.ts:3:7 TS2322 Type 'string' is not assignable to type 'number'.",
    ]);
    expect((await hostile).errors[0]).toMatch(
      new RegExp(`^Type check did not finish within its budget of ${BUDGET_MS} ms`),
    );
  });

  it("a run whose deadline passes while it is being checked times out without running", async () => {
    const result = await host.run(`${HOSTILE_TYPES}\n// deadline`, { timeoutMs: 200 });
    expect(result.exit).toBe("timeout");
    expect(result.states).toEqual(["queued"]);
    expect(result.errors[0]).toBe(
      'Timed out after 200 ms in the type check while checking the code, so the code never ran: submit it again (what was prepared is kept), give it a longer timeoutMs, or submit it with "typecheck": false to run it unchecked',
    );
  });

  it("a run killed while it is being checked ends canceled at once, not when the check would have ended", async () => {
    // A checker with a minute's budget: ending "at once" and ending at the budget are then far apart whatever the
    // machine's load, so the comparison below is an order of events, not a timing.
    const patient = new FakeHost();
    patient.services.shop = shop();
    await patient.start({ typecheck: true, typecheckTimeoutMs: 60_000 });
    try {
      const { executionId, result } = patient.submit(`${HOSTILE_TYPES}\n// killed`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await patient.env?.kill(executionId);
      const ended = await result;
      expect(ended.exit).toBe("canceled");
      expect(ended.elapsedMs).toBeLessThan(30_000);
    } finally {
      await patient.stop();
    }
  });

  it("a service whose types cannot be had is typed any: its calls run unchecked, with a note; the rest is checked", async () => {
    host.services.flaky = {
      enabled: true,
      tools: { ping: { enabled: true, call: async () => "pong" } },
    };
    const serviceTools = host.serviceTools.bind(host);
    host.serviceTools = async (serviceId) => {
      if (serviceId === "flaky") throw new Error("the definition store is offline");
      return serviceTools(serviceId);
    };
    try {
      // Declared, the result would be `unknown` (its output schema says nothing), not assignable to a number.
      const ran = await host.run(
        `const reply: number = await cyrnel.services.flaky.tools.ping.invoke({});\ncyrnel.output({ reply });`,
      );
      expect(ran.exit, ran.errors.join("\n")).toBe("success");
      expect(ran.output).toEqual({ reply: "pong" });
      expect(ran.stderr).toBe(
        '[cyrnel] calls to service "flaky" were not type-checked: its types are unavailable (the definition store is offline)\n',
      );
      expect(host.logs.some((log) => log.level === "warn" && /types are unavailable/.test(log.message))).toBe(true);
      const checked = await host.run(`await cyrnel.services.flaky.tools.ping.invoke({});\nconst n: number = "x";`);
      expect(checked.exit).toBe("failed");
      expect(checked.errors[0]).toMatch(/^code\.ts:2:7 TS2322 /m);
    } finally {
      host.serviceTools = serviceTools;
      delete host.services.flaky;
    }
  });
});

describe("what a check waits for", () => {
  const cold = new FakeHost();
  /** Tools of "stalled" are never answered: a service whose declarations take forever. */
  let stalledRequests = 0;
  beforeAll(async () => {
    cold.services.shop = shop();
    cold.services.stalled = { enabled: true, tools: { ping: { enabled: true, call: async () => "pong" } } };
    const serviceTools = cold.serviceTools.bind(cold);
    cold.serviceTools = (serviceId, toolIds) => {
      if (serviceId !== "stalled") return serviceTools(serviceId, toolIds);
      stalledRequests++;
      return new Promise(() => {});
    };
    await cold.start({ typecheck: true });
  });
  afterAll(() => cold.stop());

  it("prepares the services the host names ahead of any run, so the first check does not ask for them", async () => {
    // The host hands over its catalog (EnvironmentModule.prepare) once the environment is active.
    cold.env?.prepare?.({ shop: cold.catalog().shop! });
    await waitFor(() => cold.toolRequests.includes("shop"), 60_000);
    const asked = cold.toolRequests.length;
    const ran = await cold.run(GOOD);
    expect(ran.exit, ran.errors.join("\n")).toBe("success");
    expect(cold.toolRequests.length).toBe(asked);
  });

  it("checks code against only the services it names: one whose types never come does not hold it up", async () => {
    const ran = await cold.run(GOOD);
    expect(ran.exit, ran.errors.join("\n")).toBe("success");
    const none = await cold.run("const n: number = 1;\nconsole.log(n, Object.keys(cyrnel.services).length);");
    expect(none.exit, none.errors.join("\n")).toBe("success");
    expect(none.stdout).toBe("1 2\n");
    // A service the code does not name is typed `any`, and is not asked for.
    expect(stalledRequests).toBe(0);
  });

  it("a run that times out in its check says what the check was waiting for", async () => {
    const result = await cold.run("await cyrnel.services.stalled.tools.ping.invoke({});", { timeoutMs: 300 });
    expect(result.exit).toBe("timeout");
    expect(result.errors).toEqual([
      'Timed out after 300 ms in the type check while preparing the types of service "stalled" (once per change of a service; a large API takes seconds), so the code never ran: submit it again (what was prepared is kept), give it a longer timeoutMs, or submit it with "typecheck": false to run it unchecked',
    ]);
    expect(stalledRequests).toBe(1);
  });
});

describe("a service with more tools than are declared whole", () => {
  const large = new FakeHost();
  const TOOLS = 2_500;
  beforeAll(async () => {
    const tools: FakeService["tools"] = {};
    for (let i = 0; i < TOOLS; i++) {
      tools[`op${i}`] = {
        enabled: true,
        call: async (parameters) => ({ echoed: parameters.count }),
        inputSchema: { type: "object", required: ["count"], properties: { count: { type: "integer" } } },
        outputSchema: { type: "object", required: ["echoed"], properties: { echoed: { type: "integer" } } },
      };
    }
    large.services.graph = { enabled: true, tools };
    large.services.shop = shop();
    await large.start({ typecheck: true });
  });
  afterAll(() => large.stop());

  it("is declared with only the tools the code names: a misuse of one is a type error, a tool it lacks too", async () => {
    const wrong = await large.run(`const r = await cyrnel.services.graph.tools.op1234.invoke({ count: "3" });`);
    expect(wrong.exit).toBe("failed");
    expect(wrong.errors[0]).toMatch(/^Type check failed with 1 type error[\s\S]*code\.ts:1:61 TS2322 /);
    expect(large.namedToolRequests).toEqual([{ serviceId: "graph", toolIds: ["op1234"] }]);

    const right = await large.run(
      `const { op7, op1234 } = cyrnel.services.graph.tools;\nconst r = await op1234.invoke({ count: 3 });\nconst n: number = r.echoed + (await op7.invoke({ count: 1 })).echoed;\ncyrnel.output({ n });`,
    );
    expect(right.exit, right.errors.join("\n")).toBe("success");
    expect(right.output).toEqual({ n: 4 });

    const missing = await large.run(`await cyrnel.services.graph.tools.op999999.invoke({ count: 1 });`);
    expect(missing.exit).toBe("failed");
    expect(missing.errors[0]).toMatch(/TS2339 Property 'op999999' does not exist/);
    // Never the whole service: each request for its tools named some.
    expect(large.toolRequests.filter((id) => id === "graph")).toHaveLength(large.namedToolRequests.length);
  });

  it("a service the host refuses whole (types_too_large) is declared per program the same way", async () => {
    large.services.wide = shop();
    const serviceTools = large.serviceTools.bind(large);
    large.serviceTools = async (serviceId, toolIds) => {
      if (serviceId === "wide" && toolIds === undefined) {
        throw Object.assign(new Error("the types of service wide exceed the budget"), { code: "types_too_large" });
      }
      return serviceTools(serviceId, toolIds);
    };
    try {
      const wrong = await large.run(`await cyrnel.services.wide.tools.getItem.invoke({ id: 1 });`);
      expect(wrong.exit).toBe("failed");
      expect(wrong.errors[0]).toMatch(/code\.ts:1:51 TS2322 /);
      expect(large.namedToolRequests.at(-1)).toEqual({ serviceId: "wide", toolIds: ["getItem"] });
    } finally {
      large.serviceTools = serviceTools;
      delete large.services.wide;
    }
  });
});

describe("a checker that runs out of memory", () => {
  const small = new FakeHost();
  beforeAll(async () => {
    small.services.shop = shop();
    await small.start({ typecheck: true, typecheckMemoryMb: 96, typecheckTimeoutMs: 60_000 });
  });
  afterAll(() => small.stop());

  it("fails the code without running it, and a new checker takes the next one", async () => {
    const result = await small.run(HOSTILE_TYPES);
    expect(result.exit).toBe("failed");
    expect(result.errors).toEqual([
      'Type check ran out of memory (the checker\'s 96 MB heap limit, typecheckMemoryMb), so the code did not run: simplify the types it uses, or submit it with "typecheck": false to run it unchecked',
    ]);
    const next = await small.run(GOOD);
    expect(next.exit, next.errors.join("\n")).toBe("success");
  });
});

describe("with typecheck off by default", () => {
  const off = new FakeHost();
  beforeAll(async () => {
    off.services.shop = shop();
    await off.start({ typecheck: false });
  });
  afterAll(() => off.stop());

  it("runs code unchecked unless the execution asks for a check", async () => {
    const code = `const n: number = "x";\ncyrnel.output({ n });`;
    expect((await off.run(code)).exit).toBe("success");
    const checked = await off.run(code, { typecheck: true });
    expect(checked.exit).toBe("failed");
    expect(checked.errors[0]).toMatch(/^code\.ts:1:7 TS2322 /m);
  });
});
