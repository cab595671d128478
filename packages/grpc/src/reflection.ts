import { createRequire } from "node:module";
import * as grpc from "@grpc/grpc-js";
import { type Method, protobuf, type Root } from "./protobuf.js";
import { loadProtos } from "./protos.js";

/**
 * Stage 2b: a server's services read through gRPC server reflection
 * (`grpc.reflection.v1.ServerReflection`, falling back to `v1alpha` when the
 * server does not implement v1) → a resolved protobufjs `Root` and the
 * names of the services it lists.
 *
 * One bidirectional stream: `list_services`, then `file_containing_symbol`
 * for each service, then `file_by_filename` for every dependency not seen
 * yet, one request at a time. The whole exchange is bounded by a deadline
 * and by a number of files, so a slow or endless server cannot hold an
 * install. The reflection services themselves are left out.
 *
 * Method options travel as unknown fields of `MethodOptions` to protobufjs's
 * descriptor reader, which drops them: they are read again with a small
 * view of the descriptor that knows `idempotency_level` and
 * `google.api.http`, and set on the methods as a parsed `.proto` sets them.
 * Reflection descriptors seldom carry comments, so the tools of a service
 * read this way have only the descriptions the adapter writes.
 */

const require = createRequire(import.meta.url);
const descriptor = require("protobufjs/ext/descriptor") as {
  FileDescriptorProto: protobuf.Type;
};

export const REFLECTION_TIMEOUT_MS = 10_000;
const MAX_FILES = 2_000;

const REFLECTION_PROTO = `syntax = "proto3";
package reflection;
message ServerReflectionRequest {
  string host = 1;
  oneof message_request {
    string file_by_filename = 3;
    string file_containing_symbol = 4;
    string list_services = 7;
  }
}
message ServerReflectionResponse {
  string valid_host = 1;
  oneof message_response {
    FileDescriptorResponse file_descriptor_response = 4;
    ListServiceResponse list_services_response = 6;
    ErrorResponse error_response = 7;
  }
}
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ListServiceResponse { repeated ServiceResponse service = 1; }
message ServiceResponse { string name = 1; }
message ErrorResponse { int32 error_code = 1; string error_message = 2; }
`;

/** What reflection needs to know about method options (wire-compatible with descriptor.proto and google/api/http.proto). */
const OPTIONS_VIEW_PROTO = `syntax = "proto2";
package view;
message File { optional string name = 1; optional string package = 2; repeated Message message_type = 4; repeated Service service = 6; }
message Message { optional string name = 1; repeated Field field = 2; repeated Message nested_type = 3; }
message Field { optional string name = 1; optional string json_name = 10; }
message Service { optional string name = 1; repeated Method method = 2; }
message Method { optional string name = 1; optional Options options = 4; }
message Options { optional int32 idempotency_level = 34; optional HttpRule http = 72295728; }
message HttpRule {
  optional string get = 2; optional string put = 3; optional string post = 4; optional string delete = 5; optional string patch = 6;
}
`;

const types = (() => {
  const root = loadProtos({ "reflection.proto": REFLECTION_PROTO, "view.proto": OPTIONS_VIEW_PROTO });
  return {
    request: root.lookupType("reflection.ServerReflectionRequest"),
    response: root.lookupType("reflection.ServerReflectionResponse"),
    file: root.lookupType("view.File"),
  };
})();

const PATHS = [
  "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];
const REFLECTION_SERVICES = new Set([
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
]);

export interface ReflectedServices {
  root: Root;
  services: string[];
}

export interface ReflectionOptions {
  address: string;
  credentials: grpc.ChannelCredentials;
  timeoutMs?: number;
}

export async function readReflection(options: ReflectionOptions): Promise<ReflectedServices> {
  const client = new grpc.Client(options.address, options.credentials);
  const deadline = Date.now() + (options.timeoutMs ?? REFLECTION_TIMEOUT_MS);
  try {
    let files: Map<string, Uint8Array>;
    let services: string[];
    try {
      ({ files, services } = await exchange(client, PATHS[0]!, deadline));
    } catch (error) {
      if ((error as grpc.ServiceError).code !== grpc.status.UNIMPLEMENTED) throw error;
      ({ files, services } = await exchange(client, PATHS[1]!, deadline));
    }
    return { root: rootFromDescriptors(files.values()), services };
  } catch (error) {
    const status = error as Partial<grpc.ServiceError>;
    const why =
      typeof status.code === "number"
        ? `${grpc.status[status.code]}: ${status.details ?? status.message}`
        : (error as Error).message;
    throw new Error(`gRPC reflection at ${options.address} failed: ${why}`);
  } finally {
    client.close();
  }
}

/** One reflection conversation on `path`: the services and every file they need, as serialized FileDescriptorProtos. */
async function exchange(
  client: grpc.Client,
  path: string,
  deadline: number,
): Promise<{ files: Map<string, Uint8Array>; services: string[] }> {
  const identity = (value: Buffer) => value;
  const call = client.makeBidiStreamRequest(path, identity, identity, new grpc.Metadata(), { deadline });
  const waiting: { resolve(value: Record<string, unknown>): void; reject(error: unknown): void }[] = [];
  let failure: unknown;
  call.on("data", (bytes: Buffer) => {
    const next = waiting.shift();
    next?.resolve(types.response.toObject(types.response.decode(bytes), { oneofs: true }) as Record<string, unknown>);
  });
  const fail = (error: unknown) => {
    failure ??= error;
    for (const next of waiting.splice(0)) next.reject(failure);
  };
  call.on("error", fail);
  call.on("end", () => fail(new Error("the server ended the reflection stream early")));
  const ask = (request: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (failure !== undefined) return reject(failure);
      waiting.push({ resolve, reject });
      call.write(Buffer.from(types.request.encode(types.request.fromObject(request)).finish()));
    });
  try {
    const listed = await ask({ list_services: "" });
    const services = answer<{ service?: { name: string }[] }>(listed, "list_services_response", "list services")
      .service?.map((service) => service.name)
      .filter((name) => !REFLECTION_SERVICES.has(name))
      .sort();
    if (!services || services.length === 0) throw new Error("the server lists no services");
    const files = new Map<string, Uint8Array>();
    const wanted: string[] = [];
    const take = (response: Record<string, unknown>, what: string) => {
      const protos = answer<{ file_descriptor_proto?: Uint8Array[] }>(response, "file_descriptor_response", what);
      for (const bytes of protos.file_descriptor_proto ?? []) {
        const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string; dependency?: string[] };
        if (files.has(file.name)) continue;
        if (files.size >= MAX_FILES) throw new Error(`the services need more than ${MAX_FILES} proto files`);
        files.set(file.name, bytes);
        wanted.push(...(file.dependency ?? []));
      }
    };
    for (const service of services) take(await ask({ file_containing_symbol: service }), `the file of ${service}`);
    for (let name = wanted.shift(); name !== undefined; name = wanted.shift()) {
      if (!files.has(name)) take(await ask({ file_by_filename: name }), `file "${name}"`);
    }
    return { files, services };
  } finally {
    call.end();
    call.cancel();
  }
}

