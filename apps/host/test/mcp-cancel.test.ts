import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeFollower, untilFollowerFree } from "./support/followers.js";
import { startHost, type TestHost } from "./support/host.js";

/**
 * `run_code` waits for its process by following `GET /processes/:id/events`
 * through the host's own API (in-process for `/mcp`, over the network for
 * `cyrnel mcp`). When the MCP request is cancelled or goes away, that wait
 * ends and gives its follower back, and the run it started ends `canceled`
 * (with the tool calls it had in flight): the client asked to stop. The
 * process stays readable with get_process. With one follower allowed per
 * process, whether the slot is taken shows whether the wait is still there.
 */
const API_KEY = "mcp-cancel-key";
const bin = join(import.meta.dirname, "..", "bin", "cyrnel.js");
const ENDLESS = "while (true) {}";

let host: TestHost;

beforeAll(async () => {
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY, CYRNEL_PROCESS_FOLLOWERS_LIMIT: "1" } });
});
afterAll(() => host?.stop());

/** The newest process, once the MCP tool created it, and once its one follower slot is taken by the tool's wait. */
async function waitedOnProcess(since: number): Promise<number> {
  const entry = await host.waitForLog(
    (line) =>
      line.msg === "request" &&
      line.method === "GET" &&
      /^\/processes\/\d+\/events$/.test(String(line.path)) &&
      Number(String(line.path).split("/")[2]) > since,
  );
  const id = Number(String(entry.path).split("/")[2]);
  expect(await probeFollower(host, id), "the tool's wait holds the only follower slot").toBe(429);
  return id;
}

async function newestProcessId(): Promise<number> {
  return (await host.api("GET", "/processes?limit=1")).body.items[0]?.id ?? 0;
}

async function expectCanceled(id: number): Promise<void> {
  await expect
    .poll(async () => (await host.api("GET", `/processes/${id}`)).body)
    .toMatchObject({ state: "idle", exitState: "canceled" });
}

describe("an aborted run_code stops waiting and ends the run it started", () => {
  it("on /mcp, when the HTTP request goes away", async () => {
    const before = await newestProcessId();
    const controller = new AbortController();
    const response = await fetch(`${host.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${API_KEY}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "run_code", arguments: { code: ENDLESS, timeoutMs: 600_000 } },
      }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const id = await waitedOnProcess(before);
    controller.abort();
    await untilFollowerFree(host, id);
    await expectCanceled(id);
  });

  it("on cyrnel mcp (stdio), when the client cancels the call", async () => {
    const before = await newestProcessId();
    const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--no-node-snapshot", bin, "mcp", "--url", host.url],
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CYRNEL_API_KEY: API_KEY },
        stderr: "pipe",
      }),
    );
    try {
      const controller = new AbortController();
      const call = client
        .callTool({ name: "run_code", arguments: { code: ENDLESS, timeoutMs: 600_000 } }, undefined, {
          signal: controller.signal,
          timeout: 600_000,
        })
        .catch((error: unknown) => error);
      const id = await waitedOnProcess(before);
      controller.abort();
      expect(await call).toBeInstanceOf(Error);
      await untilFollowerFree(host, id);
      await expectCanceled(id);
    } finally {
      await client.close();
    }
  });
});
