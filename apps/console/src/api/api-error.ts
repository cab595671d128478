/** An API call that did not succeed, with the host's own `code` and message (`{"error", "code", "details"?}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Turns whatever a failed call answered into an ApiError; a body that is not the host's error shape keeps its status. */
export function toApiError(status: number, body: unknown, fallback: string): ApiError {
  if (typeof body === "object" && body !== null && "code" in body && "error" in body) {
    const { code, error, details } = body as { code: unknown; error: unknown; details?: unknown };
    return new ApiError(status, String(code), String(error), details);
  }
  return new ApiError(status, status === 0 ? "network_error" : `http_${status}`, fallback);
}

/** The message to show for any thrown value. */
export function describeError(error: unknown): { code: string | null; message: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: null, message: error.message };
  return { code: null, message: String(error) };
}
