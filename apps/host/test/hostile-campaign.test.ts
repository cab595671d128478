import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HOSTILE_PROGRAMS,
  type ProgramResult,
} from "../../../packages/typescript-ivm/test/support/hostile-programs.mjs";
import { gzipBomb, type PublishedArchive, packModule, peakRssBytes, publishArchive } from "./support/archives.js";
import { everyRowText, queryDatabase, testDialect } from "./support/database.js";
import { fixturesDir, startHost, type TestHost } from "./support/host.js";
import {
  deepDefinition,
  doublingCopies,
  filesDocument,
  manyCopies,
  nestedJson,
  queryKeyDocument,
  secretForms,
  yamlAliasBomb,
} from "./support/hostile-inputs.js";
import { expectEndedAs, shopHostilePrograms } from "./support/hostile-programs.js";
import { type HostileUpstream, startHostileUpstream } from "./support/hostile-upstream.js";
import { installRecorded } from "./support/recorder.js";
import { type ShopApi, startShopApi } from "./support/shop-api.js";

/**
 * The standing hostile campaign: ONE real host, a local upstream API, and
 * every attack of the hardening report sent at it — most of them at the same
 * time, as an attacker with a valid key would — each asserting its specific
 * refusal or outcome. Afterwards the host must still be the same process,
 * answer `/health` promptly with `ok`, run a normal process correctly, keep
 * a sound database, and have written no secret anywhere.
 *
 * Sizes are the smaller ones the single-purpose tests use where the report's
 * sizes only illustrate (a 256 MiB gzip entry instead of 4 GB, a 10 MB
 * parameter instead of 30 MB); each still crosses its limit by far. Killing
 * the host (SIGKILL) is covered by sandbox-process.test.ts and is not part
 * of this campaign: the point here is that the host survives.
 */

/** Values only the host and the upstream hold; none may show up in a log line or a file under the data dir. */
const API_KEY = "campaign-api-key-7d41e0c9b2";
const SHOP_KEY = "campaign-shop-key-19f3a6be05";
const FILES_TOKEN = "campaign-files-token-c8e2d4a7f1";
/** Characters that percent-encoding and form-encoding change: the encoded echo must be masked too. */
const QUERY_KEY = "CAMPAIGNKEY+/=q 8b3e5a";
const SECRETS = [API_KEY, SHOP_KEY, FILES_TOKEN, QUERY_KEY];
/** In the host's environment only: no process may print it. */
const ENV_MARKER = "campaign-env-marker-5e1f0d";

/**
 * Under test for the modules that hang: short so the campaign stays short, yet generous for what it also bounds
 * (starting the sandbox process, loading the modules that load fine) on a loaded machine.
 */
const LOAD_TIMEOUT_MS = 8_000;
/** Under test for the download that drips (the default); loopback downloads of the other attacks take milliseconds. */
const DOWNLOAD_TIMEOUT_MS = 10_000;
/** A body that drips a byte at a time is never idle: it fails on its rate, once it has had the idle window. */
const DRIP_REFUSED = new RegExp(
  `the body arrives at \\d+ bytes/s, under the 1024 bytes/s a download must keep after its first ${DOWNLOAD_TIMEOUT_MS} ms`,
);
/**
 * Under test for the download that never ends, which must reach it well before DOWNLOAD_TIMEOUT_MS on a loaded
 * machine: 4 MiB instead of the default 32 MiB, still above every definition and archive the campaign sends.
 */
const DEFINITION_LIMIT_BYTES = 4 * 1024 * 1024;
/** CYRNEL_PROCESS_FOLLOWERS_LIMIT's default: the host runs with it. */
const FOLLOWERS_LIMIT = 32;
/** Four times the 64 MiB per-file limit of module archives (about 1 MB compressed). */
const BOMB_ENTRY_BYTES = 256 * 1024 ** 2;
const MiB = 1024 * 1024;
/** The services installed before the campaign, in id order; every one stays enabled throughout. */
const SERVICES = ["bulky", "demo", "files", "huge", "keyed", "shop"];
/** Deadline of processes whose deadline is not under test: a loaded machine and a busy queue must not end them. */
const GENEROUS_MS = 60_000;

