import type { AdapterModule, ServiceDefinition } from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { protosDefinition } from "./helpers/protos.js";
import { loadFixture, type RunningServer, serviceOf, startServer } from "./helpers/server.js";

/**
 * gRPC's own examples (helloworld, route_guide) and grpc.health.v1, served
 * by real @grpc/grpc-js servers written as their authors write them
 * (proto-loader, typed handlers, server reflection), installed from their
 * protos and by reflection, and called through the adapter.
 */

const FEATURES = [
  { name: "Patriots Path, Mendham, NJ 07945, USA", location: { latitude: 407838351, longitude: -746143763 } },
  { name: "101 New Jersey 10, Whippany, NJ 07981, USA", location: { latitude: 408122808, longitude: -743999179 } },
  { name: "", location: { latitude: 413628156, longitude: -749015468 } },
];

const examples = loadFixture(["helloworld.proto", "route_guide.proto", "grpc/health/v1/health.proto"]);
let server: RunningServer;
const seen: { metadata?: grpc.Metadata; cancelled: boolean } = { cancelled: false };
let watchCancelled: () => void;
const watchEnded = new Promise<void>((resolve) => {
  watchCancelled = resolve;
});

beforeAll(async () => {
  server = await startServer((s) => {
    s.addService(serviceOf(examples, "helloworld.Greeter"), {
      SayHello: (call: grpc.ServerUnaryCall<{ name: string }, unknown>, done: grpc.sendUnaryData<unknown>) => {
        seen.metadata = call.metadata;
        const headers = new grpc.Metadata();
        headers.set("x-request-id", "r-1");
        headers.set("x-trace-bin", Buffer.from([1, 2, 3]));
        call.sendMetadata(headers);
        const trailers = new grpc.Metadata();
        trailers.set("x-cost", "3");
        done(null, { message: `Hello ${call.request.name}` }, trailers);
      },
      SayHelloStreamReply: (call: grpc.ServerWritableStream<{ name: string }, unknown>) => {
        for (const greeting of ["Hello", "Hi", "Howdy"]) call.write({ message: `${greeting} ${call.request.name}` });
        call.end();
      },
      SayHelloBidiStream: (call: grpc.ServerDuplexStream<unknown, unknown>) => call.end(),
    });
    s.addService(serviceOf(examples, "routeguide.RouteGuide"), {
      GetFeature: (
        call: grpc.ServerUnaryCall<{ latitude: number; longitude: number }, unknown>,
        done: grpc.sendUnaryData<unknown>,
      ) => {
        const { latitude, longitude } = call.request;
        if (latitude === 0 && longitude === 0) {
          done({ code: grpc.status.INVALID_ARGUMENT, details: "the point (0, 0) is in the ocean" });
          return;
        }
        const found = FEATURES.find((f) => f.location.latitude === latitude && f.location.longitude === longitude);
        done(null, found ?? { name: "", location: call.request });
      },
      ListFeatures: (
        call: grpc.ServerWritableStream<{ lo: { latitude: number }; hi: { latitude: number } }, unknown>,
      ) => {
        const [lo, hi] = [call.request.lo.latitude, call.request.hi.latitude];
        for (const f of FEATURES) if (f.location.latitude >= lo && f.location.latitude <= hi) call.write(f);
        call.end();
      },
      RecordRoute: (_call: unknown, done: grpc.sendUnaryData<unknown>) => done(null, {}),
      RouteChat: (call: grpc.ServerDuplexStream<unknown, unknown>) => call.end(),
    });
    s.addService(serviceOf(examples, "grpc.health.v1.Health"), {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, done: grpc.sendUnaryData<unknown>) => {
        if (call.request.service === "" || call.request.service === "helloworld.Greeter")
          done(null, { status: "SERVING" });
        else done({ code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}` });
      },
      // Sends the status, then keeps the stream open, as real health servers do.
      Watch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        call.write({ status: "SERVING" });
        call.on("cancelled", () => watchCancelled());
      },
    });
  }, examples);
});
afterAll(() => server?.stop());

async function install(
  adapter: AdapterModule,
  definition: ServiceDefinition,
  id: string,
  config = {},
  secrets = {},
  secretHeaders?: Record<string, string>,
) {
  await adapter.hydrateService({
    id,
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((tool) => [tool.id, { adapterDomain: tool.adapterDomain }])),
    config: { target: server.address, timeoutMs: 30_000, ...config },
    secrets,
    ...(secretHeaders === undefined ? {} : { secretHeaders, secretQuery: { ignored: "by gRPC" } }),
  });
}

describe("helloworld", () => {
  it("installs from protos: unary and server-streaming methods are tools, bidi is listed as not callable", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["helloworld.proto"]));
    expect(definition.name).toBe("helloworld.Greeter");
    expect(definition.tools.map((tool) => tool.id)).toEqual(["SayHello", "SayHelloStreamReply"]);
    expect(definition.description).toContain("`helloworld.Greeter/SayHelloBidiStream` (bidirectional streaming)");
    const sayHello = definition.tools[0]!;
    expect(sayHello.description).toBe("Sends a greeting\n\ngRPC method `helloworld.Greeter/SayHello`.");
    expect(sayHello.inputSchema).toMatchObject({
      "x-cyrnel-name": "HelloRequest",
      type: "object",
      properties: { name: { type: "string" } },
      additionalProperties: false,
    });
  });

  it("calls a unary and a server-streaming method, with the bearer secret and metadata sent as call metadata", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["helloworld.proto"]));
    await install(
      adapter,
      definition,
      "hello",
      { metadata: { "x-client": "cyrnel" } },
      {
        bearer: "s3cret",
        metadata: { "x-api-key": "k3y" },
      },
    );
    expect(await adapter.invoke({ serviceId: "hello", toolId: "SayHello", parameters: { name: "Ada" } })).toEqual({
      message: "Hello Ada",
    });
    expect(seen.metadata?.get("authorization")).toEqual(["Bearer s3cret"]);
    expect(seen.metadata?.get("x-api-key")).toEqual(["k3y"]);
    expect(seen.metadata?.get("x-client")).toEqual(["cyrnel"]);
    expect(
      await adapter.invoke({ serviceId: "hello", toolId: "SayHelloStreamReply", parameters: { name: "Ada" } }),
    ).toEqual([{ message: "Hello Ada" }, { message: "Hi Ada" }, { message: "Howdy Ada" }]);
    await adapter.teardown();
  });

  it("tells a caller that asks for the whole response the status and the response metadata (headers, trailers)", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["helloworld.proto"]));
    await install(adapter, definition, "hello", {}, {});
    const told: unknown[] = [];
    const body = await adapter.invoke({
      serviceId: "hello",
      toolId: "SayHello",
      parameters: { name: "Ada" },
      respond: (meta) => told.push(meta),
    });
    expect(body).toEqual({ message: "Hello Ada" });
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      status: 0,
      headers: { "x-request-id": "r-1", "x-trace-bin": Buffer.from([1, 2, 3]).toString("base64"), "x-cost": "3" },
    });
    // Nobody asked: nothing told, the same body.
    expect(await adapter.invoke({ serviceId: "hello", toolId: "SayHello", parameters: { name: "Ada" } })).toEqual(body);
    await adapter.teardown();
  });
});

describe("secret headers and a connected account's token", () => {
  const sayHello = (adapter: AdapterModule, accessToken?: string) =>
    adapter.invoke({
      serviceId: "hello",
      toolId: "SayHello",
      parameters: { name: "Ada" },
      ...(accessToken === undefined ? {} : { accessToken }),
    });
  const seenEntries = () =>
    Object.fromEntries(
      ["authorization", "x-client", "x-api-key", "x-trace", "x-tag-bin", "ignored"].map((key) => [
        key,
        seen.metadata?.get(key).map((value) => (Buffer.isBuffer(value) ? `bytes:${value.toString("utf8")}` : value)),
      ]),
    );

  it("go as call metadata with lower-case keys, over the service's own metadata and bearer; query parameters do not apply", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["helloworld.proto"]));
    await install(
      adapter,
      definition,
      "hello",
      { metadata: { "x-client": "config" } },
      { bearer: "bearer-secret", metadata: { "x-api-key": "metadata-secret" } },
      {
        "X-Client": "secret-client",
        "X-Api-Key": "secret-key",
        "X-Trace": "t-1",
        "X-Tag-Bin": Buffer.from("tag").toString("base64"),
      },
    );
    await sayHello(adapter);
    expect(seenEntries()).toEqual({
      authorization: ["Bearer bearer-secret"],
      "x-client": ["secret-client"],
      "x-api-key": ["secret-key"],
      "x-trace": ["t-1"],
      "x-tag-bin": ["bytes:tag"],
      ignored: [],
    });
    // A connected account's token replaces the bearer secret.
    await sayHello(adapter, "account-token");
    expect(seenEntries().authorization).toEqual(["Bearer account-token"]);
    await adapter.teardown();
  });

  it("include an authorization header that wins over the account's token", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["helloworld.proto"]));
    await install(adapter, definition, "hello", {}, {}, { Authorization: "token operator-set" });
    await sayHello(adapter, "account-token");
    expect(seen.metadata?.get("authorization")).toEqual(["token operator-set"]);
    await adapter.teardown();
  });

  it("that gRPC cannot carry fail the enable, naming the header and never the value", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["helloworld.proto"]));
    for (const [headers, says] of [
      [{ "grpc-timeout": "1S" }, `"grpc-timeout" is set by gRPC itself`],
      [{ "Content-Type": "text/plain" }, `"content-type" is set by gRPC itself`],
      [{ "X!Key": "v" }, `"x!key" is not a valid metadata key`],
      [{ "X-Key": "hidden-välue" }, `the value of "x-key" is not printable ASCII`],
      [{ "X-Key": "a", "x-key": "b" }, `"x-key" is set twice`],
    ] as const) {
      const error = await install(adapter, definition, "bad", {}, {}, headers).then(
        () => new Error("expected a rejection"),
        (failure: Error) => failure,
      );
      expect(error.message).toContain(says);
      expect(error.message).not.toContain("hidden");
    }
    await adapter.teardown();
  });
});

describe("route_guide", () => {
  it("maps comments, nested messages as named types, and calls GetFeature and ListFeatures", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["route_guide.proto"], server.address));
    expect(definition.tools.map((tool) => tool.id)).toEqual(["GetFeature", "ListFeatures"]);
    expect(definition.description).toContain("`routeguide.RouteGuide/RecordRoute` (client streaming)");
    expect(definition.description).toContain("`routeguide.RouteGuide/RouteChat` (bidirectional streaming)");
    expect(definition.configSchema).toMatchObject({ properties: { target: { default: server.address } } });
    const [getFeature, listFeatures] = definition.tools;
    expect(getFeature!.description).toContain("Obtains the feature at a given position.");
    expect(getFeature!.outputSchema).toMatchObject({
      "x-cyrnel-name": "Feature",
      properties: {
        name: { type: "string", description: "The name of the feature." },
        location: { $ref: "#/$defs/Point", description: "The point where the feature is detected." },
      },
      $defs: { Point: { properties: { latitude: { type: "integer" } } } },
    });
    expect(listFeatures!.outputSchema).toMatchObject({ type: "array", items: { "x-cyrnel-name": "Feature" } });

    await install(adapter, definition, "routes");
    expect(
      await adapter.invoke({
        serviceId: "routes",
        toolId: "GetFeature",
        parameters: { latitude: 407838351, longitude: -746143763 },
      }),
    ).toEqual(FEATURES[0]);
    expect(
      await adapter.invoke({
        serviceId: "routes",
        toolId: "ListFeatures",
        parameters: {
          lo: { latitude: 400000000, longitude: -750000000 },
          hi: { latitude: 410000000, longitude: -730000000 },
        },
      }),
    ).toEqual([FEATURES[0], FEATURES[1]]);
    await adapter.teardown();
  });

  it("turns a non-OK status into an AdapterError naming the code, with the gRPC code as status", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["route_guide.proto"]));
    await install(adapter, definition, "routes");
    const error = await adapter
      .invoke({ serviceId: "routes", toolId: "GetFeature", parameters: { latitude: 0, longitude: 0 } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "AdapterError",
      message: "gRPC INVALID_ARGUMENT (3) from routeguide.RouteGuide/GetFeature: the point (0, 0) is in the ocean",
      status: 3,
      body: { code: 3, codeName: "INVALID_ARGUMENT", message: "the point (0, 0) is in the ocean" },
    });
    await adapter.teardown();
  });

  it("reads the same tools through server reflection", async () => {
    const adapter = instantiate();
    const fromProtos = await adapter.generateDefinition(protosDefinition(["route_guide.proto"]));
    const reflected = await adapter.generateDefinition(JSON.stringify({ reflection: server.address }));
    expect(reflected.name).toBe("grpc.health.v1.Health, helloworld.Greeter, routeguide.RouteGuide");
    const routeTools = reflected.tools.filter((tool) => tool.name.startsWith("routeguide."));
    expect(routeTools.map((tool) => tool.id)).toEqual(["GetFeature", "ListFeatures"]);
    // Reflection carries no comments: the schemas are the same but for descriptions.
    const strip = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, item) => (key === "description" ? undefined : item)));
    expect(strip(routeTools.map((tool) => [tool.inputSchema, tool.outputSchema]))).toEqual(
      strip(fromProtos.tools.map((tool) => [tool.inputSchema, tool.outputSchema])),
    );
    expect(reflected.configSchema).toMatchObject({ properties: { target: { default: server.address } } });
    await install(adapter, reflected, "reflected");
    expect(
      await adapter.invoke({
        serviceId: "reflected",
        toolId: "GetFeature",
        parameters: { latitude: 408122808, longitude: -743999179 },
      }),
    ).toEqual(FEATURES[1]);
    expect(await adapter.invoke({ serviceId: "reflected", toolId: "Check", parameters: {} })).toEqual({
      status: "SERVING",
    });
    await adapter.teardown();
  });

  it("refuses a reflection address that does not answer, naming it", async () => {
    const adapter = instantiate();
    await expect(adapter.generateDefinition(JSON.stringify({ reflection: "127.0.0.1:1" }))).rejects.toThrow(
      /^gRPC reflection at 127\.0\.0\.1:1 failed: UNAVAILABLE/,
    );
  });
});

describe("grpc.health.v1", () => {
  it("checks health, and a watch that never ends stops at the service's deadline", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["grpc/health/v1/health.proto"]));
    expect(definition.tools.map((tool) => tool.id)).toEqual(["Check", "Watch"]);
    await install(adapter, definition, "health", { timeoutMs: 300 });
    expect(await adapter.invoke({ serviceId: "health", toolId: "Check", parameters: {} })).toEqual({
      status: "SERVING",
    });
    await expect(
      adapter.invoke({ serviceId: "health", toolId: "Check", parameters: { service: "nope" } }),
    ).rejects.toMatchObject({
      status: 5,
      message: "gRPC NOT_FOUND (5) from grpc.health.v1.Health/Check: unknown service nope",
    });
    await expect(adapter.invoke({ serviceId: "health", toolId: "Watch", parameters: {} })).rejects.toMatchObject({
      status: 4,
      timedOut: true,
      message: expect.stringMatching(/^gRPC DEADLINE_EXCEEDED \(4\) from grpc\.health\.v1\.Health\/Watch: /),
    });
    await watchEnded;
    await adapter.teardown();
  });

  it("cancels the call on the server when the host aborts the signal", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(protosDefinition(["grpc/health/v1/health.proto"]));
    await install(adapter, definition, "health");
    const controller = new AbortController();
    const call = adapter.invoke({ serviceId: "health", toolId: "Watch", parameters: {}, signal: controller.signal });
    controller.abort(new Error("the run ended"));
    await expect(call).rejects.toThrow("the call to grpc.health.v1.Health/Watch was canceled: the run ended");
    await adapter.teardown();
  });
});
