import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilFollowerFree } from "./support/followers.js";
import { type GateApi, installGate, startGateApi } from "./support/gate-api.js";
import { startHost, type TestHost } from "./support/host.js";

/**
 * Runs longer than an MCP call may wait, on `/mcp` and `cyrnel mcp` alike,
 * with a wait budget of one second (CYRNEL_MCP_WAIT_MS on the host,
 * `--wait-ms` for the stdio server). The programs wait at a gate (a tool
 * call the test lets through), so a run outlasts the budget for certain,
 * and ends when the test says so. A process takes one live follower here
 * (CYRNEL_PROCESS_FOLLOWERS_LIMIT), so whether the test can follow it shows
 * whether a wait that answered still holds on to it.
 */
const API_KEY = "mcp-long-key";
const WAIT_MS = "1000";
const bin = join(import.meta.dirname, "..", "bin", "cyrnel.js");

let host: TestHost;
let gate: GateApi;

beforeAll(async () => {
  gate = await startGateApi();
  host = await startHost({
    env: {
      CYRNEL_API_KEY: API_KEY,
      CYRNEL_MCP_WAIT_MS: WAIT_MS,
      CYRNEL_INVOKE_TIMEOUT_MS: "600000",
      CYRNEL_PROCESS_FOLLOWERS_LIMIT: "1",
    },
  });
  await installGate(host, gate);
});
afterAll(async () => {
  await host?.stop();
  await gate?.close();
});

const transports: [string, () => Promise<Client>][] = [
  [
    "/mcp",
    async () => {
      const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${API_KEY}` } },
        }),
      );
      return client;
    },
  ],
  [
    "cyrnel mcp",
    async () => {
      const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["--no-node-snapshot", bin, "mcp", "--url", host.url, "--wait-ms", WAIT_MS],
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CYRNEL_API_KEY: API_KEY },
          stderr: "pipe",
        }),
      );
      return client;
    },
  ],
];

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("");

/** A program that prints a line, then waits at gate `name`, and outputs what the gate answered. */
const gated = (name: string) =>
  `console.log("at the gate"); cyrnel.output(await cyrnel.services.gate.tools.pass.invoke({ name: ${JSON.stringify(name)} }));`;

/** get_process with wait until the process is idle; every answer before is a bounded wait saying it still runs. */
async function waitUntilIdle(client: Client, id: number): Promise<any> {
  for (let attempt = 0; attempt < 120; attempt++) {
    const result = await call(client, "get_process", { id, wait: true });
    expect(result.isError, textOf(result)).toBeFalsy();
    const process = result.structuredContent as any;
    if (process.state === "idle") return process;
    expect(process.next).toContain(`get_process {"id":${id},"wait":true}`);
  }
  throw new Error(`process ${id} did not end`);
}

describe.each(transports)("long runs over %s", (label, connect) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(() => client?.close());

  it("run_code with wait: false answers the id at once, while the program still runs", async () => {
    const name = `no-wait ${label}`;
    const result = await call(client, "run_code", { code: gated(name), wait: false });
    expect(result.isError, textOf(result)).toBeFalsy();
    const started = result.structuredContent as any;
    expect(started).toEqual({
      id: expect.any(Number),
      state: expect.stringMatching(/^(queued|running)$/),
      exitState: null,
      error: null,
      durationMs: null,
      next: expect.stringContaining(`get_process {"id":${started.id},"wait":true}`),
    });
    expect(JSON.parse(textOf(result))).toEqual(started);
    // The gate is still closed: the program cannot have ended.
    expect((await host.api("GET", `/processes/${started.id}`)).body.state).not.toBe("idle");

    gate.open(name);
    expect(await waitUntilIdle(client, started.id)).toMatchObject({
      id: started.id,
      exitState: "success",
      output: { passed: name },
      stdout: "at the gate\n",
    });
  });

  it("a run longer than the wait answers the id and running, and get_process follows it to the end", async () => {
    const name = `long ${label}`;
    const result = await call(client, "run_code", { code: gated(name) });
    expect(result.isError, textOf(result)).toBeFalsy();
    const first = result.structuredContent as any;
    // Running at the gate, or (on a very busy machine) still waiting for a sandbox.
    expect(first).toMatchObject({ id: expect.any(Number), state: expect.stringMatching(/^(queued|running)$/) });
    expect(first.exitState).toBeNull();
    expect(first.next).toBe(
      `Process ${first.id} is ${first.state}. Call get_process {"id":${first.id},"wait":true} to wait for it ` +
        `(up to 1 s per call), or get_process {"id":${first.id}} to look without waiting.`,
    );

    // The wait that answered let go of the process (its one follower slot is free again).
    await untilFollowerFree(host, first.id);

    // get_process waits within the same budget.
    const still = await call(client, "get_process", { id: first.id, wait: true });
    expect(still.structuredContent).toMatchObject({ id: first.id, state: expect.stringMatching(/^(queued|running)$/) });
    await untilFollowerFree(host, first.id);
    const listed = await call(client, "list_processes", { state: (still.structuredContent as any).state });
    expect((listed.structuredContent as any).processes.map((process: any) => process.id)).toContain(first.id);

    gate.open(name);
    const ended = await waitUntilIdle(client, first.id);
    expect(ended).toMatchObject({ exitState: "success", output: { passed: name }, stdout: "at the gate\n" });
    expect(ended.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("list_processes pages newest first and filters by state and exitState", async () => {
    const failed = await call(client, "run_code", { code: `throw new Error("listed ${label}")` });
    expect(failed.isError).toBe(true);
    const failedId = (failed.structuredContent as any).id;

    const newest = await call(client, "list_processes", { limit: 1 });
    expect(newest.isError, textOf(newest)).toBeFalsy();
    const firstPage = newest.structuredContent as any;
    expect(firstPage.processes).toEqual([
      {
        id: failedId,
        ref: null,
        state: "idle",
        exitState: "failed",
        error: expect.stringContaining(`listed ${label}`),
        createdAt: expect.any(String),
        durationMs: expect.any(Number),
      },
    ]);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    const older = (await call(client, "list_processes", { limit: 1, cursor: firstPage.nextCursor }))
      .structuredContent as any;
    expect(older.processes[0].id).toBeLessThan(failedId);

    const failures = (await call(client, "list_processes", { exitState: "failed" })).structuredContent as any;
    expect(failures.processes.map((process: any) => process.id)).toContain(failedId);
    expect(failures.processes.every((process: any) => process.exitState === "failed")).toBe(true);
    const bad = await call(client, "list_processes", { state: "sleeping" });
    expect(bad.isError).toBe(true);
  });
});