let host: TestHost;
let pid: number;
let shop: ShopApi;
let upstream: HostileUpstream;
let bomb: PublishedArchive;
/** Module fixtures that hang or exit, published as archives with registry descriptors, by id. */
const fixtures = new Map<string, PublishedArchive>();
let health: ReturnType<typeof watchHealth>;

interface ProcessRecord {
  id: number;
  state: string;
  exitState: string | null;
  error: string | null;
  timeoutMs: number | null;
  output: Record<string, any>;
  stdout: string;
  stderr: string;
}

beforeAll(async () => {
  shop = await startShopApi(SHOP_KEY);
  upstream = await startHostileUpstream();
  bomb = await publishArchive(await gzipBomb(BOMB_ENTRY_BYTES), "bomb");
  for (const id of ["hang-import", "hang-instantiate", "exit-import", "exit-setup"]) {
    fixtures.set(id, await publishArchive(await packModule(join(fixturesDir, "modules", id)), id));
  }
  host = await startHost({
    modules: ["recorder"],
    env: {
      CYRNEL_API_KEY: API_KEY,
      CYRNEL_MODULE_LOAD_TIMEOUT_MS: String(LOAD_TIMEOUT_MS),
      CYRNEL_DOWNLOAD_TIMEOUT_MS: String(DOWNLOAD_TIMEOUT_MS),
      CYRNEL_DEFINITION_LIMIT_BYTES: String(DEFINITION_LIMIT_BYTES),
      CAMPAIGN_HOST_MARKER: ENV_MARKER,
    },
  });
  pid = host.child.pid as number;
  // The recorder adapter without a hook log: nothing of it is written under the data dir.
  expect((await host.api("POST", "/modules/recorder/enabled", { enabled: true })).status).toBe(200);

  await install("shop", shop.definition, { shopKey: SHOP_KEY });
  // What the shared sandbox programs expect: `demo` with an `echo` tool and a disabled `off` tool.
  await installRecorded(host, "demo", [{ id: "echo" }, { id: "off" }], { enabled: true });
  await disableTool("demo", "off");
  await installRecorded(host, "bulky", [{ id: "fails", behavior: "failLarge" }], { enabled: true });
  await install("files", JSON.stringify(filesDocument()), { token: FILES_TOKEN }, upstream.url);
  await disableTool("files", "deleteSecret");
  await install("keyed", JSON.stringify(queryKeyDocument()), { key: QUERY_KEY }, upstream.url);
  const huge = {
    openapi: "3.0.3",
    info: { title: "Huge", version: "1" },
    paths: { "/dump": { get: { operationId: "dump", responses: { "200": { description: "ok" } } } } },
  };
  await install("huge", JSON.stringify(huge), {}, upstream.url);
  health = watchHealth();
}, 120_000);

afterAll(async () => {
  await health?.stop();
  await host?.stop();
  await shop?.close();
  await upstream?.close();
  await bomb?.close();
  for (const published of fixtures.values()) await published.close();
});

async function install(id: string, definition: string, secrets: Record<string, string>, baseUrl?: string) {
  const installed = await host.api("POST", "/services", { id, adapter: "openapi", definition });
  expect(installed.status, installed.text).toBe(201);
  if (baseUrl) expect((await host.api("PATCH", `/services/${id}/config`, { baseUrl })).status).toBe(200);
  if (Object.keys(secrets).length > 0) {
    expect((await host.api("PATCH", `/services/${id}/secrets`, secrets)).status).toBe(200);
  }
  const enabled = await host.api("POST", `/services/${id}/enabled`, { enabled: true });
  expect(enabled.status, enabled.text).toBe(200);
}

async function disableTool(service: string, tool: string) {
  const response = await host.api("POST", `/tools/${service}/${tool}/enabled`, { enabled: false });
  expect(response.body).toMatchObject({ enabled: false, effectivelyEnabled: false });
}

/**
 * POST /processes with block:true: the finished process. Unchecked: these attack the sandbox itself, and
 * the type check (which refuses most of them before they run) is no security boundary.
 */
