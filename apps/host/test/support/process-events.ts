/** Reading `GET /processes/:id/events` (newline-delimited JSON) in tests. */
import { expect } from "vitest";
import type { TestHost } from "./host.js";

/** Reads NDJSON lines until `until` returns true for one (or the stream ends); returns every event read. */
export async function readEvents(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (event: Record<string, any>, all: Record<string, any>[]) => boolean,
): Promise<Record<string, any>[]> {
  const decoder = new TextDecoder();
  const events: Record<string, any>[] = [];
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    pending += decoder.decode(value, { stream: true });
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      events.push(JSON.parse(pending.slice(0, newline)));
      pending = pending.slice(newline + 1);
      if (until(events.at(-1)!, events)) return events;
    }
  }
}

/** Opens the event stream of a process on a spawned host. */
export async function followProcess(host: TestHost, id: number): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await fetch(`${host.url}/processes/${id}/events`, {
    headers: host.apiKey ? { authorization: `Bearer ${host.apiKey}` } : {},
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/x-ndjson");
  return response.body!.getReader();
}
