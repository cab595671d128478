import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./support/otlp-receiver.js";

/**
 * The `traceparent` of the other two bundled adapters and of `/mcp`, end to
 * end (traces.test.ts proves the OpenAPI adapter's): the built host exports
 * OTLP/HTTP to a receiver in the test; a real @grpc/grpc-js server records
 * the `traceparent` metadata of each call, and a real MCP server over
 * Streamable HTTP (the MCP SDK's server transport on node:http) the header
 * of each `tools/call` request. What they saw must name the run's trace and
 * the adapter's own client span. An MCP client calling the host's `/mcp`
 * with a `traceparent` gets the run `run_code` starts in its trace.
 */

const API_KEY = "traces-adapters-admin-key";
const PROTO = join(import.meta.dirname, "..", "..", "..", "packages", "grpc", "test", "fixtures", "route_guide.proto");
const hexId = (bytes: number) => randomBytes(bytes).toString("hex");

/** route_guide's `GetFeature`, answering any point, and the `traceparent` metadata of each call. */
async function startGrpcServer(): Promise<{ address: string; traceparents: (string | undefined)[]; stop(): void }> {
  const definition = protoLoader.loadSync(PROTO, { keepCase: true, defaults: true });
  const routeguide = grpc.loadPackageDefinition(definition).routeguide as unknown as {
    RouteGuide: { service: grpc.ServiceDefinition };
  };
  const traceparents: (string | undefined)[] = [];
  const server = new grpc.Server();
  server.addService(routeguide.RouteGuide.service, {
    GetFeature: (call: grpc.ServerUnaryCall<unknown, unknown>, done: grpc.sendUnaryData<unknown>) => {
      traceparents.push(call.metadata.get("traceparent")[0]?.toString());
      done(null, { name: "somewhere", location: call.request });
    },
    ListFeatures: (call: grpc.ServerWritableStream<unknown, unknown>) => call.end(),
    RecordRoute: (_call: unknown, done: grpc.sendUnaryData<unknown>) => done(null, {}),
    RouteChat: (call: grpc.ServerDuplexStream<unknown, unknown>) => call.end(),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, traceparents, stop: () => server.forceShutdown() };
}

/** An MCP server over Streamable HTTP (stateless) with one tool, `shout`, and the `traceparent` of each `tools/call`. */
async function startMcpServer(): Promise<{
  url: string;
  traceparents: (string | undefined)[];
  close(): Promise<void>;
}> {
  const traceparents: (string | undefined)[] = [];
  const readJson = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = req.method === "POST" ? await readJson(req) : undefined;
      if (body?.method === "tools/call") traceparents.push(req.headers.traceparent as string | undefined);
      const mcp = new McpServer({ name: "shouter", version: "1.0.0" });
      mcp.registerTool(
        "shout",
        { description: "Upper-cases a word", inputSchema: {} },
        async (): Promise<CallToolResult> => ({ content: [{ type: "text", text: "HEY" }] }),
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((error) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    traceparents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let receiver: OtlpReceiver;
let grpcServer: Awaited<ReturnType<typeof startGrpcServer>>;
let mcpServer: Awaited<ReturnType<typeof startMcpServer>>;
let host: TestHost;

async function install(id: string, adapter: string, definition: unknown): Promise<void> {
  const installed = await host.api("POST", "/services", { id, adapter, definition: JSON.stringify(definition) });
  expect(installed.status, installed.text).toBe(201);
  const enabled = await host.api("POST", `/services/${id}/enabled`, { enabled: true });
  expect(enabled.status, enabled.text).toBe(200);
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  grpcServer = await startGrpcServer();
  mcpServer = await startMcpServer();
  host = await startHost({
    env: {
      CYRNEL_API_KEY: API_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "cyrnel-traces-adapters-test",
      // Spans go out every 50 ms rather than every 5 s: the test waits for them.
      OTEL_BSP_SCHEDULE_DELAY: "50",
    },
  });
  await install("routes", "grpc", {
    protos: { "route_guide.proto": readFileSync(PROTO, "utf8") },
    target: grpcServer.address,
  });
  await install("shouter", "mcp", { transport: "http", url: mcpServer.url });
});
afterAll(async () => {
  await host?.stop();
  grpcServer?.stop();
  await mcpServer?.close();
  await receiver?.close();
});

/** Waits until the receiver holds a span matching `predicate`; returns it. */
async function span(predicate: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
  let found: ReceivedSpan | undefined;
  await expect
    .poll(() => {
      found = receiver.spans.find(predicate);
      return found !== undefined;
    })
    .toBe(true);
  return found!;
}

/**
 * Runs `code` as a process under a caller's trace and answers the span of its one tool call's outbound request,
 * checked to be a client span, child of the call, child of the run, in the caller's trace.
 */
async function outboundOfRun(code: string, call: string): Promise<ReceivedSpan> {
  const traceId = hexId(16);
  const created = await host.api(
    "POST",
    "/processes",
    { code, block: true, typecheck: false },
    { traceparent: `00-${traceId}-${hexId(8)}-01` },
  );
  expect(created.status, created.text).toBe(201);
  expect(created.body.exitState, created.text).toBe("success");
  const processId = created.body.id as number;
  const run = await span((s) => s.name === "cyrnel.run" && s.attributes["cyrnel.process.id"] === processId);
  expect(run.traceId).toBe(traceId);
  const toolCall = await span((s) => s.traceId === traceId && s.name === `execute_tool ${call}`);
  expect(toolCall.parentSpanId).toBe(run.spanId);
  const outbound = await span((s) => s.traceId === traceId && s.kind === "client");
  expect(outbound.parentSpanId).toBe(toolCall.spanId);
  return outbound;
}

describe("traceparent to the gRPC and MCP adapters' upstreams", () => {
  it("a gRPC server gets the run's trace and the adapter's call span as its parent, in metadata", async () => {
    const outbound = await outboundOfRun(
      "await cyrnel.services.routes.tools.GetFeature.invoke({ latitude: 5, longitude: 6 });",
      "routes.GetFeature",
    );
    expect(outbound.attributes).toMatchObject({ "rpc.system": "grpc" });
    expect(grpcServer.traceparents).toHaveLength(1);
    expect(grpcServer.traceparents[0]).toBe(`00-${outbound.traceId}-${outbound.spanId}-01`);
  });

  it("an MCP server over Streamable HTTP gets the run's trace and the adapter's request span as its parent", async () => {
    const outbound = await outboundOfRun("await cyrnel.services.shouter.tools.shout.invoke({});", "shouter.shout");
    expect(outbound).toMatchObject({ name: "tools/call shout", attributes: { "mcp.method.name": "tools/call" } });
    expect(mcpServer.traceparents).toHaveLength(1);
    expect(mcpServer.traceparents[0]).toBe(`00-${outbound.traceId}-${outbound.spanId}-01`);
  });
});

describe("traceparent on /mcp", () => {
  it("the run that run_code starts is in the MCP client's trace, a descendant of the caller's span", async () => {
    const traceId = hexId(16);
    const callerSpanId = hexId(8);
    const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
        requestInit: {
          headers: { authorization: `Bearer ${API_KEY}`, traceparent: `00-${traceId}-${callerSpanId}-01` },
        },
      }),
    );
    try {
      const result = (await client.callTool({
        name: "run_code",
        arguments: { code: "await cyrnel.services.shouter.tools.shout.invoke({}); cyrnel.output({ done: true });" },
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
    } finally {
      await client.close();
    }
    // The caller's span → the host's `POST /mcp` (of the tools/call: the client's initialize is another) → the
    // `POST /processes` that run_code makes through the host's API client → the run.
    const run = await span((s) => s.name === "cyrnel.run" && s.traceId === traceId);
    const created = await span((s) => s.traceId === traceId && s.spanId === run.parentSpanId);
    expect(created).toMatchObject({ kind: "server", name: "POST /processes" });
    const mcpRequest = await span((s) => s.traceId === traceId && s.spanId === created.parentSpanId);
    expect(mcpRequest).toMatchObject({ kind: "server", name: "POST /mcp", parentSpanId: callerSpanId });
    // And the MCP server the run called got the same trace.
    expect(mcpServer.traceparents.at(-1)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });
});