async function run(code: string, timeoutMs: number = GENEROUS_MS): Promise<ProcessRecord> {
  const response = await host.api<ProcessRecord>("POST", "/processes", {
    code,
    block: true,
    timeoutMs,
    typecheck: false,
  });
  expect(response.status, response.text).toBe(201);
  expect(response.body.state).toBe("idle");
  return response.body;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls GET /health (no auth) until stopped; every status seen (0: no answer within a generous 10 s). */
function watchHealth(): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const response = await fetch(`${host.url}/health`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
      statuses.push(response?.status ?? 0);
      await response?.text();
      await pause(50);
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

/**
 * Runs every attack at once and fails with the name and error of each one
 * that did not end as it must (all of them are reported, not just the first).
 */
async function launch(attacks: Record<string, () => Promise<void>>): Promise<void> {
  const names = Object.keys(attacks);
  const outcomes = await Promise.allSettled(names.map((name) => attacks[name]!()));
  const failures = outcomes.flatMap((outcome, index) =>
    outcome.status === "rejected" ? [`${names[index]}: ${(outcome.reason as Error)?.message ?? outcome.reason}`] : [],
  );
  expect(failures, failures.join("\n\n")).toEqual([]);
}

const POISON = `const fr = new FinalizationRegistry(() => { for (;;) {} });
for (let i = 0; i < 1e4; i++) fr.register({ big: new Array(100).fill(i) }, i);
(globalThis as any).keep = fr;
cyrnel.output({ a: 1 });`;

const ALLOCATES = `const items: number[][] = [];
for (let i = 0; i < 20000; i++) items.push(new Array(20).fill(i));
cyrnel.output({ count: items.length });`;

const WAIT_ASYNC = [
  "Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);",
  "await Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10).value;",
  "const cell = new Int32Array(new SharedArrayBuffer(4)); const waiting = Atomics.waitAsync(cell, 0, 0); Atomics.notify(cell, 0); await waiting.value;",
];

/** Path parameters for `getFile(a, b, c)`: bare dot segments are refused; encoded dots are data, sent encoded. */
const DOT_SEGMENTS = {
  refused: [
    ["..", "admin", "secret"],
    [".", "admin", "secret"],
    ["x", "..", ".."],
    ["x", "y", ".."],
  ],
  encoded: [
    ["%2e%2e", "admin", "secret"],
    ["%2E%2e", "admin", "secret"],
    [".%2e", "admin", "secret"],
  ],
};

/** Where a request target lands once the server resolves dot segments (WHATWG URL resolves `%2e` as a dot too). */
const resolvedPath = (line: string) => new URL(line.slice(line.indexOf(" ") + 1), "http://upstream").pathname;

const PATCH_ROUTES = [
  "/services/demo/config",
  "/services/demo/secrets",
  "/modules/recorder/config",
  "/modules/recorder/secrets",
];

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: "cyrnel-campaign", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${API_KEY}` } },
  });
  await client.connect(transport);
  return client;
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("");

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/** Each form of each secret found in a file under the data dir, as "file: form". */
function secretsOnDisk(dataDir: string): string[] {
  const forms = SECRETS.flatMap(secretForms).map((form) => Buffer.from(form, "utf8"));
  return filesUnder(dataDir).flatMap((file) => {
    const bytes = readFileSync(file);
    return forms.filter((form) => bytes.includes(form)).map((form) => `${file}: ${form.toString("utf8")}`);
  });
}

describe("a hostile campaign against one host", () => {
  /** Every text a sandboxed process produced, for the check that none saw the host's secrets or environment. */
  const produced: string[] = [];

  it("refuses or contains every attack while they run at once", async () => {
    await launch({
      "FinalizationRegistry callbacks left in every isolate never run in a later process": async () => {
        for (let round = 0; round < 3; round++) {
          const poisoned = await Promise.all([run(POISON), run(POISON)]);
          // How a poisoned process itself ends is not the point; that later ones run is.
          for (const result of poisoned) expect(["success", "timeout", "failed"]).toContain(result.exitState);
        }
        await pause(200);
        const later = await Promise.all(Array.from({ length: 6 }, () => run(ALLOCATES)));
        expect(later.map((result) => [result.exitState, result.error, result.output])).toEqual(
          Array(6).fill(["success", null, { count: 20000 }]),
        );
      },

      "Atomics.waitAsync fails its own process only; the one beside it succeeds": async () => {
        const pairs = await Promise.all(
          WAIT_ASYNC.map((code) =>
            Promise.all([
              run(code),
              run("await new Promise((resolve) => setTimeout(resolve, 300)); cyrnel.output({ neighbour: true });"),
            ]),
          ),
        );
        for (const [waiter, neighbour] of pairs) {
          expect(waiter.exitState).toBe("failed");
          expect(waiter.error).toMatch(/^Uncaught TypeError: Atomics\.waitAsync is not a function/);
          expect([neighbour.exitState, neighbour.error, neighbour.output]).toEqual([
            "success",
            null,
            { neighbour: true },
          ]);
        }
      },

      "5,000 outputs of 200 bytes and 20,000 small outputs end with every key": async () => {
        const [wide, many] = await Promise.all([
          run('for (let i = 0; i < 5000; i++) cyrnel.output({ ["k" + i]: "v".repeat(190) });'),
          run('for (let i = 0; i < 20000; i++) cyrnel.output({ ["k" + i]: i });'),
        ]);
        // 5,000 keys of 190 characters merge to about 1.0 MB, just under the 1 MiB output limit.
        expect([wide.exitState, wide.error]).toEqual(["success", null]);
        expect(Object.keys(wide.output)).toHaveLength(5000);
        expect(wide.output.k4999).toBe("v".repeat(190));
        expect([many.exitState, many.error]).toEqual(["success", null]);
        expect(Object.keys(many.output)).toHaveLength(20000);
        expect(many.output.k19999).toBe(19999);
      },

      [`400 followers of one process: ${FOLLOWERS_LIMIT} are served, the rest get 429`]: async () => {
        const created = await host.api("POST", "/processes", {
          code: "cyrnel.output({ followed: true });\nawait new Promise(() => {});",
          timeoutMs: GENEROUS_MS,
        });
        expect(created.status, created.text).toBe(201);
        const id = created.body.id as number;
        await expect
          .poll(async () => (await host.api("GET", `/processes/${id}`)).body.state, { timeout: GENEROUS_MS })
          .toBe("running");
        const followers = await Promise.all(
          Array.from({ length: 400 }, () =>
            fetch(`${host.url}/processes/${id}/events`, { headers: { authorization: `Bearer ${API_KEY}` } }),
          ),
        );
        const served = followers.filter((response) => response.status === 200);
        const refused = followers.filter((response) => response.status !== 200);
        try {
          expect(served).toHaveLength(FOLLOWERS_LIMIT);
          expect(new Set(refused.map((response) => response.status))).toEqual(new Set([429]));
          const bodies = (await Promise.all(refused.map((response) => response.json()))) as { code: string }[];
          expect(new Set(bodies.map((body) => body.code))).toEqual(new Set(["too_many_followers"]));
        } finally {
          const killed = await host.api("POST", `/processes/${id}/signals/kill`);
          expect(killed.body).toMatchObject({ state: "idle", exitState: "canceled" });
        }
        // Every follower that was let in is told how the process ended, then its stream closes.
        const ends = await Promise.all(
          served.map(async (response) => JSON.parse((await response.text()).trim().split("\n").at(-1) ?? "null")),
        );
        expect(ends).toEqual(
          Array(FOLLOWERS_LIMIT).fill(
            expect.objectContaining({
              type: "end",
              process: expect.objectContaining({ id, exitState: "canceled", output: { followed: true } }),
            }),
          ),
        );
      },

      "dot-segment path parameters never reach the disabled DELETE /admin/secret": async () => {
        const result = await run(`
          const attempts = [];
          for (const [a, b, c] of ${JSON.stringify([...DOT_SEGMENTS.refused, ...DOT_SEGMENTS.encoded])}) {
            try {
              attempts.push({ ok: await cyrnel.services.files.tools.getFile.invoke({ a, b, c }) });
            } catch (error: any) {
              attempts.push({ status: error.status, code: error.code, message: error.message });
            }
          }
          cyrnel.output({ attempts });
        `);
        expect(result.exitState, result.error ?? "").toBe("success");
        const attempts = result.output.attempts as Record<string, unknown>[];
        for (const [index, [a, b, c]] of DOT_SEGMENTS.refused.entries()) {
          const segment = [a, b, c].find((value) => value === "." || value === "..");
          expect(attempts[index]).toMatchObject({ status: 502, code: "adapter_error" });
          expect(attempts[index]?.message).toContain(`makes the path segment "${segment}": dot segments are refused`);
        }
        expect(attempts.slice(DOT_SEGMENTS.refused.length)).toEqual(Array(3).fill({ ok: { ok: true } }));
        // The same through the HTTP route, and the disabled tool itself.
        const direct = await host.api("POST", "/tools/files/getFile/invoke", {
          parameters: { a: "..", b: "admin", c: "secret" },
        });
        expect(direct.status, direct.text).toBe(502);
        expect(direct.body.error).toContain("dot segments are refused");
        const disabled = await host.api("POST", "/tools/files/deleteSecret/invoke", { parameters: {} });
        expect([disabled.status, disabled.body.code]).toEqual([409, "tool_disabled"]);
        // Encoded dots arrived as the literal text, still under /files; nothing reached /admin in any spelling.
        for (const target of ["/files/%252e%252e/admin/secret", "/files/%252E%252e/admin/secret"]) {
          expect(upstream.received).toContain(`GET ${target}`);
        }
        expect(upstream.received.filter((line) => resolvedPath(line).startsWith("/admin"))).toEqual([]);
        expect(upstream.received.filter((line) => line.startsWith("DELETE "))).toEqual([]);
      },

      "YAML alias bombs and 20,000-deep definitions, inline and by URL, get a 400 naming the limit": async () => {
        const attempts: [string, Record<string, string>, RegExp][] = [
          ["aliasInline", { definition: yamlAliasBomb() }, /expands to more than 5,000,000 values/],
          ["aliasUrl", { url: `${upstream.url}/bomb.yaml` }, /expands to more than 5,000,000 values/],
          ["deepInline", { definition: deepDefinition() }, /nested more than 256 levels deep/],
          ["deepUrl", { url: `${upstream.url}/deep.json` }, /nested more than 256 levels deep/],
        ];
        const responses = await Promise.all(
          attempts.map(([id, source]) => host.api("POST", "/services", { id, adapter: "openapi", ...source })),
        );
        for (const [index, [id, , message]] of attempts.entries()) {
          const response = responses[index]!;
          expect(response.status, `${id}: ${response.text}`).toBe(400);
          expect(response.body.code).toBe("bad_request");
          expect(response.body.error).toMatch(message);
          expect((await host.api("GET", `/services/${id}`)).status).toBe(404);
        }
      },

      "a gzip-bomb module archive is refused at its first header, on install and on update": async () => {
        const refusal = `entry "package/zeros-0.bin" is ${BOMB_ENTRY_BYTES} bytes, over the limit of`;
        const [installed, updated] = await Promise.all([
          host.api("POST", "/modules/install", { source: bomb.descriptor }),
          host.api("PATCH", "/modules/recorder", { url: bomb.url }),
        ]);
        for (const response of [installed, updated]) {
          expect(response.status, response.text).toBe(400);
          expect(response.body).toMatchObject({ code: "bad_request" });
          expect(response.body.error).toContain(refusal);
        }
        expect((await host.api("GET", "/modules/bomb")).status).toBe(404);
        expect((await host.api("GET", "/modules/recorder")).body).toMatchObject({ version: "1.0.0", error: null });
      },

      "modules that hang or call process.exit are refused at install, and the host keeps running": async () => {
        const cases: [string, string][] = [
          ["hang-import", `importing index.mjs did not finish within ${LOAD_TIMEOUT_MS} ms`],
          ["hang-instantiate", `instantiate() did not finish within ${LOAD_TIMEOUT_MS} ms`],
          ["exit-import", "process.exit(3) was refused"],
        ];
        const [exitSetup, ...responses] = await Promise.all([
          host.api("POST", "/modules/install", { source: fixtures.get("exit-setup")!.descriptor }),
          ...cases.map(([id]) => host.api("POST", "/modules/install", { source: fixtures.get(id)!.descriptor })),
        ]);
        for (const [index, [id, message]] of cases.entries()) {
          const response = responses[index]!;
          expect(response.status, `${id}: ${response.text}`).toBe(400);
          expect(response.body.error).toContain(`module "${id}" failed to load`);
          expect(response.body.error).toContain(message);
          expect(existsSync(join(host.dataDir, "modules", id)), id).toBe(false);
        }
        // A module whose setup() exits installs (its code loads), and enabling it answers 502.
        expect(exitSetup!.status, exitSetup!.text).toBe(201);
        const enabled = await host.api("POST", "/modules/exit-setup/enabled", { enabled: true });
        expect(enabled.status, enabled.text).toBe(502);
        expect(enabled.body.error).toContain("process.exit(4) was refused");
        expect((await host.api("GET", "/modules/exit-setup")).body).toMatchObject({ enabled: false, active: false });
        expect(host.logs().some((entry) => entry.msg === "module code tried to stop the host; refused")).toBe(true);
      },

      "two 200 MB upstream responses at once fail naming maxResponseBytes, read no further": async () => {
        const responses = await Promise.all([
          host.api("POST", "/tools/huge/dump/invoke", { parameters: {} }),
          host.api("POST", "/tools/huge/dump/invoke", { parameters: {} }),
        ]);
        for (const response of responses) {
          expect(response.status, response.text.slice(0, 500)).toBe(502);
          expect(response.body.error).toContain(
            "the response is larger than 10,485,760 bytes (the service's maxResponseBytes)",
          );
        }
        await expect.poll(() => upstream.dumped.length).toBe(2);
        for (const written of upstream.dumped) expect(written).toBeLessThan(100 * MiB);
      },

      "a 10 MB parameter of a failing call gives a bounded error in code": async () => {
        const result = await run(`
          try {
            await cyrnel.services.bulky.tools.fails.invoke({ q: "q".repeat(10_000_000) });
            cyrnel.output({ failed: false });
          } catch (error: any) {
            cyrnel.output({
              failed: true,
              code: error.code,
              messageLength: error.message.length,
              detailsLength: JSON.stringify(error.details ?? null).length,
              message: error.message.slice(-200),
              cut: error.message.includes(" more characters]"),
            });
          }
        `);
        expect(result.output).toMatchObject({ failed: true, code: "adapter_error" });
        expect(result.output.messageLength).toBeLessThanOrEqual(8 * 1024 + 100);
        expect(result.output.detailsLength).toBeLessThanOrEqual(64 * 1024 + 200);
        // The adapter's own message is cut; the upstream status and a short body excerpt may follow the marker.
        expect(result.output.cut).toBe(true);
        await host.waitForLog((entry) => entry.msg === "tool call failed" && entry.service === "bulky");
      },

      "a query apiKey echoed back encoded is masked in the response and in what code sees": async () => {
        const direct = await host.api("POST", "/tools/keyed/listItems/invoke", { parameters: {} });
        expect(direct.status).toBe(502);
        expect(direct.text).toContain("[redacted]");
        const fromCode = await run(`
          try {
            await cyrnel.services.keyed.tools.listItems.invoke({});
          } catch (error: any) {
            cyrnel.output({ message: error.message, details: error.details ?? null });
          }
        `);
        expect(fromCode.exitState, fromCode.error ?? "").toBe("success");
        expect(fromCode.output.message).toContain("[redacted]");
        const everything = `${direct.text}\n${JSON.stringify(fromCode)}`;
        for (const form of secretForms(QUERY_KEY)) expect(everything).not.toContain(form);
        // The key did go out, encoded, in the query string.
        expect(upstream.received).toContain(`GET /items?key=${encodeURIComponent(QUERY_KEY)}`);
      },

      "timeoutMs 2^31 is refused over HTTP and MCP; 2^31 − 1 runs": async () => {
        const refused = await host.api("POST", "/processes", { code: "cyrnel.output({ a: 1 });", timeoutMs: 2 ** 31 });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error).toContain("timeoutMs");
        const client = await mcpClient();
        try {
          const result = (await client.callTool({
            name: "run_code",
            arguments: { code: "cyrnel.output({ a: 1 });", timeoutMs: 2 ** 31 },
          })) as CallToolResult;
          expect(result.isError).toBe(true);
          expect(textOf(result)).toContain("timeoutMs");
        } finally {
          await client.close();
        }
        const longest = await run("cyrnel.output({ a: 1 });", 2 ** 31 - 1);
        expect(longest).toMatchObject({ timeoutMs: 2 ** 31 - 1, exitState: "success", output: { a: 1 } });
      },

      "patches nested 100,000 deep, 2,000 copy ops, doubling copies and a body 400,000 deep get a 400": async () => {
        const bombs: [unknown, RegExp][] = [
          [nestedJson(100_000), /nests deeper than \d+ levels/],
          [manyCopies(2_000), /at most 1000 operations/],
          [doublingCopies(60), /larger than \d+ bytes/],
        ];
        const sent = PATCH_ROUTES.flatMap((path) => bombs.map(([body, message]) => ({ path, body, message })));
        const responses = await Promise.all(sent.map(({ path, body }) => host.api("PATCH", path, body)));
        for (const [index, { path, message }] of sent.entries()) {
          const response = responses[index]!;
          expect(response.status, `${path}: ${response.text}`).toBe(400);
          expect(response.body.error).toMatch(message);
        }
        const deep = `{"parameters":${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
        const body = await host.api("POST", "/tools/demo/echo/invoke", deep);
        expect(body.status, body.text).toBe(400);
        expect(body.body.error).toMatch(/request body nests deeper than \d+ levels/);
        // Nothing was applied.
        expect((await host.api("GET", "/services/demo/config")).body).toEqual({ config: {} });
        expect((await host.api("GET", "/services/demo/secrets")).body).toEqual({ set: [] });
      },

      "hostile downloads: a redirect loop, a file: redirect, an endless body, a dripping body": async () => {
        const attempts: [string, string, RegExp][] = [
          ["dlLoop", "/download/loop", /more than 5 redirects/],
          ["dlFile", "/download/file", /must be http or https, got "file:"/],
          ["dlEndless", "/download/endless", new RegExp(`is larger than ${DEFINITION_LIMIT_BYTES} bytes`)],
          ["dlDrip", "/download/drip", DRIP_REFUSED],
        ];
        const responses = await Promise.all([
          ...attempts.map(([id, path]) =>
            host.api("POST", "/services", { id, adapter: "openapi", url: `${upstream.url}${path}` }),
          ),
          host.api("POST", "/modules/install", { source: `${upstream.url}/download/endless` }),
          host.api("POST", "/registries", { url: `${upstream.url}/download/drip` }),
        ]);
        for (const [index, [id, , message]] of attempts.entries()) {
          const response = responses[index]!;
          expect(response.status, `${id}: ${response.text}`).toBe(400);
          expect(response.body.error).toMatch(message);
          expect((await host.api("GET", `/services/${id}`)).status).toBe(404);
        }
        const [module, registry] = responses.slice(attempts.length);
        expect(module!.status, module!.text).toBe(400);
        expect(module!.body.error).toMatch(/is larger than \d+ bytes/);
        // A registry is read on the caller's behalf: its remote end failing is an upstream failure.
        expect([registry!.status, registry!.body.code], registry!.text).toEqual([502, "upstream_error"]);
        expect(registry!.body.error).toMatch(DRIP_REFUSED);
        expect((await host.api("GET", "/registries")).body.items).toEqual([]);
      },
    });
  }, 240_000);

  it("runs the shared hostile sandbox programs, two at a time, each ending exactly as it must", async () => {
    // Two lanes, far below the sandbox's maxExecutions: no program waits in the queue, so the ones whose 300 ms
    // deadline is under test end at that deadline, not in the queue.
    const asProgramResult = (process: ProcessRecord): ProgramResult => ({
      exit: process.exitState ?? "",
      error: process.error,
      output: process.output,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    const failures: string[] = [];
    const attempt = async (label: string, body: () => Promise<void>) => {
      try {
        await body();
      } catch (error) {
        failures.push(`${label}: ${(error as Error).message}`);
      }
    };
    await Promise.all([
      (async () => {
        for (const program of HOSTILE_PROGRAMS) {
          await attempt(program.label, async () => {
            const result = await run(program.code, program.timeoutMs);
            produced.push(JSON.stringify(result));
            program.check(asProgramResult(result));
          });
        }
      })(),
      (async () => {
        for (const [label, code, expected] of shopHostilePrograms(SERVICES)) {
          await attempt(label, async () => {
            const result = await run(code);
            produced.push(JSON.stringify(result));
            expectEndedAs(result, expected);
          });
        }
      })(),
    ]);
    expect(failures, failures.join("\n\n")).toEqual([]);
    const everything = produced.join("\n");
    for (const marker of [...SECRETS, ENV_MARKER, "CYRNEL_DATA_DIR"]) expect(everything).not.toContain(marker);
  }, 240_000);

  describe("afterwards", () => {
    it("answered /health with 200 throughout the campaign", async () => {
      const statuses = await health.stop();
      expect(statuses.length).toBeGreaterThan(10);
      expect(new Set(statuses)).toEqual(new Set([200]));
    });

    it("answers /health with status ok, every time", async () => {
      // How fast it answers is a figure for bench/, not an assertion: on a loaded machine a request can lose its core
      // to another process for longer than any budget, which says nothing about the host.
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await fetch(`${host.url}/health`);
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ status: "ok" });
        await pause(200);
      }
    });

    it("runs a normal process that calls a tool, with the right output", async () => {
      const before = shop.requests.length;
      const result = await run(`
        const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "after-the-campaign", verbose: true });
        console.log("fetched", item.id);
        cyrnel.output({ item });
      `);
      expect(result).toMatchObject({
        exitState: "success",
        error: null,
        output: { item: { id: "after-the-campaign", name: "Item after-the-campaign", verbose: true } },
        stdout: "fetched after-the-campaign\n",
      });
      const received = shop.requests.slice(before);
      expect(received.map((request) => request.path)).toEqual(["/items/after-the-campaign"]);
      expect(received[0]?.headers["x-shop-key"]).toBe(SHOP_KEY);
    });

    it("is still the same host process, started once", () => {
      expect(host.child.pid).toBe(pid);
      expect([host.exitCode, host.child.signalCode]).toEqual([null, null]);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      expect(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)).not.toBe("Z");
      expect(host.logs().filter((entry) => entry.msg === "listening")).toHaveLength(1);
    });

    it("never held more than 1 GiB of memory", () => {
      // The unfixed host reached 1.37 GB for one 200 MB response and 4.4 GB for a gzip bomb; this one holds a
      // few hundred MB at its peak with every attack at once (the sandbox runs in its own process, not counted).
      expect(peakRssBytes(pid)).toBeLessThan(1024 * MiB);
    });

    it("has a sound database in which every process ended", async () => {
      if (testDialect() === "sqlite") {
        const db = new Database(join(host.dataDir, "data.db"), { readonly: true, fileMustExist: true });
        try {
          expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
        } finally {
          db.close();
        }
      }
      const running = await queryDatabase<{ n: number }>(
        host.dataDir,
        "select count(*) as n from processes where state != 'idle'",
      );
      expect(Number(running[0]!.n)).toBe(0);
      const services = await queryDatabase<{ id: string }>(host.dataDir, "select id from services order by id");
      expect(services.map((row) => row.id)).toEqual(SERVICES);
    });

    it("wrote no secret, in any form, to its log or to any file under the data dir, and no line over 64 KiB", async () => {
      const logs = host.output.join("\n");
      for (const form of SECRETS.flatMap(secretForms)) expect(logs).not.toContain(form);
      expect(Math.max(...host.output.map((line) => line.length))).toBeLessThanOrEqual(64 * 1024);
      expect(secretsOnDisk(host.dataDir)).toEqual([]);

      // Once stopped, the WAL is folded into data.db: look again, and check the database again.
      expect(await host.stop()).toBe(0);
      expect(secretsOnDisk(host.dataDir)).toEqual([]);
      const stopLogs = host.output.join("\n");
      for (const form of SECRETS.flatMap(secretForms)) expect(stopLogs).not.toContain(form);
      if (testDialect() === "sqlite") {
        const db = new Database(join(host.dataDir, "data.db"), { readonly: true, fileMustExist: true });
        try {
          expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
        } finally {
          db.close();
        }
        expect(statSync(join(host.dataDir, "data.db")).size).toBeGreaterThan(0);
      } else {
        // The database is elsewhere: every row of it, as text.
        const rows = await everyRowText(host.dataDir);
        expect(rows.length).toBeGreaterThan(0);
        for (const form of SECRETS.flatMap(secretForms)) expect(rows).not.toContain(form);
      }
    });
  });
});
