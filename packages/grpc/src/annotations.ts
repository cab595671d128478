import type { ToolAnnotations } from "@cyrnel/sdk";
import type { Method } from "./protobuf.js";

/**
 * What a method's options say about its effect:
 *
 * - `option idempotency_level = NO_SIDE_EFFECTS` → read-only (and
 *   idempotent); `IDEMPOTENT` → idempotent.
 * - `option (google.api.http)`: `get` → read-only, `delete` → destructive
 *   (and idempotent, as HTTP's DELETE is), `put` → idempotent.
 * - Every call reaches a server outside the host: open world.
 *
 * Nothing else is claimed: a method without these options could do
 * anything, and operators' policies treat an absent hint as false.
 */
export function annotationsOf(method: Method): Required<ToolAnnotations> {
  const options = method.options ?? {};
  const level = options.idempotency_level ?? options.idempotencyLevel;
  const http = httpVerb(options);
  const readOnly = level === "NO_SIDE_EFFECTS" || level === 1 || http === "get";
  return {
    readOnly,
    destructive: !readOnly && http === "delete",
    idempotent: readOnly || level === "IDEMPOTENT" || level === 2 || http === "delete" || http === "put",
    openWorld: true,
  };
}

/** The verb of the method's primary `google.api.http` binding (protobufjs flattens the option into dotted keys). */
export function httpVerb(options: Record<string, unknown>): string | undefined {
  for (const verb of ["get", "put", "post", "delete", "patch"]) {
    if (typeof options[`(google.api.http).${verb}`] === "string") return verb;
  }
  return undefined;
}
