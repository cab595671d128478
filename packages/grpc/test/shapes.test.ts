import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { AdapterModule, ServiceDefinition } from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";
import type * as protoLoader from "@grpc/proto-loader";
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotationsOf } from "../src/annotations.js";
import { instantiate } from "../src/index.js";
import { rootFromDescriptors } from "../src/reflection.js";
import { bytesService } from "./helpers/bytes-server.js";
import { Oracle } from "./helpers/oracle.js";
import { protoSet, protosDefinition } from "./helpers/protos.js";
import { type RunningServer, startServer } from "./helpers/server.js";

/**
 * Every shape of the proto3 JSON mapping (`fixtures/shapes.proto`) through
 * the adapter and back, against a server that decodes and encodes with
 * protobuf-es — another implementation of the mapping — so what the adapter
 * sends and what it returns are checked by something other than itself.
 */

const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as (ajv: InstanceType<typeof Ajv>) => void;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

const oracle = Oracle.of(
  protoSet(["shapes.proto", "legacy.proto", "google/rpc/status.proto", "google/rpc/error_details.proto"]),
);
const received: unknown[] = [];
let server: RunningServer;
let definition: ServiceDefinition;
let adapter: AdapterModule;

const FULL = {
  aDouble: 1.25,
  aFloat: -2.5,
  anInt32: -2147483648,
  anInt64: "-9223372036854775808",
  aUint32: 4294967295,
  aUint64: "18446744073709551615",
  aSint32: -7,
  aSint64: "-9007199254740993",
  aFixed32: 7,
  aFixed64: "9007199254740993",
  anSfixed32: -1,
  anSfixed64: "9223372036854775807",
  aBool: true,
  aString: "naïve ☃",
  someBytes: Buffer.from([0, 1, 254, 255]).toString("base64"),
  color: "BLUE",
  tags: ["a", "b"],
  counts: { a: "-5", "": "0" },
  colorsById: { "-9007199254740993": "RED", "0": "BLUE" },
  tree: { name: "root", children: [{ name: "kid", children: [], byName: {} }], byName: { x: { name: "x" } } },
  maybe: 0,
  at: "2024-05-01T12:30:00.123Z",
  took: "-1.500s",
  extra: { nested: { list: [1, "two", null, true] } },
  anything: [1, { a: null }],
  list: ["x", 2],
  mask: "aString,tree.byName",
  packed: { "@type": "type.googleapis.com/shapes.v1.Tree", name: "packed", children: [], byName: {} },
  wrappedInt64: "-1",
  wrappedString: "",
  wrappedBool: false,
  forest: [{ name: "a" }, { name: "b", children: [{ name: "c" }] }],
  otherName: "renamed",
};

/**
 * Server reflection serving the descriptors buf compiled (as a server built
 * with protoc serves them: full type names, dependencies, `json_name`,
 * options), rather than the ones proto-loader derives.
 */
function reflectedAsCompiled(from: Oracle): protoLoader.PackageDefinition {
  const fileDescriptorProtos = from.set.file.map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file)));
  return { compiled: { fileDescriptorProtos } } as unknown as protoLoader.PackageDefinition;
}

beforeAll(async () => {
  const reply = (name: string, bytes: Buffer) => Buffer.from(oracle.encode(name, oracle.decode(name, bytes)));
  server = await startServer((s) => {
    s.addService(
      bytesService("shapes.v1.Shapes", {
        Echo: {},
        GetTree: {},
        DeleteTree: {},
        PutTree: {},
        Repeat: { serverStreaming: true },
        Fail: {},
        Sleep: {},
      }),
      {
        Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
          received.push(oracle.decode("shapes.v1.Everything", call.request));
          done(null, reply("shapes.v1.Everything", call.request));
        },
        GetTree: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
          const { name } = oracle.decode("shapes.v1.TreeRequest", call.request) as { name: string };
          done(null, Buffer.from(oracle.encode("shapes.v1.Tree", { name, children: [{ name: `${name}/1` }] })));
        },
        DeleteTree: (_call: unknown, done: grpc.sendUnaryData<Buffer>) => done(null, Buffer.alloc(0)),
        PutTree: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) =>
          done(null, reply("shapes.v1.Tree", call.request)),
        Repeat: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
          const request = oracle.decode("shapes.v1.RepeatRequest", call.request) as { message: unknown; count: number };
          for (let i = 0; i < request.count; i++)
            call.write(Buffer.from(oracle.encode("shapes.v1.Everything", request.message ?? {})));
          call.end();
        },
        Fail: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
          const request = oracle.decode("shapes.v1.FailRequest", call.request) as {
            code: number;
            message: string;
            withDetails: boolean;
          };
          const metadata = new grpc.Metadata();
          if (request.withDetails) {
            const status = oracle.encode("google.rpc.Status", {
              code: request.code,
              message: request.message,
              details: [
                {
                  "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                  reason: "QUOTA",
                  domain: "shapes.example",
                  metadata: { limit: "10" },
                },
                { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1.500s" },
              ],
            });
            metadata.set("grpc-status-details-bin", Buffer.from(status));
          }
          done({ code: request.code, details: request.message, metadata });
        },
        Sleep: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
          const timer = setTimeout(() => done(null, Buffer.alloc(0)), 60_000);
          call.on("cancelled", () => clearTimeout(timer));
        },
      },
    );
  }, reflectedAsCompiled(oracle));
  adapter = instantiate();
  definition = await adapter.generateDefinition(protosDefinition(["shapes.proto"]));
  await adapter.hydrateService({
    id: "shapes",
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((tool) => [tool.id, { adapterDomain: tool.adapterDomain }])),
    config: { target: server.address, timeoutMs: 30_000, maxStreamMessages: 5 },
    secrets: {},
  });
});
afterAll(async () => {
  await adapter?.teardown();
  await server?.stop();
});

