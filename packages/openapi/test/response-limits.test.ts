import type { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { FakeHost, rejection } from "./helpers/host.js";
import { json, startServer, type TestServer } from "./helpers/server.js";

/**
 * What one call can make the adapter hold: a response is read while it
 * streams and refused past the service's `maxResponseBytes` (10 MiB by
 * default), without downloading the rest; error bodies kept on the thrown
 * error and the URL in messages are cut to a bounded size.
 */

const MiB = 1024 * 1024;
let server: TestServer;
let host: FakeHost;
/** Bytes the last streaming handler managed to write before the client went away (or all of them). */
let written = 0;

/** Writes `total` bytes of JSON-ish text in 64 KiB chunks, waiting for the client to read (backpressure). */
function stream(response: ServerResponse, status: number, total: number, headers: Record<string, string> = {}): void {
  written = 0;
  response.writeHead(status, { "content-type": "text/plain", ...headers });
  const chunk = Buffer.alloc(64 * 1024, "x");
  const pump = () => {
    while (written < total) {
      written += chunk.length;
      if (!response.write(chunk)) return void response.once("drain", pump);
    }
    response.end();
  };
  response.on("close", () => response.removeAllListeners("drain"));
  pump();
}

const document = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "Big", version: "1" },
  paths: {
    "/big": {
      get: {
        operationId: "big",
        parameters: [{ name: "q", in: "query", schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
  },
});

beforeAll(async () => {
  server = await startServer();
  host = new FakeHost(instantiate());
  await host.install("big", document, { baseUrl: server.url });
});
afterAll(() => server.close());
afterEach(async () => {
  await host.configure("big", { baseUrl: server.url });
  server.handle((_request, response) => json(response, 200, { ok: true }));
});

describe("response size", () => {
  it("defaults maxResponseBytes to 10 MiB in the config schema", () => {
    const properties = host.definitions.get("big")!.configSchema.properties as Record<string, { default?: unknown }>;
    expect(properties.maxResponseBytes).toMatchObject({ type: "integer", minimum: 1, default: 10 * MiB });
  });

  it("refuses a 200 MB body while it streams, naming the limit, without downloading the rest", async () => {
    server.handle((_request, response) => stream(response, 200, 200 * MiB));
    const error = await rejection(host.invoke("big", "big"));
    expect(error.message).toBe(
      `GET ${server.url}/big failed: the response is larger than 10,485,760 bytes (the service's maxResponseBytes)`,
    );
    // Socket buffers hold a few MB at most: the server never got to write the rest.
    expect(written).toBeLessThan(100 * MiB);
  });

  it("refuses a body whose Content-Length is over the limit before reading it", async () => {
    await host.configure("big", { baseUrl: server.url, maxResponseBytes: 1000 });
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "2000" });
      response.end(JSON.stringify({ data: "y".repeat(1988) }));
    });
    const error = await rejection(host.invoke("big", "big"));
    expect(error.message).toContain("the response is larger than 1,000 bytes (the service's maxResponseBytes)");
  });

  it("honours a configured maxResponseBytes either side of the limit, chunked or not", async () => {
    await host.configure("big", { baseUrl: server.url, maxResponseBytes: 1000 });
    server.handle((_request, response) => stream(response, 200, 64 * 1024));
    expect((await rejection(host.invoke("big", "big"))).message).toContain("larger than 1,000 bytes");
    server.handle((_request, response) => json(response, 200, { data: "z".repeat(900) }));
    expect(await host.invoke("big", "big")).toEqual({ data: "z".repeat(900) });
  });

  it("keeps at most 64 KiB of an error body, marked as cut", async () => {
    server.handle((_request, response) => stream(response, 500, 50 * MiB));
    const error = await rejection(host.invoke("big", "big"));
    expect(error.status).toBe(500);
    expect(error.message).toBe(`GET ${server.url}/big → 500 Internal Server Error`);
    expect(typeof error.body).toBe("string");
    expect(error.body as string).toMatch(/^x{65536}… \[cut: the body is longer than 65,536 bytes\]$/);
    expect(written).toBeLessThan(40 * MiB);
  });

  it("cuts a long URL in messages", async () => {
    server.handle((_request, response) => json(response, 404, { missing: true }));
    // 10,000 characters: Node's HTTP server refuses request lines over 16 KB.
    const error = await rejection(host.invoke("big", "big", { q: "q".repeat(10_000) }));
    expect(error.message.length).toBeLessThan(2200);
    expect(error.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/big\?q=q+… \[cut: \d[\d,]* more characters\] → 404 Not Found$/,
    );
  });

  it("refuses an OAuth2 token response over 64 KiB", async () => {
    const oauth = new FakeHost(instantiate());
    await oauth.install(
      "oauth",
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "OAuth", version: "1" },
        components: {
          securitySchemes: {
            cc: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "/token", scopes: {} } } },
          },
        },
        security: [{ cc: [] }],
        paths: { "/pets": { get: { operationId: "listPets", responses: { "200": { description: "ok" } } } } },
      }),
      { baseUrl: server.url },
      { cc: { clientId: "id", clientSecret: "client-secret-1" } },
    );
    server.handle((_request, response) => stream(response, 200, 50 * MiB, { "content-type": "application/json" }));
    const error = await rejection(oauth.invoke("oauth", "listPets"));
    expect(error.message).toBe(
      `OAuth2 token request to ${server.url}/token failed: the token response is larger than 65,536 bytes`,
    );
    expect(written).toBeLessThan(40 * MiB);
  });
});
