import type { ToolAnnotations } from "@cyrnel/sdk";
import type { HttpMethod } from "./operations.js";

/**
 * Stage 4: what an operation's HTTP method says about its effect, as tool
 * annotations (which operators' policies match). By HTTP's own semantics
 * (RFC 9110): GET, HEAD and OPTIONS are safe (read-only); PUT and DELETE are
 * idempotent; DELETE removes something (destructive). Every operation
 * reaches the API the document describes, outside the host: open world.
 * TRACE is safe by the RFC too but left unclaimed (no real API exposes it as
 * an operation), and POST and PATCH claim nothing but not being read-only —
 * a policy that wants to be careful asks for everything that is not
 * read-only, which covers them.
 *
 * Every hint is set, `false` included, so a tool's record says what the
 * adapter decided rather than leaving it to the reader's defaults.
 */
export function annotationsOf(method: HttpMethod): Required<ToolAnnotations> {
  return {
    readOnly: method === "get" || method === "head" || method === "options",
    destructive: method === "delete",
    idempotent: method === "put" || method === "delete",
    openWorld: true,
  };
}