const tool = (id: string) => definition.tools.find((t) => t.id === id)!;
const invoke = (toolId: string, parameters: Record<string, unknown>) =>
  adapter.invoke({ serviceId: "shapes", toolId, parameters });

describe("the proto3 JSON mapping, checked by protobuf-es", () => {
  it.each([
    ["every field set", FULL],
    ["nothing set", {}],
    ["the other oneof members", { text: "t" }],
    ["a number oneof member and non-finite floats", { number: 0, aDouble: "NaN", aFloat: "-Infinity" }],
    ["proto field names and numbers for 64-bit integers", { an_int64: 42, a_uint64: "0", some_bytes: "_-8=" }],
    [
      "a well-known type inside an Any",
      { packed: { "@type": "type.googleapis.com/google.protobuf.Duration", value: "3s" } },
    ],
  ])("round-trips %s", async (_name, parameters) => {
    const output = await invoke("Echo", parameters);
    // What the server decoded is what protobuf-es reads from the same JSON.
    expect(received.at(-1)).toEqual(oracle.normalise("shapes.v1.Everything", parameters));
    // What the adapter returns is what protobuf-es writes for the answer.
    expect(output).toEqual(oracle.normalise("shapes.v1.Everything", parameters));
  });

  it("matches the schemas: parameters validate against inputSchema, results against outputSchema", async () => {
    const input = ajv.compile(tool("Echo").inputSchema);
    const output = ajv.compile(tool("Echo").outputSchema);
    const { aDouble: _, aFloat: __, ...finite } = FULL;
    expect(input(FULL), JSON.stringify(input.errors)).toBe(true);
    expect(output(await invoke("Echo", FULL)), JSON.stringify(output.errors)).toBe(true);
    expect(output(await invoke("Echo", {})), JSON.stringify(output.errors)).toBe(true);
    expect(input(finite)).toBe(true);
  });

  it.each([
    ["two members of a oneof", { text: "a", number: 1 }],
    ["an unknown field", { nope: 1 }],
    ["a 64-bit integer as a JSON number", { anInt64: 1 }],
    ["an enum by an unknown name", { color: "GREEN" }],
    ["a timestamp without a zone", { at: "2024-05-01T12:30:00" }],
    ["a map key that is not an integer", { colorsById: { x: "RED" } }],
  ])("inputSchema refuses %s", (_name, parameters) => {
    expect(ajv.compile(tool("Echo").inputSchema)(parameters)).toBe(false);
  });

  it.each([
    ["two members of a oneof", { text: "a", number: 1 }, 'number: "text" of the same oneof is set already'],
    ["an unknown field", { nope: 1 }, "nope: unknown field of shapes.v1.Everything"],
    ["an int32 out of range", { anInt32: 2147483648 }, "anInt32: 2147483648 is out of range"],
    ["a uint64 below zero", { aUint64: "-1" }, "aUint64: -1 is out of range"],
    ["a bad timestamp", { at: "yesterday" }, "at: expected an RFC 3339 timestamp"],
    [
      "an Any of a type the definition lacks",
      { packed: { "@type": "x/y.Z" } },
      'packed["@type"]: type "x/y.Z" is not in',
    ],
  ])("the adapter refuses %s with the path of the value", async (_name, parameters, message) => {
    await expect(invoke("Echo", parameters)).rejects.toThrow(
      `Invalid parameters for shapes.v1.Shapes/Echo: ${message}`,
    );
  });

  it("names recursive and shared messages as $defs, with x-cyrnel-name at the root", () => {
    const schema = tool("PutTree").inputSchema;
    expect(schema).toMatchObject({
      "x-cyrnel-name": "Tree",
      properties: {
        children: { type: "array", items: { $ref: "#/$defs/Tree" } },
        byName: { type: "object", additionalProperties: { $ref: "#/$defs/Tree" } },
      },
      $defs: { Tree: { type: "object", description: "A recursive message." } },
    });
    const echo = tool("Echo").inputSchema as { properties: Record<string, unknown>; $defs: Record<string, unknown> };
    expect(Object.keys(echo.$defs).sort()).toEqual(["Color", "Tree"]);
    expect(echo.$defs.Color).toEqual({
      type: "string",
      enum: ["COLOR_UNSPECIFIED", "BLUE", "RED"],
      description: "- BLUE: Like the sky.",
    });
    expect(echo.properties).toMatchObject({
      anInt64: { type: "string", pattern: "^-?[0-9]+$" },
      someBytes: { type: "string", contentEncoding: "base64" },
      at: { type: "string", format: "date-time" },
      took: { type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$" },
      extra: { type: "object" },
      anything: {},
      mask: { type: "string" },
      packed: { required: ["@type"] },
      wrappedInt64: { type: ["string", "null"] },
      otherName: { type: "string" },
      text: { description: 'One of "choice": not together with "number", "tree".' },
    });
  });
});

describe("methods", () => {
  it("take annotations from idempotency_level and google.api.http", () => {
    const annotations = Object.fromEntries(definition.tools.map((t) => [t.id, t.annotations]));
    expect(annotations).toMatchObject({
      Echo: { readOnly: true, idempotent: true, destructive: false },
      GetTree: { readOnly: true },
      DeleteTree: { readOnly: false, destructive: true, idempotent: true },
      PutTree: { readOnly: false, destructive: false, idempotent: true },
      Repeat: { readOnly: false, destructive: false, idempotent: false },
    });
    expect(tool("GetTree").endpoint).toBe("shapes.v1.Shapes/GetTree");
  });

  it("return a server stream as an array, and fail past maxStreamMessages", async () => {
    const output = await invoke("Repeat", { message: { aString: "x" }, count: 3 });
    expect(output).toEqual(Array.from({ length: 3 }, () => oracle.normalise("shapes.v1.Everything", { aString: "x" })));
    await expect(invoke("Repeat", { message: {}, count: 6 })).rejects.toThrow(
      "the stream of shapes.v1.Shapes/Repeat sent more than 5 messages (the service's maxStreamMessages); the call was cancelled",
    );
  });

  it("decode google.rpc.Status details into the error", async () => {
    const error = await invoke("Fail", { code: 8, message: "slow down", withDetails: true }).catch((e: unknown) => e);
    const details = [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "QUOTA",
        domain: "shapes.example",
        metadata: { limit: "10" },
      },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1.500s" },
    ];
    expect(error).toMatchObject({
      status: 8,
      message: `gRPC RESOURCE_EXHAUSTED (8) from shapes.v1.Shapes/Fail: slow down — details: ${JSON.stringify(details)}`,
      body: { code: 8, codeName: "RESOURCE_EXHAUSTED", message: "slow down", details },
    });
  });

  it("take a bare well-known type as {value}", async () => {
    expect(tool("Sleep").inputSchema).toMatchObject({ properties: { value: { type: "string" } }, required: ["value"] });
    const controller = new AbortController();
    const call = adapter.invoke({
      serviceId: "shapes",
      toolId: "Sleep",
      parameters: { value: "60s" },
      signal: controller.signal,
    });
    controller.abort("stop");
    await expect(call).rejects.toThrow("the call to shapes.v1.Shapes/Sleep was canceled: stop");
  });
});

