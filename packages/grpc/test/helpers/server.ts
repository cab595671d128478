import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { INCLUDE_DIRS } from "./protos.js";

/** proto-loader as a server author would use it: snake_case fields kept, 64-bit integers as strings, enums by name. */
export function loadFixture(files: string[]): protoLoader.PackageDefinition {
  return protoLoader.loadSync(files, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: INCLUDE_DIRS,
  });
}

export interface RunningServer {
  address: string;
  server: grpc.Server;
  stop(): Promise<void>;
}

/** A real @grpc/grpc-js server on a loopback port, with server reflection for `reflect` when given. */
export async function startServer(
  setup: (server: grpc.Server) => void,
  reflect?: protoLoader.PackageDefinition,
  credentials: grpc.ServerCredentials = grpc.ServerCredentials.createInsecure(),
): Promise<RunningServer> {
  const server = new grpc.Server();
  setup(server);
  if (reflect) new ReflectionService(reflect).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `127.0.0.1:${port}`,
    server,
    stop: async () => server.forceShutdown(),
  };
}

/** The service definition of `name` (e.g. `routeguide.RouteGuide`) in a loaded package. */
export function serviceOf(definition: protoLoader.PackageDefinition, name: string): grpc.ServiceDefinition {
  const loaded = grpc.loadPackageDefinition(definition);
  let node: unknown = loaded;
  for (const part of name.split(".")) node = (node as Record<string, unknown>)[part];
  return (node as { service: grpc.ServiceDefinition }).service;
}
