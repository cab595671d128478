import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * Each stateless `POST /mcp` builds an MCP server for its one request; once
 * the answer is sent nothing of it may stay. A listener left on the
 * request's abort signal — which outlives the request on a kept-alive
 * connection — once kept every server (~50 KB): 60,000 initialize requests
 * grew the heap to 3 GB. Measured here as the heap left after a full
 * collection, over real HTTP (the leak needs the node server's requests).
 */
// The suites' workers run with --expose-gc (vitest.config.ts).
const gc = (globalThis as { gc?: () => void }).gc as () => void;

const REQUESTS = 600;
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "memory-test", version: "1" } },
});

let host: InProcessHost;
let url: string;

beforeAll(async () => {
  host = await startInProcess();
  url = await host.listen();
});
afterAll(() => host?.stop());

async function initializeMany(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: initialize,
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"serverInfo"');
  }
}

function retainedBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("stateless /mcp", () => {
  it(`keeps nothing of ${REQUESTS} initialize requests once they are answered`, async () => {
    await initializeMany(100);
    const before = retainedBytes();
    await initializeMany(REQUESTS);
    const grown = retainedBytes() - before;
    // ~50 KB a request when servers were kept: 30 MB here. Without the leak, noise of a few MB at most.
    expect(grown).toBeLessThan(REQUESTS * 10 * 1024);
  });
});
