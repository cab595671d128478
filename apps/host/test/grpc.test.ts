import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { typeErrors } from "./support/typecheck.js";

/**
 * The bundled grpc adapter through the whole host: gRPC's route_guide
 * example served by a real @grpc/grpc-js server (with server reflection),
 * installed once from its proto and once by reflection with POST /services,
 * enabled, and called from process code (a unary and a server-streaming
 * method), directly (a failing status becomes 502 adapter_error naming the
 * gRPC code), and through the types the environment serves.
 */

/** gRPC's route_guide example, as the adapter's own tests have it. */
const PROTO = join(import.meta.dirname, "..", "..", "..", "packages", "grpc", "test", "fixtures", "route_guide.proto");
const FEATURES = [
  { name: "Patriots Path, Mendham, NJ 07945, USA", location: { latitude: 407838351, longitude: -746143763 } },
  { name: "101 New Jersey 10, Whippany, NJ 07981, USA", location: { latitude: 408122808, longitude: -743999179 } },
];

let host: TestHost;
let server: grpc.Server;
let address: string;

beforeAll(async () => {
  const definition = protoLoader.loadSync(PROTO, { keepCase: true, defaults: true });
  const routeguide = grpc.loadPackageDefinition(definition).routeguide as unknown as {
    RouteGuide: { service: grpc.ServiceDefinition };
  };
  server = new grpc.Server();
  type Point = { latitude: number; longitude: number };
  server.addService(routeguide.RouteGuide.service, {
    GetFeature: (call: grpc.ServerUnaryCall<Point, unknown>, done: grpc.sendUnaryData<unknown>) => {
      const { latitude, longitude } = call.request;
      if (latitude === 0 && longitude === 0) {
        done({ code: grpc.status.INVALID_ARGUMENT, details: "the point (0, 0) is in the ocean" });
        return;
      }
      // (1, 1) is never answered: the call's deadline ends it.
      if (latitude === 1 && longitude === 1) return;
      const found = FEATURES.find((f) => f.location.latitude === latitude && f.location.longitude === longitude);
      done(null, found ?? { name: "", location: call.request });
    },
    ListFeatures: (call: grpc.ServerWritableStream<{ lo: Point; hi: Point }, unknown>) => {
      for (const f of FEATURES) {
        if (f.location.latitude >= call.request.lo.latitude && f.location.latitude <= call.request.hi.latitude) {
          call.write(f);
        }
      }
      call.end();
    },
    RecordRoute: (_call: unknown, done: grpc.sendUnaryData<unknown>) => done(null, {}),
    RouteChat: (call: grpc.ServerDuplexStream<unknown, unknown>) => call.end(),
  });
  new ReflectionService(definition).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  address = `127.0.0.1:${port}`;
  host = await startHost();
});
afterAll(async () => {
  await host?.stop();
  server?.forceShutdown();
});

async function install(id: string, definition: unknown) {
  const installed = await host.api("POST", "/services", {
    id,
    adapter: "grpc",
    definition: JSON.stringify(definition),
  });
  expect(installed.status, installed.text).toBe(201);
  const enabled = await host.api("POST", `/services/${id}/enabled`, { enabled: true });
  expect(enabled.status, enabled.text).toBe(200);
  return installed.body;
}

