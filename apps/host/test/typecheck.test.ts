import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { installShop, type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * Type-check before run, through the built host: the bundled typescript-ivm
 * environment checks submitted code against the types of the services it
 * can reach (here the shop API, installed with the openapi adapter from its
 * OpenAPI document and called over real HTTP) before anything runs. The
 * shop records every request it receives, so "nothing ran" is counted at
 * the upstream, not inferred. Also: what the sandbox reports about promises
 * and values the code left behind.
 */
const SHOP_KEY = "shop-key-typecheck-7d1";

interface ProcessResult {
  id: number;
  exitState: string | null;
  error: string | null;
  output: Record<string, any>;
  stdout: string;
  stderr: string;
}

let host: TestHost;
let shop: ShopApi;

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  host = await startHost();
  await installShop(host, shop, SHOP_KEY);
}, 60_000);
afterAll(async () => {
  await host?.stop();
  await shop?.close();
});

async function run(code: string, extra: Record<string, unknown> = {}): Promise<ProcessResult> {
  const response = await host.api<ProcessResult>("POST", "/processes", { code, block: true, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Runs `code` and returns the result with the number of requests the shop received meanwhile. */
async function counted(code: string, extra: Record<string, unknown> = {}) {
  const before = shop.requests.length;
  const result = await run(code, extra);
  return { result, upstream: shop.requests.length - before };
}

async function patchEnvironmentConfig(patch: Record<string, unknown>): Promise<void> {
  const response = await host.api("PATCH", "/modules/typescript-ivm/config", patch);
  expect(response.status, response.text).toBe(200);
}

/** A call to the shop first, then a type error: unchecked, the call would reach the upstream. */
const CALL_THEN_TYPE_ERROR = `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "1" });
console.log(item.name);
const n: number = "x";
cyrnel.output({ n });`;

describe("type-check before run", () => {
  it("a type error ends the process failed before anything runs: no tool call, no output", async () => {
    const { result, upstream } = await counted(CALL_THEN_TYPE_ERROR);
    expect(result.exitState).toBe("failed");
    expect(result.error).toBe(
      "Type check failed with 1 type error, so the code did not run:\n" +
        "code.ts:3:7 TS2322 Type 'string' is not assignable to type 'number'.",
    );
    expect(upstream).toBe(0);
    expect(result).toMatchObject({ output: {}, stdout: "", stderr: "" });
  });

  it("typecheck: false runs the same code unchecked", async () => {
    const { result, upstream } = await counted(CALL_THEN_TYPE_ERROR, { typecheck: false });
    expect(result, result.error ?? "").toMatchObject({ exitState: "success", stdout: "Item 1\n", output: { n: "x" } });
    expect(upstream).toBe(1);
  });

  it("correct code against the service's types passes and runs, results typed", async () => {
    const { result, upstream } = await counted(`
const item: { id: string; name: string; verbose?: boolean } = await cyrnel.services.shop.tools.getItem.invoke({ id: "7", verbose: true });
const note = await cyrnel.services.shop.tools.createNote.invoke({ body: { text: item.name, tags: ["a"] } });
const id: number | undefined = note.id;
cyrnel.output({ name: item.name, id });`);
    expect(result, result.error ?? "").toMatchObject({ exitState: "success", output: { name: "Item 7" } });
    expect(upstream).toBe(2);
  });

  it.each([
    // `const item = await cyrnel.services.shop.tools.getItem.invoke(` is 61 characters: the argument is at column 62.
    [
      "a misspelt parameter",
      `{ idd: "1" }`,
      "code.ts:1:64 TS2353 Object literal may only specify known properties, and 'idd' does not exist in type 'Input'.",
    ],
    [
      "a missing required parameter",
      `{ verbose: true }`,
      "code.ts:1:62 TS2345 Argument of type '{ verbose: true; }' is not assignable to parameter of type 'Input'. Property 'id' is missing in type '{ verbose: true; }' but required in type 'Input'.",
    ],
    [
      "a parameter of the wrong type",
      `{ id: 1 }`,
      "code.ts:1:64 TS2322 Type 'number' is not assignable to type 'string'.",
    ],
    [
      "a value that is not an object",
      `"1"`,
      "code.ts:1:62 TS2345 Argument of type 'string' is not assignable to parameter of type 'Input'.",
    ],
  ])("%s in a tool call is refused, with the user's line and column", async (_label, parameters, message) => {
    const { result, upstream } = await counted(
      `const item = await cyrnel.services.shop.tools.getItem.invoke(${parameters});\nconsole.log(item);`,
    );
    expect(result.exitState).toBe("failed");
    expect(result.error?.split("\n")).toEqual([
      "Type check failed with 1 type error, so the code did not run:",
      message,
    ]);
    expect(upstream).toBe(0);
  });

  it("a tool or service that cannot be called is a type error too", async () => {
    const { result, upstream } = await counted(`await cyrnel.services.shop.tools.getItems.invoke({});
await cyrnel.services.nowhere.tools.x.invoke({});`);
    expect(result.exitState).toBe("failed");
    expect(result.error).toMatch(
      /^code\.ts:1:34 TS2551 Property 'getItems' does not exist on type .*Did you mean 'getItem'\?$/m,
    );
    expect(result.error).toMatch(/^code\.ts:2:23 TS2339 Property 'nowhere' does not exist on type /m);
    expect(upstream).toBe(0);
  });

  it("top-level await and return are valid, and positions are the user's on every line", async () => {
    const code = [
      "// a comment on line 1",
      "const first = await cyrnel.services.shop.tools.getItem.invoke({ id: 'a' });",
      "if (first.name === '') return;",
      "",
      "\tconst bad: string = 42;",
      "const alsoBad: boolean = 'no'; const third: number = null;",
    ].join("\n");
    const { result, upstream } = await counted(code);
    expect(result.error?.split("\n")).toEqual([
      "Type check failed with 3 type errors, so the code did not run:",
      "code.ts:5:8 TS2322 Type 'number' is not assignable to type 'string'.",
      "code.ts:6:7 TS2322 Type 'string' is not assignable to type 'boolean'.",
      "code.ts:6:38 TS2322 Type 'null' is not assignable to type 'number'.",
    ]);
    expect(upstream).toBe(0);
  });

  it("a syntax error is reported by the checker in the same form", async () => {
    const { result } = await counted("const a = 1;\nconst b = ;");
    expect(result.error?.split("\n")).toEqual([
      "Type check failed with 1 type error, so the code did not run:",
      "code.ts:2:11 TS1109 Expression expected.",
    ]);
  });

  it("lists at most 20 errors, then how many more", async () => {
    const code = Array.from({ length: 25 }, (_, i) => `const v${i}: number = "${i}";`).join("\n");
    const { result } = await counted(code);
    const lines = result.error?.split("\n") ?? [];
    expect(lines[0]).toBe("Type check failed with 25 type errors, so the code did not run:");
    expect(lines).toHaveLength(22);
    expect(lines[1]).toBe("code.ts:1:7 TS2322 Type 'string' is not assignable to type 'number'.");
    expect(lines[20]).toBe("code.ts:20:7 TS2322 Type 'string' is not assignable to type 'number'.");
    expect(lines[21]).toBe("… and 5 more");
  });

  it("the types follow the service: a disabled tool is no longer callable, and callable again once enabled", async () => {
    const code = `const note = await cyrnel.services.shop.tools.createNote.invoke({ body: { text: "t" } });\ncyrnel.output({ note });`;
    expect((await host.api("POST", "/tools/shop/createNote/enabled", { enabled: false })).status).toBe(200);
    try {
      const { result, upstream } = await counted(code);
      expect(result.error).toMatch(/^code\.ts:1:47 TS2339 Property 'createNote' does not exist on type /m);
      expect(upstream).toBe(0);
    } finally {
      expect((await host.api("POST", "/tools/shop/createNote/enabled", { enabled: true })).status).toBe(200);
    }
    const { result, upstream } = await counted(code);
    expect(result, result.error ?? "").toMatchObject({ exitState: "success" });
    expect(upstream).toBe(1);
  });

  it("POST /processes/:id/signals/run takes typecheck too", async () => {
    const failed = await run(CALL_THEN_TYPE_ERROR);
    expect(failed.exitState).toBe("failed");
    const again = await host.api<ProcessResult>("POST", `/processes/${failed.id}/signals/run`, {
      force: true,
      block: true,
      typecheck: false,
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ exitState: "success", output: { n: "x" } });
    const checked = await host.api<ProcessResult>("POST", `/processes/${failed.id}/signals/run`, {
      force: true,
      block: true,
    });
    expect(checked.body.exitState).toBe("failed");
    expect(checked.body.error).toMatch(/^code\.ts:3:7 TS2322 /m);
  });

  it.each([
    ["a string", "yes"],
    ["null", null],
  ])("typecheck must be a boolean (%s → 400)", async (_label, typecheck) => {
    const response = await host.api("POST", "/processes", { code: "1", typecheck });
    expect(response.status).toBe(400);
    expect(response.text).toContain("typecheck");
  });

  it("hostile type-level code is bounded: the check is stopped at its budget, the code fails without running, and the checker recovers", async () => {
    await patchEnvironmentConfig({ typecheckTimeoutMs: 1_000 });
    try {
      // A union of 125,000 tuples: TypeScript takes tens of seconds over it (measured: ~25 s).
      const hostile = `type D = ${Array.from({ length: 50 }, (_, i) => i).join(" | ")};
type P = { [K in D]: { [L in D]: { [M in D]: [K, L, M] }[D] }[D] }[D];
const p: P = [1, 2, 3];
await cyrnel.services.shop.tools.getItem.invoke({ id: "hostile" });`;
      const { result, upstream } = await counted(hostile);
      expect(result.exitState).toBe("failed");
      // The message names the 1000 ms budget: the check was stopped by it, not finished by the compiler (which would
      // take tens of seconds).
      expect(result.error).toMatch(
        /^Type check (did not finish within its budget of 1000 ms|ran out of memory) .*so the code did not run: .*"typecheck": false/,
      );
      expect(upstream).toBe(0);
    } finally {
      await patchEnvironmentConfig({ typecheckTimeoutMs: 5_000 });
    }
    // The checker recovers (checked under the usual budget: on a loaded machine a sound check may take over 1 s).
    const { result: next, upstream: nextUpstream } = await counted(
      `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "after" });\ncyrnel.output({ name: item.name });`,
    );
    expect(next, next.error ?? "").toMatchObject({ exitState: "success", output: { name: "Item after" } });
    expect(nextUpstream).toBe(1);
  });

  it("the environment's config turns the default off; a submission still asks for a check with typecheck: true", async () => {
    await patchEnvironmentConfig({ typecheck: false });
    try {
      const unchecked = await counted(CALL_THEN_TYPE_ERROR);
      expect(unchecked.result.exitState).toBe("success");
      expect(unchecked.upstream).toBe(1);
      const checked = await counted(CALL_THEN_TYPE_ERROR, { typecheck: true });
      expect(checked.result.error).toMatch(/^code\.ts:3:7 TS2322 /m);
      expect(checked.upstream).toBe(0);
    } finally {
      await patchEnvironmentConfig({ typecheck: true });
    }
  });
});

describe("what the code leaves behind, on stderr", () => {
  it("a tool call that fails with nobody awaiting or catching it is reported with its error and line, and the run goes on", async () => {
    const result = await run(`cyrnel.services.shop.tools.broken.invoke({});
await cyrnel.services.shop.tools.slowThing.invoke({ ms: 50 });
cyrnel.output({ done: true });`);
    expect(result, result.error ?? "").toMatchObject({ exitState: "success", output: { done: true } });
    expect(result.stderr).toMatch(
      /^\[cyrnel\] unhandled rejection of a tool call nobody awaited or caught: ToolCallError: .*500.* \(status 502, code adapter_error\)\n {4}at code\.ts:1:35\n$/,
    );
  });

  it("calls awaited later are not reported, even when the later one fails first", async () => {
    const result = await run(`const slow = cyrnel.services.shop.tools.slowThing.invoke({ ms: 100 });
const broken = cyrnel.services.shop.tools.broken.invoke({});
await slow;
try { await broken; } catch (e) { console.log("caught", e.code); }`);
    expect(result, result.error ?? "").toMatchObject({
      exitState: "success",
      stdout: "caught adapter_error\n",
      stderr: "",
    });
  });

  it("a value returned at the top level is reported as discarded; output is only what cyrnel.output kept", async () => {
    const result = await run(`cyrnel.output({ kept: 1 });\nreturn { answer: 42 };`);
    expect(result).toMatchObject({ exitState: "success", output: { kept: 1 } });
    expect(result.stderr).toBe(
      "[cyrnel] the code returned a value, which is discarded (use cyrnel.output({ ... }) to keep results): { answer: 42 }\n",
    );
    const bare = await run(`cyrnel.output({ kept: 1 });\nreturn;`);
    expect(bare.stderr).toBe("");
  });

  it("a call still in flight when the code finishes is reported (a forgotten await)", async () => {
    const result = await run(`cyrnel.services.shop.tools.slowThing.invoke({ ms: 2000 });`);
    expect(result.exitState).toBe("success");
    expect(result.stderr).toBe(
      "[cyrnel] 1 tool call was still in flight when the code finished (not awaited); its result is discarded\n",
    );
  });
});