describe("proto2", () => {
  it("lists required fields as required and keeps optional fields without presence out of results", async () => {
    const legacy = await adapter.generateDefinition(protosDefinition(["legacy.proto"]));
    const [lookup] = legacy.tools;
    expect(lookup!.inputSchema).toMatchObject({ required: ["key"], properties: { limit: { type: "integer" } } });
    expect(lookup!.outputSchema).toMatchObject({ required: ["key"] });
  });
});

describe("reflection", () => {
  it("gives the same tools and schemas as the protos", async () => {
    const reflected = await adapter.generateDefinition(JSON.stringify({ reflection: server.address }));
    const shapes = reflected.tools.filter((t) => t.name.startsWith("shapes.v1."));
    expect(shapes.map((t) => t.id).sort()).toEqual(definition.tools.map((t) => t.id).sort());
    const strip = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, item) => (key === "description" ? undefined : item)));
    for (const t of shapes) {
      const original = tool(t.id);
      expect(strip([t.inputSchema, t.outputSchema]), t.id).toEqual(
        strip([original.inputSchema, original.outputSchema]),
      );
    }
    // idempotency_level is a field of MethodOptions and arrives; google.api.http is an extension, which
    // @grpc/reflection drops when it re-encodes descriptors with protobufjs (the next test reads it).
    expect(shapes.find((t) => t.id === "Echo")?.annotations).toEqual(tool("Echo").annotations);
  });

  it("reads idempotency_level and google.api.http from descriptors as protoc writes them", () => {
    const files = oracle.set.file.map((file) => toBinary(FileDescriptorProtoSchema, file));
    const root = rootFromDescriptors(files);
    const annotations = Object.fromEntries(
      ["Echo", "GetTree", "DeleteTree", "PutTree", "Repeat"].map((name) => [
        name,
        annotationsOf(root.lookupService("shapes.v1.Shapes").methods[name]!),
      ]),
    );
    expect(annotations).toEqual(
      Object.fromEntries(definition.tools.filter((t) => t.id in annotations).map((t) => [t.id, t.annotations])),
    );
  });
});
