import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { followProcess, readEvents } from "./support/process-events.js";

/**
 * The bundled `mcp` adapter through the whole host: an operator installs the
 * official reference server `@modelcontextprotocol/server-everything` (a
 * stdio child process of the host) and code calls its tools. A second, small
 * MCP server (the mcp package's own test fixture) shows from the server's
 * side that killing a run cancels its call. The servers are resolved from
 * the mcp package, whose dev dependencies they are.
 */
const API_KEY = "mcp-adapter-admin-key";
const mcpPackage = join(import.meta.dirname, "..", "..", "..", "packages", "mcp");
const fromMcp = createRequire(join(mcpPackage, "package.json"));
const everythingScript = join(
  dirname(fromMcp.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const labScript = join(mcpPackage, "test", "fixtures", "lab-server.mjs");
const stdio = (script: string, args: string[] = []) =>
  JSON.stringify({ transport: "stdio", command: process.execPath, args: [script, ...args] });

let host: TestHost;
let agentKey: string;

/** Runs `code` to its end (not type-checked unless asked) and answers the process with its output. */
async function run(code: string) {
  const response = await host.api("POST", "/processes", { code, block: true, typecheck: false });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: number; exitState: string; error: string | null; output: Record<string, unknown> };
}

/** The host's children that run `script` (the MCP servers it started), by pid. */
function serverPids(script: string): number[] {
  const pid = host.child.pid!;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  return children.map(Number).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").includes(script);
    } catch {
      return false;
    }
  });
}

const stderrLine = (pattern: RegExp) => (entry: Record<string, unknown>) =>
  entry.stream === "stderr" && typeof entry.msg === "string" && pattern.test(entry.msg);

beforeAll(async () => {
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY } });
  const key = await host.api("POST", "/keys", { name: "agent", role: "agent" });
  expect(key.status, key.text).toBe(201);
  agentKey = key.body.key;
});

afterAll(async () => {
  await host?.stop();
});

describe("installing an MCP server", () => {
  it("is for admins: an agent key gets 403 and nothing is started", async () => {
    const response = await host.api(
      "POST",
      "/services",
      { id: "sneaky", adapter: "mcp", definition: stdio(everythingScript, ["stdio"]) },
      { authorization: `Bearer ${agentKey}` },
    );
    expect(response.status, response.text).toBe(403);
    expect(serverPids(everythingScript)).toEqual([]);
    expect((await host.api("GET", "/services/sneaky")).status).toBe(404);
  });

  it("lists its tools and records the server, then starts it when enabled", async () => {
    const response = await host.api("POST", "/services", {
      id: "everything",
      adapter: "mcp",
      definition: stdio(everythingScript, ["stdio"]),
      enabled: true,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      id: "everything",
      adapter: "mcp",
      enabled: true,
      name: "Everything Reference Server",
    });
    expect(response.body.description).toContain("Everything Reference Server 2.0.0");
    expect(response.body.toolCount).toBeGreaterThanOrEqual(10);
    expect(serverPids(everythingScript)).toHaveLength(1);
    const echo = await host.api("GET", "/tools/everything/echo");
    expect(echo.body).toMatchObject({ name: "Echo Tool", inputSchema: { required: ["message"] } });
  });

  it("types the service for programs (GET /environment/types)", async () => {
    const types = await host.api("GET", "/environment/types?serviceId=everything");
    expect(types.status, types.text).toBe(200);
    for (const name of ["echo", "getSum", "getStructuredContent", "McpContent", "temperature"]) {
      expect(types.text).toContain(name);
    }
  });
});

