import type * as grpc from "@grpc/grpc-js";

/**
 * A service definition whose handlers see and send raw message bytes, so
 * a test server can decode and encode with another implementation than the
 * adapter's (see `oracle.ts`).
 */
export function bytesService(
  service: string,
  methods: Record<string, { serverStreaming?: boolean }>,
): grpc.ServiceDefinition {
  const identity = (value: Buffer) => value;
  return Object.fromEntries(
    Object.entries(methods).map(([name, { serverStreaming }]) => [
      name,
      {
        path: `/${service}/${name}`,
        requestStream: false,
        responseStream: serverStreaming === true,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    ]),
  ) as grpc.ServiceDefinition;
}
