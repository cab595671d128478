import type { ServiceDefinition } from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";
import { buildDefinition } from "./definition.js";
import { loadProtos } from "./protos.js";
import { readReflection } from "./reflection.js";
import { readSource } from "./source.js";

/**
 * `generateDefinition`: text → source (`source.ts`) → root (`protos.ts` or
 * `reflection.ts`) → definition (`definition.ts`). Proto sources are
 * processed without any I/O (the same text gives the same definition);
 * a reflection definition reads the server at install time, so it gives
 * the same definition as long as the server serves the same protos.
 */
export async function generateDefinition(text: string): Promise<ServiceDefinition> {
  const source = readSource(text);
  if (source.kind === "protos") {
    const root = loadProtos(source.files);
    return buildDefinition({ root, ...(source.target === undefined ? {} : { target: source.target }) });
  }
  const credentials = source.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const { root, services } = await readReflection({ address: source.address, credentials });
  return buildDefinition({ root, services, target: source.address, tls: source.tls });
}