describe("calling its tools from a program", () => {
  it("returns text and structured results", async () => {
    const process = await run(`
      const echo = await cyrnel.services.everything.tools.echo.invoke({ message: "hi from code" });
      const sum = await cyrnel.services.everything.tools.getSum.invoke({ a: 19, b: 23 });
      const weather = await cyrnel.services.everything.tools.getStructuredContent.invoke({ location: "New York" });
      cyrnel.output({ echo: echo.text, sum: sum.text, temperature: weather.temperature, blocks: echo.content.length });
    `);
    expect(process.exitState, process.error ?? "").toBe("success");
    expect(process.output).toEqual({
      echo: "Echo: hi from code",
      sum: "The sum of 19 and 23 is 42.",
      temperature: 33,
      blocks: 1,
    });
  });

  it("type-checks against the declared result shapes", async () => {
    const response = await host.api("POST", "/processes", {
      block: true,
      typecheck: true,
      code: `
        const echo = await cyrnel.services.everything.tools.echo.invoke({ message: "typed" });
        const first = echo.content[0];
        const text: string = first.type === "text" ? first.text : "";
        cyrnel.output({ text });
      `,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.exitState, response.body.error ?? "").toBe("success");
    expect(response.body.output).toEqual({ text: "Echo: typed" });
  });

  it("turns a tool error into 502 adapter_error carrying the tool's text", async () => {
    const process = await run(`
      try {
        await cyrnel.services.everything.tools.getResourceReference.invoke({ resourceId: 0 });
      } catch (error) {
        cyrnel.output({ status: error.status, code: error.code, message: error.message });
      }
    `);
    expect(process.output).toMatchObject({ status: 502, code: "adapter_error" });
    expect(process.output.message).toContain("Invalid resourceId: 0. Must be a finite positive integer.");
    const direct = await host.api("POST", "/tools/everything/getResourceReference/invoke", {
      parameters: { resourceId: 0 },
    });
    expect(direct.status).toBe(502);
    expect(direct.body).toMatchObject({
      code: "adapter_error",
      details: { body: expect.stringContaining("Invalid resourceId") },
    });
    // The tool's text is said once, not again from the details.
    expect(direct.body.error.match(/Invalid resourceId/g)).toHaveLength(1);
  });

  it("cancels a long-running call when the process is killed, and keeps the session", async () => {
    const started = await host.api("POST", "/processes", {
      typecheck: false,
      code: 'console.log("calling");\nawait cyrnel.services.everything.tools.triggerLongRunningOperation.invoke({ duration: 60, steps: 60 });',
    });
    expect(started.status, started.text).toBe(201);
    const id = started.body.id as number;
    // The call is on its way once the line printed just before it reached the host (the sandbox's messages to the
    // host keep their order): a kill while the run is "running" could otherwise land before the call was made.
    const events = await followProcess(host, id);
    await readEvents(events, (event) => event.type === "stdout" && String(event.text).includes("calling"));
    await events.cancel();
    expect((await host.api("POST", `/processes/${id}/signals/kill`)).status).toBe(200);
    await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.exitState).toBe("canceled");
    const calls = await host.api("GET", `/calls?processId=${id}`);
    expect(calls.body.items).toEqual([
      expect.objectContaining({ toolId: "triggerLongRunningOperation", outcome: "call_canceled" }),
    ]);
    const after = await run(
      `cyrnel.output(await cyrnel.services.everything.tools.echo.invoke({ message: "still here" }));`,
    );
    expect(after.output).toMatchObject({ text: "Echo: still here" });
    expect(serverPids(everythingScript)).toHaveLength(1);
  });

  it("reconnects when the server process dies", async () => {
    const [before] = serverPids(everythingScript);
    process.kill(before!, "SIGKILL");
    const ended = await host.waitForLog(
      (entry) => entry.msg === "MCP session ended; reconnecting" && entry.service === "everything",
    );
    await host.waitForLog(
      (entry) =>
        entry.msg === "MCP session open" && entry.service === "everything" && String(entry.time) >= String(ended.time),
    );
    const after = await run(`cyrnel.output(await cyrnel.services.everything.tools.echo.invoke({ message: "back" }));`);
    expect(after.output).toMatchObject({ text: "Echo: back" });
    const pids = serverPids(everythingScript);
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(before);
  });

  it("stops the server when the service is disabled", async () => {
    expect((await host.api("POST", "/services/everything/enabled", { enabled: false })).status).toBe(200);
    expect(serverPids(everythingScript)).toEqual([]);
  });
});

describe("cancellation seen by the server", () => {
  it("a killed run sends notifications/cancelled for its call", async () => {
    const installed = await host.api("POST", "/services", {
      id: "lab",
      adapter: "mcp",
      definition: stdio(labScript),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    // The server's stderr is in the host's log, under the service.
    await host.waitForLog((entry) => stderrLine(/^lab server \d+ ready$/)(entry) && entry.service === "lab");
    const started = await host.api("POST", "/processes", {
      typecheck: false,
      code: "await cyrnel.services.lab.tools.wait.invoke({});",
    });
    const id = started.body.id as number;
    const waiting = await host.waitForLog(stderrLine(/^wait started /));
    const requestId = String(waiting.msg).split(" ").pop();
    expect((await host.api("POST", `/processes/${id}/signals/kill`)).status).toBe(200);
    await host.waitForLog(stderrLine(new RegExp(`^wait canceled ${requestId}:`)));
    await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.exitState).toBe("canceled");
  });
});

describe("a server whose tools change", () => {
  it("marks the service stale on notifications/tools/list_changed, and an update from the same text lists them again", async () => {
    // The lab service of the block above: its server adds a tool (and says so) when addTool is called.
    const before = await host.api("GET", "/services/lab");
    expect(before.body).toMatchObject({ stale: false, toolCount: 10 });
    expect((await run("await cyrnel.services.lab.tools.addTool.invoke({});")).exitState).toBe("success");
    await expect.poll(async () => (await host.api("GET", "/services/lab")).body.stale).toBe(true);
    const stale = await host.api("GET", "/services/lab");
    expect(stale.body.staleReason).toContain('adapter "mcp" reported');
    expect(stale.body.staleReason).toContain("list_changed");
    // Its tools are refused until it is updated.
    const refused = await host.api("POST", "/tools/lab/pid/invoke", { parameters: {} });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toContain("stale");

    // The same definition text, sent again, regenerates a stale service (for a fresh one it is a no-op).
    const updated = await host.api("PATCH", "/services/lab", { definition: stdio(labScript) });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ updated: true, enabled: true });
    const after = await host.api("GET", "/services/lab");
    expect(after.body).toMatchObject({ stale: false, staleReason: null });
    // The listing asked a fresh server (the lab server's added tool lived in the old one's memory): its tools, now.
    expect(after.body.toolCount).toBe(10);
    expect((await host.api("POST", "/tools/lab/pid/invoke", { parameters: {} })).status).toBe(200);
    const again = await host.api("PATCH", "/services/lab", { definition: stdio(labScript) });
    expect(again.body).toMatchObject({ updated: false });
  });
});
