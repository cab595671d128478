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
