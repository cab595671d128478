import type { ChildProcess } from "node:child_process";
import { AdapterError, type AdapterModule, type ServiceDefinition } from "@cyrnel/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingOverHttp, freePort, stopServer } from "./http-servers.js";
import { adapter, type RecordingLogger, referenceServer, stateOf, stdio } from "./support.js";

/**
 * The official reference server `@modelcontextprotocol/server-everything`,
 * installed and called the same way over stdio (a child process of the
 * adapter) and over Streamable HTTP (started by the test on a loopback port).
 */
const transports = {
  stdio: async () => ({ definition: stdio(referenceServer("everything"), ["stdio"]), server: undefined }),
  http: async () => {
    const port = await freePort();
    const server = await everythingOverHttp("streamableHttp", port);
    return { definition: JSON.stringify({ transport: "http", url: `http://127.0.0.1:${port}/mcp` }), server, port };
  },
};

describe.each(Object.keys(transports) as (keyof typeof transports)[])("server-everything over %s", (transport) => {
  let mcp: AdapterModule;
  let logger: RecordingLogger;
  let definition: ServiceDefinition;
  let server: ChildProcess | undefined;
  let port: number | undefined;
  const invoke = (toolId: string, parameters: Record<string, unknown> = {}) =>
    mcp.invoke({ serviceId: "everything", toolId, parameters });

  beforeAll(async () => {
    ({ adapter: mcp, logger } = await adapter());
    const started = await transports[transport]();
    server = started.server;
    port = "port" in started ? started.port : undefined;
    definition = await mcp.generateDefinition(started.definition);
    await mcp.hydrateService(stateOf("everything", definition));
  });

  afterAll(async () => {
    await mcp?.teardown();
    await stopServer(server);
  });

  it("installs with the server's name, version, instructions and tools", () => {
    expect(definition.name).toBe("Everything Reference Server");
    expect(definition.description).toContain("Everything Reference Server 2.0.0");
    expect(definition.description).toContain("Server Instructions");
    expect(definition.adapterDomain).toMatchObject({ server: { name: "mcp-servers/everything", version: "2.0.0" } });
    const ids = definition.tools.map((tool) => tool.id);
    expect(ids).toEqual(expect.arrayContaining(["echo", "getSum", "getStructuredContent", "getTinyImage", "getEnv"]));
    const echo = definition.tools.find((tool) => tool.id === "echo")!;
    expect(echo).toMatchObject({
      name: "Echo Tool",
      description: "Echoes back the input string",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    });
  });

  it("calls a tool and returns its text and content", async () => {
    expect(await invoke("echo", { message: "hello" })).toEqual({
      text: "Echo: hello",
      content: [{ type: "text", text: "Echo: hello" }],
    });
    expect(await invoke("getSum", { a: 2, b: 40 })).toMatchObject({ text: "The sum of 2 and 40 is 42." });
  });

  it("returns structuredContent for a tool with an output schema", async () => {
    const tool = definition.tools.find((candidate) => candidate.id === "getStructuredContent")!;
    expect(tool.outputSchema).toMatchObject({ properties: { temperature: { type: "number" } } });
    expect(await invoke("getStructuredContent", { location: "Chicago" })).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
  });

  it("passes images and embedded resources through as content blocks", async () => {
    const image = (await invoke("getTinyImage")) as { content: { type: string; mimeType?: string; data?: string }[] };
    expect(image.content.find((block) => block.type === "image")).toMatchObject({
      mimeType: "image/png",
      data: expect.stringMatching(/^[A-Za-z0-9+/=]+$/),
    });
    const reference = (await invoke("getResourceReference", { resourceId: 2 })) as { content: { type: string }[] };
    expect(reference.content.map((block) => block.type)).toEqual(["text", "resource", "text"]);
  });

  it("throws an AdapterError with the tool's text when it fails", async () => {
    const error = await invoke("getResourceReference", { resourceId: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as Error).message).toContain("Invalid resourceId: 0. Must be a finite positive integer.");
  });

  it("serves concurrent calls over the one session", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => invoke("echo", { message: `call ${index}` })),
    );
    expect(results.map((result) => (result as { text: string }).text)).toEqual(
      Array.from({ length: 10 }, (_, index) => `Echo: call ${index}`),
    );
    expect(logger.count((entry) => entry.message === "MCP session open")).toBe(1);
  });

  it.runIf(transport === "http")("opens a new session when the server restarts and forgets the old one", async () => {
    await stopServer(server);
    server = await everythingOverHttp("streamableHttp", port!);
    expect(await invoke("echo", { message: "again" })).toMatchObject({ text: "Echo: again" });
    expect(logger.count((entry) => entry.message === "MCP session open")).toBe(2);
  });
});

describe("server-everything over legacy HTTP+SSE", () => {
  let server: ChildProcess | undefined;
  let mcp: AdapterModule;

  afterAll(async () => {
    await mcp?.teardown();
    await stopServer(server);
  });

  it("falls back from Streamable HTTP, remembers it, and calls tools", async () => {
    const port = await freePort();
    server = await everythingOverHttp("sse", port);
    ({ adapter: mcp } = await adapter());
    const definition = await mcp.generateDefinition(
      JSON.stringify({ transport: "http", url: `http://127.0.0.1:${port}/sse` }),
    );
    expect(definition.adapterDomain).toMatchObject({ http: "sse" });
    await mcp.hydrateService(stateOf("legacy", definition));
    expect(await mcp.invoke({ serviceId: "legacy", toolId: "echo", parameters: { message: "sse" } })).toMatchObject({
      text: "Echo: sse",
    });
  });
});
