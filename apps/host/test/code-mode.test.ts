import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restart, startHost, type TestHost } from "./support/host.js";
import { expectEndedAs, shopHostilePrograms } from "./support/hostile-programs.js";
import { followProcess, readEvents } from "./support/process-events.js";
import { type ShopApi, startShopApi } from "./support/shop-api.js";
import { ts, typeErrors } from "./support/typecheck.js";

/**
 * Code mode for real, end to end: the built host over HTTP, the bundled
 * typescript-ivm sandbox (isolates in its supervised child process) running
 * the submitted TypeScript, and the bundled openapi adapter calling a real
 * local HTTP API (support/shop-api.ts) with a secret from the host's store.
 */
const SHOP_KEY = "shop-key-5b1e77c2d9";
/** Values only the host process holds; no process may ever print them. */
const API_KEY = "host-api-key-marker-3f9a1c";
const ENV_MARKER = "host-env-marker-c0ffee42";
/**
 * Under test in the 504 case below, but the host also bounds module setup with it (a config patch restarts the
 * sandbox process): generous, so a loaded machine's slow restart is not mistaken for a failure.
 */
const INVOKE_TIMEOUT_MS = 5_000;

interface ProcessResult {
  id: number;
  state: string;
  exitState: string | null;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  output: Record<string, any>;
  stdout: string;
  stderr: string;
}

let host: TestHost;
let shop: ShopApi;

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  host = await startHost({
    env: {
      CYRNEL_API_KEY: API_KEY,
      CYRNEL_INVOKE_TIMEOUT_MS: String(INVOKE_TIMEOUT_MS),
      CODE_MODE_HOST_MARKER: ENV_MARKER,
    },
  });
});
afterAll(async () => {
  await host?.stop();
  await shop?.close();
});

/** POST /processes with block:true. */
async function run(
  code: string,
  options: { timeoutMs?: number | null; typecheck?: boolean } = {},
): Promise<ProcessResult> {
  const response = await host.api<ProcessResult>("POST", "/processes", { code, block: true, ...options });
  expect(response.status, response.text).toBe(201);
  expect(response.body.state).toBe("idle");
  return response.body;
}

/** POST /processes without waiting, then wait until the environment reports `state`. */
async function startIn(state: "queued" | "running", code: string): Promise<number> {
  const response = await host.api("POST", "/processes", { code, timeoutMs: 30_000 });
  expect(response.status, response.text).toBe(201);
  const id = response.body.id as number;
  await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe(state);
  return id;
}

const follow = (id: number) => followProcess(host, id);

async function patchEnvironmentConfig(patch: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await host.api("PATCH", "/modules/typescript-ivm/config", patch);
  expect(response.status, response.text).toBe(200);
  return response.body.config;
}

/**
 * Polls GET /health (no auth) until stopped; resolves with every status seen
 * (0: no answer within a generous 10 s, or no connection).
 */
function watchHealth(): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const response = await fetch(`${host.url}/health`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
      statuses.push(response?.status ?? 0);
      await response?.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return statuses;
    },
  };
}

/** Sandbox helper: runs one call and reports how it settled as plain data. */
const ATTEMPT = `
const attempt = async (call: () => Promise<unknown>) => {
  try {
    return { ok: await call() };
  } catch (error: any) {
    return { name: error.name, status: error.status, code: error.code, message: error.message };
  }
};
`;

