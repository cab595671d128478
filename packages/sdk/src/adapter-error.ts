/**
 * How an adapter says more than a message when a tool call fails.
 *
 * The host turns every error thrown by `AdapterModule.invoke` into a
 * `502 adapter_error` whose message is the error's message (secrets masked,
 * length bounded). When the failure was an answer from the end service,
 * the adapter also reports that answer's `status` and `body`; the host then
 * passes them on in the error's `details` (`{ status, body }`), where code
 * in the sandbox reads them as `error.details`.
 *
 * The contract is the shape, not the class: a module loaded from its own
 * folder usually has no copy of this package at run time (it imports only
 * types), and two copies of the package would not share `instanceof`. So
 * the host reads any thrown object with a numeric `status` or a defined
 * `body` through {@link adapterErrorDetails}; throwing `AdapterError` is the
 * convenient, typed way to produce that shape.
 */
/** What the host passes on from a failed call: the upstream answer's status and body. */
export interface AdapterErrorDetails {
  /** HTTP status (or the protocol's equivalent) the end service answered with. */
  status?: number;
  /** The end service's answer, parsed if it was JSON, else its text. Bounded and secret-masked by the host. */
  body?: unknown;
  /**
   * The call ran out of time at the end service or on the way (gRPC's
   * `DEADLINE_EXCEEDED`, an HTTP client's own deadline): the host answers
   * `504 invoke_timeout` with this error's message instead of `502
   * adapter_error`.
   */
  timedOut?: boolean;
}

/** An error an adapter throws when the end service answered with a failure. */
export class AdapterError extends Error implements AdapterErrorDetails {
  declare readonly status?: number;
  declare readonly body?: unknown;
  declare readonly timedOut?: boolean;

  constructor(message: string, details: AdapterErrorDetails & { cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "AdapterError";
    if (details.status !== undefined) this.status = details.status;
    if (details.body !== undefined) this.body = details.body;
    if (details.timedOut === true) this.timedOut = true;
  }
}

/**
 * The host's reading of an error thrown by an adapter: its `status` (when
 * it is a number) and `body` (when defined), or `undefined` when it carries
 * neither. Works for `AdapterError` from any copy of this package and for
 * any error of the same shape.
 */
export function adapterErrorDetails(error: unknown): AdapterErrorDetails | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const { status, body, timedOut } = error as { status?: unknown; body?: unknown; timedOut?: unknown };
  const hasStatus = typeof status === "number";
  if (!hasStatus && body === undefined && timedOut !== true) return undefined;
  return {
    ...(hasStatus ? { status } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(timedOut === true ? { timedOut: true } : {}),
  };
}
