/**
 * The one error type of the host. Domain code throws
 * `new CyrnelError("tool_disabled", "...")`; the HTTP layer maps the code to
 * a status with the single table below. The code is part of the public API.
 */
import { cutText } from "./cut-text.js";

export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  /** The service's policy refuses the tool (`deny`); nothing was sent. */
  tool_denied: 403,
  /** A direct invoke of a tool whose policy is `ask`: such calls wait for an approval, so they run from process code. */
  approval_required: 403,
  /** An operator denied the approval the call waited for. */
  approval_denied: 403,
  /** Nobody decided the approval in time, or its process stopped (killed, the host restarted). */
  approval_expired: 403,
  /**
   * The service acts for a connected account (an OAuth connection) and the caller has none (or the shared one is not
   * connected): `details.authorizationUrl` connects one, when the caller may.
   */
  connection_required: 403,
  /** The key is valid but its role may not do this (an agent key on an admin route). */
  forbidden: 403,
  /** A host without keys refused a request from another web site (a foreign Origin, or a Host that is not its own). */
  cross_site_refused: 403,
  not_found: 404,
  conflict: 409,
  service_disabled: 409,
  tool_disabled: 409,
  payload_too_large: 413,
  /** The types asked for would be made from more JSON Schema than the host's budget (CYRNEL_TYPES_BUDGET_CHARS): ask for fewer tools. */
  types_too_large: 413,
  /** A request body that is not sent as `Content-Type: application/json`. */
  unsupported_media_type: 415,
  /** A running process already has as many live followers (`GET /processes/:id/events`) as allowed. */
  too_many_followers: 429,
  /** The active environment is past its capacity (executions, memory, queue); answered with `Retry-After`. */
  at_capacity: 429,
  /** The caller's key is past one of its per-key limits (requests, concurrent processes, in-flight tool calls); with `Retry-After`. */
  rate_limited: 429,
  /** A tool call whose run ended before it answered (killed, timed out, stopped); the adapter's request was aborted. */
  call_canceled: 409,
  /**
   * A call that needs an approval was not made: the key of its process already has as many approvals pending as
   * allowed (CYRNEL_PENDING_APPROVALS_LIMIT); answered with `Retry-After`.
   */
  too_many_pending_approvals: 429,
  internal: 500,
  adapter_error: 502,
  /** A registry could not be reached or failed (connection refused, timeout, redirect loop, HTTP 5xx). */
  upstream_error: 502,
  no_environment: 503,
  /** An OAuth access token could not be checked: the issuer's discovery document or keys cannot be read right now. */
  issuer_unavailable: 503,
  shutting_down: 503,
  /** The database cannot be reached right now (a restart, a failover, a dropped connection); answered with `Retry-After`. */
  database_unavailable: 503,
  /** No space left for the database (the data directory's device, or the database server's disk); with `Retry-After`. */
  insufficient_storage: 507,
  invoke_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Longest error message: messages can quote what a caller sent or an adapter said, which can be megabytes. */
export const MAX_MESSAGE_CHARS = 8 * 1024;

export class CyrnelError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(cutText(message, MAX_MESSAGE_CHARS));
    this.name = "CyrnelError";
    this.status = ERROR_STATUS[code];
  }

  toJSON(): { error: string; code: ErrorCode; details?: unknown } {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details };
  }
}

/** `what` not found, naming the closest existing ids when there are any (`; did you mean \`a\` or \`b\`?`). */
export const notFound = (what: string, suggestions: readonly string[] = []) =>
  new CyrnelError("not_found", `${what} not found${didYouMean(suggestions)}`);

function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return "";
  const quoted = names.map((name) => `\`${name}\``);
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
  return `; did you mean ${list}?`;
}

/** `details.retryAfterSeconds` becomes the answer's `Retry-After` header. */
export const atCapacity = (reason: string, retryAfterSeconds: number) =>
  new CyrnelError("at_capacity", `${reason}; nothing was run, submit again in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
  });

/** A per-key limit refused the request or call (`details.retryAfterSeconds` becomes `Retry-After`). */
export const rateLimited = (reason: string, retryAfterSeconds: number) =>
  new CyrnelError("rate_limited", `${reason}; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });

export const noEnvironment = () =>
  new CyrnelError("no_environment", "no environment module is active; enable one under /modules");

/** The message of anything thrown, for surfacing module errors. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