describe("a tool call from process code", () => {
  it("installs the service, stores its secret, enables it and calls the upstream with the secret", async () => {
    const installed = await host.api("POST", "/services", {
      id: "shop",
      adapter: "openapi",
      definition: shop.definition,
    });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body).toMatchObject({ id: "shop", enabled: false, toolCount: 4 });
    expect(Object.keys(installed.body.secretsSchema.properties)).toEqual(["shopKey"]);

    const secrets = await host.api("PATCH", "/services/shop/secrets", { shopKey: SHOP_KEY });
    expect(secrets.status, secrets.text).toBe(200);
    expect(secrets.body).toEqual({ set: ["shopKey"] });
    expect(secrets.text).not.toContain(SHOP_KEY);

    const enabled = await host.api("POST", "/services/shop/enabled", { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ id: "shop", enabled: true });

    const before = shop.requests.length;
    const result = await run(`
      const services = Object.keys(cyrnel.services);
      const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "a/1", verbose: true });
      console.log("fetched", item.id);
      console.warn("careful:", { verbose: item.verbose });
      cyrnel.output({ services });
      cyrnel.output({ item });
    `);
    expect(result, result.error ?? "").toMatchObject({
      exitState: "success",
      error: null,
      output: { services: ["shop"], item: { id: "a/1", name: "Item a/1", verbose: true } },
      stdout: "fetched a/1\n",
      stderr: "careful: { verbose: true }\n",
    });

    const received = shop.requests.slice(before);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "GET", path: "/items/a%2F1", query: { verbose: "true" } });
    expect(received[0]?.headers["x-shop-key"]).toBe(SHOP_KEY);

    expect((await host.api("GET", `/processes/${result.id}/output`)).body).toEqual(result.output);
    const stdout = await host.api("GET", `/processes/${result.id}/stdout`);
    expect(stdout.status).toBe(200);
    expect(stdout.headers.get("content-type")).toContain("text/plain");
    expect(stdout.text).toBe("fetched a/1\n");
    expect((await host.api("GET", `/processes/${result.id}/stderr`)).text).toBe("careful: { verbose: true }\n");
    expect((await host.api("GET", `/processes/${result.id}`)).body).toMatchObject({
      state: "idle",
      exitState: "success",
    });
    // The secret went upstream, but it is in no response.
    expect(JSON.stringify(result)).not.toContain(SHOP_KEY);
  });
});

describe("gating seen from code", () => {
  beforeAll(async () => {
    // The same API installed a second time and left disabled.
    const offline = await host.api("POST", "/services", {
      id: "offline",
      adapter: "openapi",
      definition: shop.definition,
    });
    expect(offline.status, offline.text).toBe(201);
    expect(offline.body.enabled).toBe(false);
    const disabled = await host.api("POST", "/tools/shop/createNote/enabled", { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, effectivelyEnabled: false });
  });
  afterAll(async () => {
    await host.api("POST", "/tools/shop/createNote/enabled", { enabled: true });
  });

  it.each([
    [
      "an unknown service",
      "cyrnel.services.nope.tools.getItem.invoke({ id: '1' })",
      404,
      "not_found",
      /service "nope"/,
    ],
    ["an unknown tool", "cyrnel.services.shop.tools.nope.invoke({})", 404, "not_found", /tool "nope"/],
    [
      "a misspelled service",
      "cyrnel.services.shpo.tools.getItem.invoke({ id: '1' })",
      404,
      "not_found",
      /^service "shpo" not found; did you mean `shop`\?$/,
    ],
    [
      "a misspelled tool",
      "cyrnel.services.shop.tools.getitem.invoke({ id: '1' })",
      404,
      "not_found",
      /^tool "getitem" on service "shop" not found; did you mean `getItem`\?$/,
    ],
    [
      "a disabled service",
      "cyrnel.services.offline.tools.getItem.invoke({ id: '1' })",
      409,
      "service_disabled",
      /offline/,
    ],
    [
      "a disabled tool",
      "cyrnel.services.shop.tools.createNote.invoke({ body: { text: 'hi' } })",
      409,
      "tool_disabled",
      /createNote/,
    ],
    [
      "bad parameters",
      "cyrnel.services.shop.tools.getItem.invoke({ id: 7, colour: 'red' })",
      400,
      "validation_failed",
      /getItem/,
    ],
    [
      "a value outside an enum",
      "cyrnel.services.shop.tools.getItem.invoke({ id: '1', format: 'huge' })",
      400,
      "validation_failed",
      /"format" must be one of "short", "long"/,
    ],
  ])("%s is refused before any upstream request", async (_label, call, status, code, message) => {
    const before = shop.requests.length;
    // The gate itself: the type check would refuse these calls before the code runs (test/typecheck.test.ts).
    const result = await run(`${ATTEMPT}\ncyrnel.output(await attempt(() => (${call})));`, { typecheck: false });
    expect(result.exitState, result.error ?? "").toBe("success");
    expect(result.output).toMatchObject({ name: "ToolCallError", status, code });
    expect(result.output.message).toMatch(message);
    expect(shop.requests.slice(before)).toEqual([]);
  });

  it("an upstream 500 is a 502 adapter_error carrying the upstream status", async () => {
    const before = shop.requests.length;
    const result = await run(
      `${ATTEMPT}\ncyrnel.output(await attempt(() => cyrnel.services.shop.tools.broken.invoke({})));`,
    );
    expect(result.exitState, result.error ?? "").toBe("success");
    expect(result.output).toMatchObject({ name: "ToolCallError", status: 502, code: "adapter_error" });
    expect(result.output.message).toContain("500");
    expect(shop.requests.slice(before).map((r) => r.path)).toEqual(["/broken"]);
  });

  it("an upstream slower than CYRNEL_INVOKE_TIMEOUT_MS is a 504 invoke_timeout", async () => {
    const result = await run(
      `${ATTEMPT}\ncyrnel.output(await attempt(() => cyrnel.services.shop.tools.slowThing.invoke({ ms: 20000 })));`,
    );
    expect(result.exitState, result.error ?? "").toBe("success");
    expect(result.output).toMatchObject({ name: "ToolCallError", status: 504, code: "invoke_timeout" });
    expect(result.output.message).toContain(`${INVOKE_TIMEOUT_MS} ms`);
    expect(shop.requests.some((r) => r.path === "/slow" && r.query.ms === "20000")).toBe(true);
  });

  it("an uncaught tool error fails the process with its status and code in `error`", async () => {
    const result = await run(
      `cyrnel.output({ before: true });\nawait cyrnel.services.shop.tools.broken.invoke({});\ncyrnel.output({ after: true });`,
    );
    expect(result).toMatchObject({ exitState: "failed", output: { before: true } });
    expect(result.error).toMatch(/^Uncaught ToolCallError: .*500.* \(status 502, code adapter_error\)/);
    // What the upstream said is in the message itself, not only in `e.details`.
    expect(result.error).toContain('→ 500 Internal Server Error: {"error":"kaput"}');
    expect(result.error).toContain("code.ts:2");
  });
});

