/**
 * The single place errors become HTTP responses. A storage fault (the database out of reach, no space left) is
 * answered as what it is — `503 database_unavailable` or `507 insufficient_storage`, with `Retry-After` — and
 * noted for `/health`. Other unknown errors are logged with their stack and answered as a bare 500. With OAuth
 * on, a 401's `WWW-Authenticate` names the protected resource metadata (RFC 9728), and a token without a role
 * scope is a 403 whose challenge names the scope to ask for (`insufficient_scope`, RFC 6750).
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AGENT_SCOPE, InsufficientScope } from "../domain/governance/oauth-tokens.js";
import { CyrnelError } from "../errors.js";
import { type StorageHealth, storageError, storageFaultOf } from "../lib/storage-faults.js";
import type { HostLogger } from "../log.js";

export function errorHandler(
  logger: HostLogger,
  storage?: StorageHealth,
  options: { resourceMetadata: string | null } = { resourceMetadata: null },
) {
  const challenge =
    options.resourceMetadata === null
      ? 'Bearer realm="cyrnel"'
      : // The scope an OAuth client asks for when it signs in: the agent's (MCP clients use the challenge's first).
        `Bearer realm="cyrnel", resource_metadata="${options.resourceMetadata}", scope="${AGENT_SCOPE}"`;
  return (error: Error, c: Context): Response => {
    let problem: CyrnelError;
    const fault = storageFaultOf(error);
    if (fault) storage?.failed(fault);
    if (error instanceof CyrnelError) {
      problem = error;
    } else if (fault) {
      logger.warn("a request failed on a storage fault", {
        method: c.req.method,
        path: c.req.path,
        reason: fault.reason,
      });
      problem = storageError(fault);
    } else if (error instanceof HTTPException && error.status < 500) {
      problem = new CyrnelError(error.status === 413 ? "payload_too_large" : "bad_request", error.message);
    } else {
      logger.error("unhandled error", {
        method: c.req.method,
        path: c.req.path,
        error: error.message,
        stack: error.stack,
      });
      problem = new CyrnelError("internal", "internal error");
    }
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    if (problem.code === "unauthorized") headers["WWW-Authenticate"] = challenge;
    if (problem instanceof InsufficientScope && options.resourceMetadata !== null) {
      headers["WWW-Authenticate"] =
        `Bearer realm="cyrnel", error="insufficient_scope", scope="${problem.scope}", ` +
        `resource_metadata="${options.resourceMetadata}"`;
    }
    if (
      problem.code === "at_capacity" ||
      problem.code === "rate_limited" ||
      problem.code === "too_many_pending_approvals" ||
      problem.code === "database_unavailable" ||
      problem.code === "insufficient_storage" ||
      problem.code === "issuer_unavailable"
    ) {
      headers["Retry-After"] = String(retryAfterOf(problem.details));
    }
    return new Response(JSON.stringify(problem.toJSON()), { status: problem.status, headers });
  };
}

/** Whole seconds, at least 1 (the header takes no fractions). */
function retryAfterOf(details: unknown): number {
  const seconds = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === "number" && Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : 1;
}

export const notFoundHandler = (c: Context): Response =>
  new Response(JSON.stringify(new CyrnelError("not_found", `no route ${c.req.method} ${c.req.path}`).toJSON()), {
    status: 404,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
