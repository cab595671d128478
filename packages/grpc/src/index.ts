import { createRequire } from "node:module";
import type { AdapterModule, ModuleManifest } from "@cyrnel/sdk";
import { GrpcAdapter } from "./adapter.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The built-in `grpc` adapter module. */
export const manifest: ModuleManifest = {
  id: "grpc",
  name: "gRPC",
  description:
    "Turns gRPC services (proto sources, or a server's reflection) into tools, one per unary or server-streaming method, and calls them with @grpc/grpc-js.",
  type: "adapter",
  version,
};

export function instantiate(): AdapterModule {
  return new GrpcAdapter();
}
