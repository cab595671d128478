import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRegistry } from "../../../examples/registry/serve.mjs";
import { startHost, type TestHost } from "./support/host.js";

/**
 * CYRNEL_DOWNLOAD_DENY_PRIVATE=1: definition URLs, registries and module
 * archives that resolve to loopback, private or other non-public addresses
 * are refused with a 400 naming the address (the example registry served on
 * loopback stands in for an internal host). Off by default.
 */
let host: TestHost;
let open: TestHost;
let local: { url: string; close(): Promise<void> };
let port: string;

beforeAll(async () => {
  local = await serveRegistry();
  port = new URL(local.url).port;
  host = await startHost({ modules: ["recorder"], env: { CYRNEL_DOWNLOAD_DENY_PRIVATE: "1" } });
  open = await startHost();
});
afterAll(async () => {
  await host?.stop();
  await open?.stop();
  await local?.close();
});

describe("CYRNEL_DOWNLOAD_DENY_PRIVATE=1", () => {
  it.each([
    ["a loopback address", () => `${local.url}/definitions/petstore/1.0.0.json`, "127.0.0.1"],
    ["a name that resolves to loopback", () => `http://localhost:${port}/definitions/petstore/1.0.0.json`, "loopback"],
    ["an IPv4-mapped IPv6 address", () => `http://[::ffff:127.0.0.1]:${port}/x.json`, "::ffff:7f00:1"],
    ["a private address", () => "http://10.1.2.3/openapi.json", "10.1.2.3"],
    ["a link-local address", () => "http://169.254.169.254/latest/meta-data", "169.254.169.254"],
  ])("refuses a definition URL on %s", async (_name, url, address) => {
    const response = await host.api("POST", "/services", { id: "denied", adapter: "openapi", url: url() });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain(address);
    expect(response.body.error).toContain("CYRNEL_DOWNLOAD_DENY_PRIVATE");
  });

  it("refuses registries and module archives on such addresses too", async () => {
    const registry = await host.api("POST", "/registries", { url: local.url });
    expect(registry.status, registry.text).toBe(400);
    expect(registry.body.error).toContain("127.0.0.1");
    const install = await host.api("POST", "/modules/install", {
      source: `${local.url}/modules/json-http/descriptor.json`,
    });
    expect(install.status, install.text).toBe(400);
    expect(install.body.error).toContain("CYRNEL_DOWNLOAD_DENY_PRIVATE");
    const update = await host.api("PATCH", "/modules/recorder", { url: `${local.url}/modules/json-http/x.tgz` });
    expect(update.status, update.text).toBe(400);
    expect(update.body.error).toContain("127.0.0.1");
  });

  it("is off by default: local services install as before", async () => {
    const response = await open.api("POST", "/registries", { url: local.url });
    expect(response.status, response.text).toBe(201);
  });
});

/**
 * A definition on a slow but steady link installs even when the whole transfer takes longer than
 * CYRNEL_DOWNLOAD_TIMEOUT_MS (an idle timeout: the longest wait for the next bytes); a URL that answers a web page
 * is refused with a message that says so. The pauses are a fifth of the idle timeout.
 */
describe("definition downloads", () => {
  let slowHost: TestHost;
  let upstream: Server;
  let upstreamUrl: string;
  const timers: NodeJS.Timeout[] = [];
  const document = JSON.stringify({
    openapi: "3.0.3",
    info: { title: "slow", version: "1.0.0" },
    servers: [{ url: "http://127.0.0.1:9" }],
    paths: Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `/things/${i}`,
        { get: { operationId: `getThing${i}`, summary: `Thing ${i}`, responses: { 200: { description: "ok" } } } },
      ]),
    ),
  });

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.url === "/slow.json") {
        // Ten pieces 200 ms apart: about 1.8 s in all, against an idle timeout of 1 s.
        res.writeHead(200, { "content-type": "application/json" });
        const size = Math.ceil(document.length / 10);
        let offset = 0;
        const next = () => {
          res.write(document.slice(offset, offset + size));
          offset += size;
          if (offset >= document.length) res.end();
          else timers.push(setTimeout(next, 200));
        };
        next();
      } else {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end("<!doctype html><html><head><title>slow.json at main</title></head><body>…</body></html>");
      }
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    slowHost = await startHost({ env: { CYRNEL_DOWNLOAD_TIMEOUT_MS: "1000" } });
  });
  afterAll(async () => {
    for (const timer of timers) clearTimeout(timer);
    await slowHost?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  it("installs a definition that arrives steadily for longer than the idle timeout", async () => {
    const response = await slowHost.api("POST", "/services", {
      id: "slow",
      adapter: "openapi",
      url: `${upstreamUrl}/slow.json`,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.toolCount).toBe(40);
  });

  it("refuses a URL that answers an HTML page, saying so", async () => {
    const response = await slowHost.api("POST", "/services", {
      id: "page",
      adapter: "openapi",
      url: `${upstreamUrl}/blob/main/slow.json`,
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toBe(
      `definition at ${upstreamUrl}/blob/main/slow.json answered an HTML page (text/html), not a document the ` +
        `"openapi" adapter reads: check that the URL points at the raw file, not at a web page that shows it`,
    );
    expect((await slowHost.api("GET", "/services/page")).status).toBe(404);
  });
});
