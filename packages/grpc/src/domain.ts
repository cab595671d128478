import { isRecord } from "./records.js";

/**
 * What `generateDefinition` stores in `adapterDomain` (persisted by the host
 * in plaintext: never a secret) and `hydrateService` reads back. `format`
 * changes when the shape does; an older shape makes the enable fail with a
 * message asking for the service to be updated.
 */
export const DOMAIN_FORMAT = 1;

export interface ServiceDomain {
  format: typeof DOMAIN_FORMAT;
  /** The types and services as protobufjs JSON (`Root.toJSON()`, no comments): what invoke encodes and decodes with. */
  descriptor: Record<string, unknown>;
}

export interface ToolDomain {
  /** The HTTP/2 path of the method: `/pkg.Service/Method`. */
  path: string;
  /** Full names (leading dot) of the request and response message types. */
  request: string;
  response: string;
  serverStreaming: boolean;
  /** The request type's JSON form is not an object (e.g. `google.protobuf.Timestamp`): parameters are `{value}`. */
  wrapped: boolean;
}

export function readServiceDomain(domain: Record<string, unknown>): ServiceDomain {
  if (domain.format !== DOMAIN_FORMAT || !isRecord(domain.descriptor)) {
    throw new Error(
      "the service was installed by another version of the grpc adapter: update it (PATCH /services/:id)",
    );
  }
  return domain as unknown as ServiceDomain;
}

export function readToolDomain(id: string, domain: Record<string, unknown>): ToolDomain {
  const { path, request, response } = domain;
  if (typeof path !== "string" || typeof request !== "string" || typeof response !== "string") {
    throw new Error(`tool "${id}" has no gRPC method in its adapter data: update the service`);
  }
  return domain as unknown as ToolDomain;
}
