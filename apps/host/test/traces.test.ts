import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./support/otlp-receiver.js";

/**
 * Traces end to end: the built host exporting OTLP/HTTP (protobuf) to a
 * receiver in the test (support/otlp-receiver.ts), the typescript-ivm
 * sandbox, the openapi adapter and a real upstream that records the
 * `traceparent` of every request it gets. A process makes two tool calls,
 * one of which waits for an operator's approval; the span tree, the ids in
 * the log and what the upstream saw must all agree. A host without any
 * `OTEL_*` variable must load no OpenTelemetry module at all.
 */

interface UpstreamRequest {
  method: string;
  path: string;
  traceparent: string | undefined;
}

/** A small OpenAPI upstream: `GET /items` (read) and `POST /orders` (the one a policy makes wait for approval). */
async function startUpstream(): Promise<{ url: string; requests: UpstreamRequest[]; close(): Promise<void> }> {
  const requests: UpstreamRequest[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const traceparent = req.headers.traceparent as string | undefined;
      requests.push({ method: req.method ?? "", path, traceparent });
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && path === "/items") res.end(JSON.stringify([{ id: "a" }, { id: "b" }]));
      else if (req.method === "POST" && path === "/orders") res.writeHead(201).end(JSON.stringify({ id: "o-1" }));
      else res.writeHead(404).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function upstreamDocument(url: string): string {
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Store", version: "1" },
    servers: [{ url }],
    paths: {
      "/items": {
        get: {
          operationId: "listItems",
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array" } } } } },
        },
      },
      "/orders": {
        post: {
          operationId: "createOrder",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object", properties: { item: { type: "string" } } } } },
          },
          responses: { "201": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  });
}

/**
 * Node's module hooks, given to each host: every module it resolves from a `@opentelemetry/*` package (not merely a
 * path through pnpm's store that names one, as drizzle-orm's does) is printed as a JSON line (`{"msg":"module resolved"}`) the test reads from the host's output.
 */
const RESOLVE_PROBE = `import { register } from "node:module";
register("data:text/javascript,export async function resolve(s,c,n){const r=await n(s,c);if(r.url.includes('/node_modules/@opentelemetry/'))process.stderr.write(JSON.stringify({msg:'module resolved',url:r.url})+'\\\\n');return r}");`;
const PROBE_ARGS = ["--no-node-snapshot", "--import", `data:text/javascript,${encodeURIComponent(RESOLVE_PROBE)}`];

const hexId = (bytes: number) => randomBytes(bytes).toString("hex");

let receiver: OtlpReceiver;
let upstream: Awaited<ReturnType<typeof startUpstream>>;
let traced: TestHost;

async function install(host: TestHost): Promise<void> {
  const installed = await host.api("POST", "/services", {
    id: "store",
    adapter: "openapi",
    definition: upstreamDocument(upstream.url),
  });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("POST", "/services/store/enabled", { enabled: true })).status).toBe(200);
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startUpstream();
  traced = await startHost({
    nodeArgs: PROBE_ARGS,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "cyrnel-traces-test",
      // Spans go out every 50 ms rather than every 5 s: the test waits for them.
      OTEL_BSP_SCHEDULE_DELAY: "50",
    },
  });
  await install(traced);
});
afterAll(async () => {
  await traced?.stop();
  await upstream?.close();
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

const childrenOf = (parent: ReceivedSpan) =>
  receiver.spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);

describe("traces", () => {
  it("a process's run, its two tool calls, the approval wait and each upstream request, under the caller's trace", async () => {
    expect(
      (await traced.api("PUT", "/services/store/policy", { rules: [{ tools: "createOrder", action: "ask" }] })).status,
    ).toBe(200);
    const traceId = hexId(16);
    const callerSpanId = hexId(8);
    const created = await traced.api(
      "POST",
      "/processes",
      {
        typecheck: false,
        code: `const items = await cyrnel.services.store.tools.listItems.invoke({});
const order = await cyrnel.services.store.tools.createOrder.invoke({ body: { item: items[0].id } });
cyrnel.output({ items: items.length, order: order.id });`,
      },
      { traceparent: `00-${traceId}-${callerSpanId}-01`, tracestate: "vendor=abc" },
    );
    expect(created.status, created.text).toBe(201);
    const processId = created.body.id as number;
    let approvalId: number | undefined;
    await expect
      .poll(async () => {
        approvalId = (await traced.api("GET", `/approvals?state=pending&processId=${processId}`)).body.items[0]?.id;
        return approvalId !== undefined;
      })
      .toBe(true);
    expect((await traced.api("POST", `/approvals/${approvalId}/approve`, { reason: "fine" })).status).toBe(200);
    await expect.poll(async () => (await traced.api("GET", `/processes/${processId}`)).body.state).toBe("idle");
    const done = (await traced.api("GET", `/processes/${processId}`)).body;
    expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success" });

    // The request that created the process continues the caller's trace; the run is its child, on whichever host
    // runs it (through the queue on PostgreSQL, the context stored with the run).
    const request = await span((s) => s.name === "POST /processes" && s.traceId === traceId);
    expect(request).toMatchObject({ kind: "server", parentSpanId: callerSpanId, service: "cyrnel-traces-test" });
    expect(request.attributes).toMatchObject({ "http.route": "/processes", "http.response.status_code": 201 });
    const run = await span((s) => s.name === "cyrnel.run" && s.attributes["cyrnel.process.id"] === processId);
    expect(run).toMatchObject({ traceId, parentSpanId: request.spanId, status: "unset" });
    expect(run.attributes).toMatchObject({
      "cyrnel.run.id": expect.any(Number),
      "cyrnel.environment": "typescript-ivm",
      "cyrnel.exit_state": "success",
      "cyrnel.caller.key_id": "(bootstrap)",
    });
    // Never the code, its parameters or its output.
    expect(JSON.stringify(run.attributes)).not.toContain("items");

    await span((s) => s.name === "POST /orders" && s.traceId === traceId);
    const calls = childrenOf(run).sort((a, b) => Number(a.startNs - b.startNs));
    expect(calls.map((call) => call.name)).toEqual(["execute_tool store.listItems", "execute_tool store.createOrder"]);
    const [list, order] = calls as [ReceivedSpan, ReceivedSpan];
    expect(list.attributes).toMatchObject({
      "cyrnel.service": "store",
      "cyrnel.tool": "listItems",
      "cyrnel.outcome": "ok",
      "cyrnel.policy": "allow",
      "cyrnel.process.id": processId,
    });
    expect(order.attributes).toMatchObject({
      "cyrnel.service": "store",
      "cyrnel.tool": "createOrder",
      "cyrnel.outcome": "ok",
      "cyrnel.policy": "ask",
    });

    // The approval wait is a child of its call, before (and apart from) the upstream request.
    const [wait, ...noOtherWait] = childrenOf(order).filter((s) => s.name === "approval.wait");
    expect(noOtherWait).toEqual([]);
    expect(wait!.attributes).toMatchObject({ "cyrnel.approval.decision": "approved" });
    expect(childrenOf(list).filter((s) => s.name === "approval.wait")).toEqual([]);

    // Each adapter request is a client span, a child of its call; the upstream got its traceparent.
    for (const [call, method, route, path] of [
      [list, "GET", "/items", "/items"],
      [order, "POST", "/orders", "/orders"],
    ] as const) {
      const outbound = childrenOf(call).filter((s) => s.kind === "client");
      expect(outbound.map((s) => s.name)).toEqual([`${method} ${route}`]);
      expect(outbound[0]!.attributes).toMatchObject({
        "http.request.method": method,
        "http.response.status_code": method === "GET" ? 200 : 201,
        "server.address": "127.0.0.1",
        "url.template": route,
      });
      const seen = upstream.requests.filter((r) => r.path === path).at(-1);
      expect(seen?.traceparent).toBe(`00-${traceId}-${outbound[0]!.spanId}-01`);
    }
    expect(wait!.endNs).toBeLessThanOrEqual(childrenOf(order).find((s) => s.kind === "client")!.startNs);

    // Log lines written inside the trace carry its ids (the request's line, in its span).
    const logged = traced.logs().filter((line) => line.traceId === traceId);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.some((line) => line.msg === "request" && line.spanId === request.spanId)).toBe(true);
  });

  it("a direct invoke continues the caller's trace: request → tool call → upstream request", async () => {
    const traceId = hexId(16);
    const callerSpanId = hexId(8);
    const invoked = await traced.api(
      "POST",
      "/tools/store/listItems/invoke",
      { parameters: {} },
      {
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
    );
    expect(invoked.status, invoked.text).toBe(200);
    const request = await span((s) => s.traceId === traceId && s.kind === "server");
    expect(request).toMatchObject({ name: "POST /tools/:serviceId/:toolId/invoke", parentSpanId: callerSpanId });
    const call = await span((s) => s.traceId === traceId && s.name === "execute_tool store.listItems");
    expect(call.parentSpanId).toBe(request.spanId);
    const outbound = await span((s) => s.traceId === traceId && s.kind === "client");
    expect(outbound.parentSpanId).toBe(call.spanId);
    expect(upstream.requests.at(-1)?.traceparent).toBe(`00-${traceId}-${outbound.spanId}-01`);
  });

  it("loads OpenTelemetry only when an OTEL_* variable asks for traces", async () => {
    // The probe sees the traced host's imports (so it would see the other's).
    expect(traced.logs().some((line) => line.msg === "module resolved")).toBe(true);
    const plain = await startHost({ nodeArgs: PROBE_ARGS });
    try {
      await install(plain);
      const traceId = hexId(16);
      const exported = receiver.requests.length;
      const run = await plain.api(
        "POST",
        "/processes",
        { block: true, typecheck: false, code: "await cyrnel.services.store.tools.listItems.invoke({});" },
        { traceparent: `00-${traceId}-${hexId(8)}-01` },
      );
      expect(run.body.exitState, run.text).toBe("success");
      expect(plain.logs().filter((line) => line.msg === "module resolved")).toEqual([]);
      expect(plain.logs().some((line) => String(line.msg).startsWith("traces are off"))).toBe(true);
      expect(plain.logs().some((line) => "traceId" in line)).toBe(false);
      // Nothing sent upstream but what the call itself carries: no traceparent.
      expect(upstream.requests.at(-1)?.traceparent).toBeUndefined();
      expect(receiver.spans.some((s) => s.traceId === traceId)).toBe(false);
      expect(receiver.requests.length).toBeGreaterThanOrEqual(exported);
    } finally {
      await plain.stop();
    }
  });
});
