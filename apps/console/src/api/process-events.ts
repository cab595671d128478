/**
 * Follows GET /processes/{id}/events: newline-delimited JSON read with fetch and a ReadableStream, because the stream
 * needs the bearer header (EventSource cannot send one, and the key must never go into a URL).
 */
import { toApiError } from "./api-error";
import { authHeaders } from "./client";
import type { ProcessEvent } from "./types";

/**
 * Calls `onEvent` for each line until the stream closes (resolves), the signal aborts, or the connection fails
 * (rejects). `onOpen` runs once the host accepted the follower, before its first line: each stream starts with all
 * the text written so far, so a reader following again starts its texts afresh there.
 */
export async function followProcess(
  id: number,
  onEvent: (event: ProcessEvent) => void,
  signal: AbortSignal,
  onOpen: () => void = () => {},
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`/processes/${id}/events`, { headers: authHeaders(), signal });
  } catch (error) {
    if (signal.aborted) throw error;
    // The host is unreachable (restarting, the network dropped): fetch says only "Failed to fetch".
    throw toApiError(0, null, `the host did not answer (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!response.ok || response.body === null) {
    const body = await response.json().catch(() => null);
    throw toApiError(response.status, body, `following process ${id} failed: ${response.status}`);
  }
  onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") onEvent(JSON.parse(line) as ProcessEvent);
  }
  if (buffered.trim() !== "") onEvent(JSON.parse(buffered) as ProcessEvent);
}