describe("how code ends", () => {
  it("cuts a flood of stdout at its limit with one marker naming exactly how much was dropped", async () => {
    // 2,000 lines of 1,000 bytes, newlines included: 2,000,000 bytes; the first MiB is kept.
    const result = await run(`for (let i = 0; i < 2000; i++) console.log("x".repeat(999));`);
    expect(result.exitState).toBe("success");
    const stdout = (await host.api("GET", `/processes/${result.id}/stdout`)).text;
    const marker = "[cyrnel: stdout truncated at 1048576 bytes; 951424 more bytes dropped]\n";
    expect(stdout.endsWith(`\n${marker}`)).toBe(true);
    expect(Buffer.byteLength(stdout.slice(0, -marker.length - 1))).toBe(1_048_576);
    expect(stdout.match(/\[cyrnel/g)).toHaveLength(1);
  });

  it("supports top-level await", async () => {
    const result = await run(`
      const value = await new Promise<number>((resolve) => setTimeout(resolve, 10, 41));
      const item = await cyrnel.services.shop.tools.getItem.invoke({ id: String(value + 1) });
      cyrnel.output({ value, name: item.name });
    `);
    expect(result).toMatchObject({ exitState: "success", error: null, output: { value: 41, name: "Item 42" } });
  });

  it.each([
    ["a thrown Error", `console.log("start");\nthrow new Error("boom");`, /^Uncaught Error: boom\n\s+at .*code\.ts:2:/],
    ["a thrown string", `throw "plain words";`, /^Uncaught "plain words"$/],
    ["a thrown object", `throw { reason: "nope", n: 1 };`, /^Uncaught \{ reason: "nope", n: 1 \}$/],
    ["a thrown null", `throw null;`, /^Uncaught null$/],
    ["a syntax error", `const ok = 1;\nconst broken = ;\n`, /^SyntaxError: .*\(line 2, column \d+\)$/],
  ])("%s fails the process with a clear error", async (_label, code, error) => {
    // As the sandbox reports it (checked first, a syntax error is a type check error: test/typecheck.test.ts).
    const result = await run(code, { typecheck: false });
    expect(result.exitState).toBe("failed");
    expect(result.error).toMatch(error);
  });

  it.each([
    [
      "a busy loop",
      "while (true) {}",
      "Timed out after 300 ms while the code was running without awaiting anything (a loop, or a long computation)",
    ],
    [
      "a promise that never settles",
      "await new Promise(() => {});",
      "Timed out after 300 ms while awaiting a promise that nothing settles (no tool call or timer was pending)",
    ],
    [
      "a pending tool call",
      "await cyrnel.services.shop.tools.slowThing.invoke({ ms: 20000 });",
      "Timed out after 300 ms while awaiting shop.slowThing (code.ts:1:44)",
    ],
  ])("%s past timeoutMs ends `timeout`, saying where it was", async (_label, code, error) => {
    // Unchecked: the type check's own time counts against the 300 ms, and on a loaded machine it can use them up.
    const result = await run(code, { timeoutMs: 300, typecheck: false });
    expect(result).toMatchObject({ exitState: "timeout", error });
  });
});

describe("kill", () => {
  it("cancels a running busy loop", async () => {
    const id = await startIn("running", 'cyrnel.output({ started: true });\nconsole.log("looping");\nwhile (true) {}');
    // "running" means handed to the sandbox, not that the code got anywhere: kill once it is in the loop.
    await readEvents(await follow(id), (event) => event.type === "stdout" && event.text.includes("looping"));
    const killed = await host.api("POST", `/processes/${id}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);
    expect(killed.body).toMatchObject({ id, state: "idle", exitState: "canceled" });
    expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({ started: true });
    expect((await host.api("POST", `/processes/${id}/signals/kill`)).status).toBe(409);
  });

  it("cancels a queued process while the sandbox takes one execution at a time (maxExecutions 1)", async () => {
    expect(await patchEnvironmentConfig({ maxExecutions: 1 })).toMatchObject({ maxExecutions: 1 });
    try {
      const runner = await startIn("running", "while (true) {}");
      const queued = await startIn("queued", "cyrnel.output({ ran: true });");
      const killed = await host.api("POST", `/processes/${queued}/signals/kill`);
      expect(killed.status, killed.text).toBe(200);
      expect(killed.body).toMatchObject({ id: queued, state: "idle", exitState: "canceled", startedAt: null });
      expect((await host.api("GET", `/processes/${queued}/output`)).body).toEqual({});
      // The runner was not disturbed by the queued kill.
      expect((await host.api("GET", `/processes/${runner}`)).body.state).toBe("running");
      expect((await host.api("POST", `/processes/${runner}/signals/kill`)).body.exitState).toBe("canceled");
      // The sandbox takes new work.
      expect((await run("cyrnel.output({ after: 1 });")).output).toEqual({ after: 1 });
    } finally {
      expect(await patchEnvironmentConfig({ maxExecutions: null })).toMatchObject({ maxExecutions: 500 });
    }
  });
});

describe("following a process live (GET /processes/:id/events)", () => {
  it("delivers stdout and stderr while the code runs, then the end with the results", async () => {
    const id = await startIn(
      "running",
      // The output first: the text arrives after it, so once the reader has the text the output is in too (the
      // kill below would otherwise race an output still on its way, which a killed run no longer takes).
      'cyrnel.output({ half: true });\nconsole.log("before the wait");\nconsole.error("a warning");\n' +
        "await new Promise(() => {});",
    );
    const reader = await follow(id);
    const live = await readEvents(reader, (_event, all) => {
      const text = (stream: string) =>
        all
          .filter((e) => e.type === stream)
          .map((e) => e.text)
          .join("");
      return text("stdout") === "before the wait\n" && text("stderr") === "a warning\n";
    });
    expect(live.some((event) => event.type === "end")).toBe(false);
    expect((await host.api("GET", `/processes/${id}`)).body.state).toBe("running");

    expect((await host.api("POST", `/processes/${id}/signals/kill`)).status).toBe(200);
    const rest = await readEvents(reader, (event) => event.type === "end");
    expect(rest.at(-1)).toMatchObject({
      type: "end",
      process: {
        id,
        state: "idle",
        exitState: "canceled",
        output: { half: true },
        stdout: "before the wait\n",
        stderr: "a warning\n",
      },
    });
    expect((await reader.read()).done).toBe(true);
  });

  it("answers an idle process's text and its end at once, and 404s unknown ids", async () => {
    const done = await run('console.log("one");\nconsole.log("two");');
    const events = await readEvents(await follow(done.id), () => false);
    expect(events).toEqual([
      { type: "stdout", text: "one\ntwo\n" },
      { type: "end", process: expect.objectContaining({ id: done.id, exitState: "success", stdout: "one\ntwo\n" }) },
    ]);
    const missing = await host.api("GET", "/processes/999999/events");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
  });
});

describe("memory bombs", () => {
  it.each([
    ["array growth", "const hoard: number[][] = [];\nfor (;;) hoard.push(new Array(10000).fill(hoard.length));"],
    ["Map growth", "const map = new Map();\nfor (let i = 0; ; i++) map.set(i, { i, text: 'x' + i });"],
  ])("%s fails with a memory message; the host keeps answering and the next process succeeds", async (_label, bomb) => {
    expect(await patchEnvironmentConfig({ memoryLimitMb: 32 })).toMatchObject({ memoryLimitMb: 32 });
    const health = watchHealth();
    try {
      const result = await run(bomb, { timeoutMs: 30_000 });
      expect(result.exitState).toBe("failed");
      expect(result.error).toMatch(/^Memory limit exceeded: the code used more than the 32 MB heap limit/);
      expect((await run("cyrnel.output({ fine: true });")).output).toEqual({ fine: true });
    } finally {
      const statuses = await health.stop();
      expect(statuses.length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set([200]));
      await patchEnvironmentConfig({ memoryLimitMb: null });
    }
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });
});

describe("concurrency", () => {
  it("runs 20 concurrent processes, all succeeding", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        run(`
          await new Promise((resolve) => setTimeout(resolve, 5));
          const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "n${i}" });
          cyrnel.output({ i: ${i}, name: item.name });
        `),
      ),
    );
    expect(results.map((result) => result.exitState)).toEqual(Array(20).fill("success"));
    expect(results.map((result) => result.output)).toEqual(
      Array.from({ length: 20 }, (_, i) => ({ i, name: `Item n${i}` })),
    );
    expect(new Set(results.map((result) => result.id)).size).toBe(20);
  });

  it("makes 10 tool calls in parallel, not one after another", async () => {
    // The upstream answers these calls together once all 10 are in flight, and each after 3 s at the latest
    // (below CYRNEL_INVOKE_TIMEOUT_MS): one after another, no two of them would ever be in flight at once.
    shop.gatherSlow(3_000, 10);
    const result = await run(`
      const results = await Promise.all(
        Array.from({ length: 10 }, () => cyrnel.services.shop.tools.slowThing.invoke({ ms: 3000 })),
      );
      cyrnel.output({ results });
    `);
    expect(result.exitState, result.error ?? "").toBe("success");
    expect(result.output.results).toEqual(Array(10).fill({ waited: 3_000 }));
    expect(shop.slowPeak.get(3_000)).toBeGreaterThan(1);
  });
});

describe("work that used to stall the host or wedge the sandbox", () => {
  it.each([
    [
      "5,000 outputs of 200 bytes",
      'for (let i = 0; i < 5000; i++) cyrnel.output({ ["k" + i]: "v".repeat(190) });',
      5000,
    ],
    ["20,000 small outputs", 'for (let i = 0; i < 20000; i++) cyrnel.output({ ["k" + i]: i });', 20000],
  ])("%s: the process ends and /health answers throughout", async (_label, code, keys) => {
    const health = watchHealth();
    try {
      const result = await run(code);
      if (result.exitState === "failed") expect(result.error).toMatch(/^Output limit exceeded/);
      else {
        expect(result.exitState, result.error ?? "").toBe("success");
        expect(Object.keys(result.output)).toHaveLength(keys);
      }
    } finally {
      const statuses = await health.stop();
      expect(statuses.length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set([200]));
    }
  });

  it("a finished process's FinalizationRegistry callbacks never run in a later process", async () => {
    const poison = `const fr = new FinalizationRegistry(() => { for (;;) {} });
for (let i = 0; i < 1e4; i++) fr.register({ big: new Array(100).fill(i) }, i);
(globalThis as any).keep = fr;
cyrnel.output({ a: 1 });`;
    // Poisoned processes side by side, several times over; then code that makes V8 collect.
    for (let round = 0; round < 3; round++) {
      const poisoned = await Promise.all([run(poison, { timeoutMs: 5_000 }), run(poison, { timeoutMs: 5_000 })]);
      // How a poisoned process itself ends is not the point; that later ones run is.
      for (const result of poisoned) expect(["success", "timeout", "failed"]).toContain(result.exitState);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const allocating = `const items: number[][] = [];
for (let i = 0; i < 20000; i++) items.push(new Array(20).fill(i));
cyrnel.output({ count: items.length });`;
    const later = await Promise.all(Array.from({ length: 6 }, () => run(allocating, { timeoutMs: 20_000 })));
    expect(later.map((result) => [result.exitState, result.error])).toEqual(Array(6).fill(["success", null]));
    expect((await host.api("GET", "/health")).body).toMatchObject({ status: "ok" });
  });
});

describe("hostile code over HTTP", () => {
  /** Every text any hostile process produced, for the marker check at the end. */
  const produced: string[] = [];
  let health: ReturnType<typeof watchHealth>;
  beforeAll(() => {
    health = watchHealth();
  });

  it.each(shopHostilePrograms())("%s gets nothing from the host", async (_label, code, expected) => {
    // The sandbox's own defences: the type check is no security boundary (and refuses most of these programs).
    const result = await run(code, { timeoutMs: 5_000, typecheck: false });
    produced.push(JSON.stringify(result));
    for (const stream of ["output", "stdout", "stderr"]) {
      const response = await host.api("GET", `/processes/${result.id}/${stream}`);
      expect(response.status).toBe(200);
      produced.push(response.text);
    }
    expectEndedAs(result, expected);
  });

  it("kept answering /health throughout, and no process ever saw the host's secrets or environment", async () => {
    const statuses = await health.stop();
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const everything = produced.join("\n");
    for (const marker of [API_KEY, ENV_MARKER, SHOP_KEY, "CYRNEL_DATA_DIR"]) expect(everything).not.toContain(marker);
  });
});

describe("types and docs for clients", () => {
  let types = "";
  beforeAll(async () => {
    const response = await host.api("GET", "/environment/types");
    expect(response.status, response.text).toBe(200);
    types = response.text;
  });

  it("GET /environment/types declares the enabled tools, not the disabled service", () => {
    expect(types).toContain("declare const cyrnel");
    expect(types).toMatch(/readonly shop: CyrnelServices\.shop;/);
    expect(types).toMatch(/readonly getItem: CyrnelTool<CyrnelTools\.shop\.getItem\.Input, /);
    expect(types).not.toMatch(/readonly offline:/);
  });

  it("GET /environment/types follows every change of the tools (its answers are kept until one)", async () => {
    expect((await host.api("GET", "/environment/types")).text).toBe(types);
    expect((await host.api("POST", "/tools/shop/getItem/enabled", { enabled: false })).status).toBe(200);
    try {
      const without = (await host.api("GET", "/environment/types")).text;
      expect(without).not.toMatch(/readonly getItem:/);
      expect(without).toMatch(/readonly shop: CyrnelServices\.shop;/);
    } finally {
      expect((await host.api("POST", "/tools/shop/getItem/enabled", { enabled: true })).status).toBe(200);
    }
    expect((await host.api("GET", "/environment/types")).text).toBe(types);
  });

  it("GET /environment/docs documents the runtime surface", async () => {
    const response = await host.api("GET", "/environment/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/markdown");
    expect(response.text).toMatch(/^# /m);
    for (const part of ["cyrnel.output", "cyrnel.services", "console.log", "setTimeout"]) {
      expect(response.text).toContain(part);
    }
  });

  let usage = "";
  it("GET /tools/shop/getItem/docs documents the tool with a snippet that runs as a process", async () => {
    const response = await host.api("GET", "/tools/shop/getItem/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/markdown");
    expect(response.text).toContain("Fetch one item");
    expect(response.text).toContain("| `id` | `string` | yes |");
    expect(response.text).toContain("`invoke` resolves with a value of type `Item` (declared under Types).");
    expect(response.text).toMatch(/type Item = \{\n\s+id: string;\n\s+name: string;/);
    usage = /## Usage\n\n```ts\n([\s\S]*?)```/.exec(response.text)?.[1] ?? "";
    expect(usage, response.text).toContain("const result = await cyrnel.services.shop.tools.getItem.invoke({");

    const result = await run(usage);
    expect(result.exitState, result.error ?? "").toBe("success");
    expect(result.output.result).toMatchObject({ name: `Item ${result.output.result.id}` });
  });

  it("the declarations type-check correct programs and reject a wrong parameter name", () => {
    expect(ts.version).toMatch(/^5\./);
    const correct = `async function main() {
  const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "a", verbose: true });
  const name: string = item.name;
  const note = await cyrnel.services.shop.tools.createNote.invoke({ body: { text: "hi", tags: ["x"] } });
  cyrnel.output({ name, note, slow: await cyrnel.services.shop.tools.slowThing.invoke({ ms: 1 }) });
}
void main;
`;
    expect(typeErrors({ "cyrnel.d.ts": types, "main.ts": correct })).toEqual([]);
    // The docs' own snippet, checked as the declaration file says process code should be.
    const snippet = `async function main() {\n${usage}}\nvoid main;\n`;
    expect(typeErrors({ "cyrnel.d.ts": types, "snippet.ts": snippet })).toEqual([]);

    const wrongName = correct.replace(`{ id: "a", verbose: true }`, `{ itemId: "a", verbose: true }`);
    expect(typeErrors({ "cyrnel.d.ts": types, "main.ts": wrongName }).join("\n")).toMatch(/main\.ts: .*'itemId'/);
    const wrongType = correct.replace(`verbose: true`, `verbose: "yes"`);
    expect(typeErrors({ "cyrnel.d.ts": types, "main.ts": wrongType }).join("\n")).toMatch(/main\.ts: .*boolean/);
    const unknownTool = correct.replace("tools.getItem", "tools.getItems");
    expect(typeErrors({ "cyrnel.d.ts": types, "main.ts": unknownTool }).join("\n")).toMatch(/'getItems'/);
  });
});

describe("after a restart on the same data dir", () => {
  it("the host stops promptly even with an upstream call still in flight", async () => {
    const response = await host.api("POST", "/processes", {
      code: "await cyrnel.services.shop.tools.slowThing.invoke({ ms: 120000 });",
      timeoutMs: null,
    });
    expect(response.status, response.text).toBe(201);
    await expect.poll(() => shop.requests.some((r) => r.path === "/slow" && r.query.ms === "120000")).toBe(true);
    const logs = host.output;
    try {
      expect(await host.stop()).toBe(0);
      // The host exited while the upstream still held the call: it did not wait for it to be answered.
      expect(shop.slowInFlight.get(120_000)).toBe(1);
    } finally {
      host = await restart(host);
    }
    // The stop let the run go, not end it: the restarted host resumes it, sending its read in flight again.
    await expect.poll(() => shop.requests.filter((r) => r.path === "/slow" && r.query.ms === "120000").length).toBe(2);
    expect((await host.api("GET", `/processes/${response.body.id}`)).body.state).toBe("running");
    expect((await host.api("POST", `/processes/${response.body.id}/signals/kill`)).status).toBe(200);
    const stopped = await host.api("GET", `/processes/${response.body.id}`);
    expect(stopped.body).toMatchObject({ state: "idle", exitState: "canceled" });
    // Everything the first host logged (at debug level), hostile runs included, is free of secrets.
    expect(logs.length).toBeGreaterThan(100);
    for (const secret of [SHOP_KEY, API_KEY, ENV_MARKER]) expect(logs.join("\n")).not.toContain(secret);
  });

  it("the service is enabled with its secret, and code still calls the tool", async () => {
    const service = await host.api("GET", "/services/shop");
    expect(service.body).toMatchObject({ id: "shop", enabled: true });
    expect((await host.api("GET", "/services/shop/secrets")).body).toEqual({ set: ["shopKey"] });

    const before = shop.requests.length;
    const result = await run(
      `cyrnel.output({ item: await cyrnel.services.shop.tools.getItem.invoke({ id: "again" }) });`,
    );
    expect(result).toMatchObject({ exitState: "success", output: { item: { id: "again", name: "Item again" } } });
    const received = shop.requests.slice(before);
    expect(received.map((r) => r.path)).toEqual(["/items/again"]);
    expect(received[0]?.headers["x-shop-key"]).toBe(SHOP_KEY);
  });
});