function answer<T>(response: Record<string, unknown>, field: string, what: string): T {
  const error = response.error_response as { error_code?: number; error_message?: string } | undefined;
  if (error) {
    const name = grpc.status[error.error_code ?? 2] ?? String(error.error_code);
    throw new Error(`the server could not give ${what}: ${name}: ${error.error_message ?? ""}`);
  }
  const value = response[field];
  if (value === undefined) throw new Error(`the server answered ${what} with something else`);
  return value as T;
}

/** Serialized FileDescriptorProtos as a protobufjs root, with what protobufjs's reader leaves out put back. */
export function rootFromDescriptors(files: Iterable<Uint8Array>): Root {
  const all = [...files];
  const decoded = all.map((bytes) => descriptor.FileDescriptorProto.decode(bytes));
  const root = (protobuf.Root as unknown as { fromDescriptor(set: unknown): Root }).fromDescriptor({ file: decoded });
  root.resolveAll();
  restoreMaps(root);
  root.resolveAll();
  for (const bytes of all) {
    const file = types.file.toObject(types.file.decode(bytes)) as ViewFile;
    const prefix = file.package ? `.${file.package}` : "";
    for (const message of file.message_type ?? []) applyJsonNames(root, prefix, message);
    for (const service of file.service ?? []) {
      for (const method of service.method ?? []) {
        const found = root.lookup(`${prefix}.${service.name}.${method.name}`);
        if (found instanceof protobuf.Method) applyOptions(found, method.options);
      }
    }
  }
  return root;
}

/**
 * protobufjs's descriptor reader leaves a map as what it is on the wire, a
 * repeated nested `<Name>Entry` message (marked `map_entry`): turn each back
 * into a map field, as a parsed `.proto` has it, so the JSON form is an object.
 */
function restoreMaps(namespace: protobuf.NamespaceBase): void {
  for (const nested of [...namespace.nestedArray]) {
    if (nested instanceof protobuf.Type) {
      for (const field of [...nested.fieldsArray]) {
        const entry = field.resolvedType;
        if (!(field.repeated && entry instanceof protobuf.Type && entry.parent === nested && isMapEntry(entry)))
          continue;
        const key = entry.fieldsById[1]!;
        const value = entry.fieldsById[2]!;
        nested.remove(field);
        const map = new protobuf.MapField(field.name, field.id, key.type, value.resolvedType?.fullName ?? value.type);
        nested.add(map);
        map.resolve();
      }
      for (const inner of [...nested.nestedArray]) {
        if (inner instanceof protobuf.Type && isMapEntry(inner)) nested.remove(inner);
      }
    }
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) restoreMaps(nested);
  }
}

function isMapEntry(type: protobuf.Type): boolean {
  const options = type.options ?? {};
  return (options.map_entry === true || options.mapEntry === true) && type.fieldsArray.length === 2;
}

/** protobufjs's reader drops `json_name`: set it as the option a parsed `.proto` has (`names.ts` reads it). */
function applyJsonNames(root: Root, prefix: string, message: ViewMessage): void {
  const type = root.lookup(`${prefix}.${message.name}`);
  if (!(type instanceof protobuf.Type)) return;
  for (const field of message.field ?? []) {
    const found = type.fields[field.name];
    if (found && field.json_name) found.setOption("json_name", field.json_name);
  }
  for (const nested of message.nested_type ?? []) applyJsonNames(root, `${prefix}.${message.name}`, nested);
}

interface ViewMessage {
  name: string;
  field?: { name: string; json_name?: string }[];
  nested_type?: ViewMessage[];
}

interface ViewFile {
  package?: string;
  message_type?: ViewMessage[];
  service?: { name: string; method?: { name: string; options?: ViewOptions }[] }[];
}
interface ViewOptions {
  idempotency_level?: number;
  http?: Record<string, string>;
}

const LEVELS = ["IDEMPOTENCY_UNKNOWN", "NO_SIDE_EFFECTS", "IDEMPOTENT"];

function applyOptions(method: Method, options: ViewOptions | undefined): void {
  if (!options) return;
  if (options.idempotency_level !== undefined) {
    method.setOption("idempotency_level", LEVELS[options.idempotency_level] ?? options.idempotency_level);
  }
  for (const [verb, path] of Object.entries(options.http ?? {})) method.setOption(`(google.api.http).${verb}`, path);
}
