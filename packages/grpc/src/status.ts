import { AdapterError } from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";
import { protobuf, type Root } from "./protobuf.js";
import { loadProtos } from "./protos.js";
import { JsonCodec } from "./values.js";

/**
 * A non-OK gRPC status → the error the host passes on (`502 adapter_error`).
 *
 * The message names the method, the code's name and number, the server's
 * message and, when the server sent a `google.rpc.Status` in the
 * `grpc-status-details-bin` trailer, its details decoded to JSON (the
 * standard `google.rpc` error details are known; other types are decoded
 * when the service's definition has them). `status` is the gRPC code
 * number (`NOT_FOUND` → 5): it is the protocol's own status, and what call
 * records show. `body` is the status in the JSON form of
 * `google.rpc.Status` plus the code's name:
 * `{"code": 5, "codeName": "NOT_FOUND", "message": "…", "details": [...]}`.
 */

const STATUS_PROTOS = {
  "google/rpc/status.proto": `syntax = "proto3";
package google.rpc;
import "google/protobuf/any.proto";
message Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }`,
  "google/rpc/error_details.proto": `syntax = "proto3";
package google.rpc;
import "google/protobuf/duration.proto";
message ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
message RetryInfo { google.protobuf.Duration retry_delay = 1; }
message DebugInfo { repeated string stack_entries = 1; string detail = 2; }
message QuotaFailure { message Violation { string subject = 1; string description = 2; } repeated Violation violations = 1; }
message PreconditionFailure { message Violation { string type = 1; string subject = 2; string description = 3; } repeated Violation violations = 1; }
message BadRequest { message FieldViolation { string field = 1; string description = 2; string reason = 3; } repeated FieldViolation field_violations = 1; }
message RequestInfo { string request_id = 1; string serving_data = 2; }
message ResourceInfo { string resource_type = 1; string resource_name = 2; string owner = 3; string description = 4; }
message Help { message Link { string description = 1; string url = 2; } repeated Link links = 1; }
message LocalizedMessage { string locale = 1; string message = 2; }`,
};

const statusRoot = loadProtos(STATUS_PROTOS);
const statusType = statusRoot.lookupType("google.rpc.Status");
const anyType = statusRoot.lookupType("google.protobuf.Any");
const statusCodec = new JsonCodec(statusRoot);

/** The code's name (`NOT_FOUND`), or its number as text for a code gRPC does not define. */
export function codeName(code: number): string {
  return grpc.status[code] ?? String(code);
}

/** What the server said about a failed call, as an AdapterError. */
export function statusError(method: string, error: Partial<grpc.ServiceError>, serviceRoot: Root): AdapterError {
  const code = typeof error.code === "number" ? error.code : grpc.status.UNKNOWN;
  const message = error.details ?? error.message ?? "";
  const details = decodeDetails(error.metadata, serviceRoot);
  const shown = details && details.length > 0 ? ` — details: ${JSON.stringify(details)}` : "";
  return new AdapterError(`gRPC ${codeName(code)} (${code}) from ${method}: ${message}${shown}`, {
    status: code,
    // The host answers 504 invoke_timeout for it, as for its own deadline.
    ...(code === grpc.status.DEADLINE_EXCEEDED && { timedOut: true }),
    body: { code, codeName: codeName(code), message, ...(details ? { details } : {}) },
    cause: error,
  });
}

function decodeDetails(metadata: grpc.Metadata | undefined, serviceRoot: Root): unknown[] | undefined {
  const raw = metadata?.get("grpc-status-details-bin")[0];
  if (!(raw instanceof Buffer)) return undefined;
  try {
    const status = statusType.decode(raw) as unknown as { details?: protobuf.Message[] };
    const serviceCodec = new JsonCodec(serviceRoot);
    return (status.details ?? []).map((any) => {
      const url = String((any as unknown as { type_url?: string }).type_url ?? "");
      const known = has(statusRoot, url) ? statusCodec : has(serviceRoot, url) ? serviceCodec : statusCodec;
      return known.toJson(anyType, any as unknown as Record<string, unknown>);
    });
  } catch {
    return [{ error: "the grpc-status-details-bin trailer is not a google.rpc.Status" }];
  }
}

function has(root: Root, url: string): boolean {
  try {
    return root.lookupType(`.${url.slice(url.lastIndexOf("/") + 1)}`) instanceof protobuf.Type;
  } catch {
    return false;
  }
}
