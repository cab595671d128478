import type { ToolOutcome } from "./sandbox/protocol.js";

/**
 * Encodes what `bindings.invokeTool` settled with as the JSON the prelude
 * understands. Runs in the host process, so the value is serialised exactly
 * once, before it crosses to the sandbox process.
 */
export function encodeToolSuccess(value: unknown): string {
  try {
    return JSON.stringify({ ok: true, value } satisfies ToolOutcome);
  } catch (error) {
    return encodeToolFailure(
      new Error(`the tool result is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}

/** Mirrors the host's rejection: an Error carrying `status`, `code` and maybe `details` (see ToolCallError). */
export function encodeToolFailure(error: unknown): string {
  const source = (typeof error === "object" && error !== null ? error : {}) as {
    message?: unknown;
    status?: unknown;
    code?: unknown;
    details?: unknown;
  };
  const message = typeof source.message === "string" ? source.message : String(error);
  const described: Extract<ToolOutcome, { ok: false }>["error"] = { message };
  if (typeof source.status === "number") described.status = source.status;
  if (typeof source.code === "string") described.code = source.code;
  const { details } = source;
  if (details !== undefined) {
    try {
      return JSON.stringify({ ok: false, error: { ...described, details } } satisfies ToolOutcome);
    } catch {
      // Details that cannot cross as JSON are left out; message, status and code still do.
    }
  }
  return JSON.stringify({ ok: false, error: described } satisfies ToolOutcome);
}