describe("gRPC services through the host", () => {
  it("the grpc adapter is a built-in module, active", async () => {
    const response = await host.api("GET", "/modules/grpc");
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: "grpc", type: "adapter", builtin: true, enabled: true });
  });

  it("installs from a proto and by reflection", async () => {
    const fromProto = await install("routes", {
      protos: { "route_guide.proto": readFileSync(PROTO, "utf8") },
      target: address,
    });
    expect(fromProto).toMatchObject({ adapter: "grpc", name: "routeguide.RouteGuide", toolCount: 2 });
    expect(fromProto.description).toContain("`routeguide.RouteGuide/RouteChat` (bidirectional streaming)");
    const reflected = await install("reflected", { reflection: address });
    expect(reflected).toMatchObject({ adapter: "grpc", toolCount: 2 });
    const tools = await host.api("GET", "/tools?serviceId=reflected");
    expect(tools.body.items.map((t: { id: string }) => t.id).sort()).toEqual(["GetFeature", "ListFeatures"]);
  });

  it("refuses a broken proto with 400 naming file, line and problem", async () => {
    const response = await host.api("POST", "/services", {
      id: "broken",
      adapter: "grpc",
      definition: JSON.stringify({ protos: { "a.proto": 'syntax = "proto3";\nmessage A {\n  Nope b = 1;\n}\n' } }),
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('a.proto:3: unknown type "Nope" (used in A)');
  });

  it("a process calls a unary and a server-streaming method, on both services", async () => {
    const code = `
      const feature = await cyrnel.services.routes.tools.GetFeature.invoke({ latitude: 407838351, longitude: -746143763 });
      const listed = await cyrnel.services.reflected.tools.ListFeatures.invoke({
        lo: { latitude: 400000000, longitude: -750000000 },
        hi: { latitude: 420000000, longitude: -730000000 },
      });
      let failure = null;
      try {
        await cyrnel.services.routes.tools.GetFeature.invoke({ latitude: 0, longitude: 0 });
      } catch (error) {
        failure = { status: error.status, code: error.code, message: error.message, details: error.details };
      }
      cyrnel.output({ feature, names: listed.map((f) => f.name), failure });
    `;
    const response = await host.api("POST", "/processes", { code, block: true });
    expect(response.status, response.text).toBe(201);
    expect(response.body.exitState, response.body.error).toBe("success");
    expect(response.body.output).toMatchObject({
      feature: FEATURES[0],
      names: FEATURES.map((f) => f.name),
      failure: {
        status: 502,
        code: "adapter_error",
        message: expect.stringContaining("gRPC INVALID_ARGUMENT (3) from routeguide.RouteGuide/GetFeature"),
        details: { status: 3, body: { codeName: "INVALID_ARGUMENT" } },
      },
    });
  });

  it("a failing status is 502 adapter_error naming the gRPC code on direct invoke", async () => {
    const response = await host.api("POST", "/tools/routes/GetFeature/invoke", {
      parameters: { latitude: 0, longitude: 0 },
    });
    expect(response.status).toBe(502);
    expect(response.body.code).toBe("adapter_error");
    expect(response.body.error).toContain(
      "gRPC INVALID_ARGUMENT (3) from routeguide.RouteGuide/GetFeature: the point (0, 0) is in the ocean",
    );
    expect(response.body.details).toMatchObject({
      status: 3,
      body: { code: 3, message: "the point (0, 0) is in the ocean" },
    });
  });

  it("a call past the service's deadline (DEADLINE_EXCEEDED) is 504 invoke_timeout, as the host's own timeout", async () => {
    const configured = await host.api("PATCH", "/services/routes/config", { target: address, timeoutMs: 300 });
    expect(configured.status, configured.text).toBe(200);
    try {
      const response = await host.api("POST", "/tools/routes/GetFeature/invoke", {
        parameters: { latitude: 1, longitude: 1 },
      });
      expect(response.status, response.text).toBe(504);
      expect(response.body.code).toBe("invoke_timeout");
      expect(response.body.error).toContain("gRPC DEADLINE_EXCEEDED (4) from routeguide.RouteGuide/GetFeature");
    } finally {
      await host.api("PATCH", "/services/routes/config", { target: address, timeoutMs: 30_000 });
    }
  });

  it("its tools are listed, found by search and documented like any other", async () => {
    const listed = await host.api("GET", "/tools?serviceId=routes");
    expect(listed.body.items.map((tool: { id: string }) => tool.id).sort()).toEqual(["GetFeature", "ListFeatures"]);
    const found = await host.api("GET", "/tools?query=features");
    expect(found.body.items.map((tool: { serviceId: string }) => tool.serviceId)).toContain("routes");
    const docs = await host.api("GET", "/tools/routes/GetFeature/docs");
    expect(docs.status).toBe(200);
    expect(docs.text).toContain("routeguide.RouteGuide/GetFeature");
    const missing = await host.api("POST", "/tools/routes/GetFeatur/invoke", { parameters: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain("did you mean `GetFeature`");
  });

  it("GET /environment/types declares the tools, and code using them type-checks", async () => {
    const response = await host.api("GET", "/environment/types");
    expect(response.status, response.text).toBe(200);
    expect(response.text).toMatch(/readonly GetFeature: CyrnelTool</);
    const usage = `
      async function use(): Promise<string[]> {
        const feature = await cyrnel.services.routes.tools.GetFeature.invoke({ latitude: 1, longitude: 2 });
        const listed = await cyrnel.services.reflected.tools.ListFeatures.invoke({ lo: { latitude: 1 }, hi: {} });
        return [feature.name ?? "", ...listed.map((f) => f.location?.latitude?.toFixed(0) ?? "")];
      }
      export { use };
    `;
    expect(typeErrors({ "cyrnel.d.ts": response.text, "use.ts": usage })).toEqual([]);
    const wrong = `export const p = cyrnel.services.routes.tools.GetFeature.invoke({ latitude: "north" });`;
    expect(typeErrors({ "cyrnel.d.ts": response.text, "wrong.ts": wrong }).join("\n")).toContain(
      "Type 'string' is not assignable to type 'number'",
    );
  });
});
