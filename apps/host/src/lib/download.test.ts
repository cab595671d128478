import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { download } from "./download.js";

/**
 * The non-public address check runs on every hop. Loopback stands in for the
 * public internet here: the test classifier calls only 127.0.0.2 private.
 */
let server: Server;
let base: string;
let requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const port = (server.address() as AddressInfo).port;
    if (req.url === "/to-private") res.writeHead(302, { location: `http://127.0.0.2:${port}/secret` }).end();
    else if (req.url === "/to-public") res.writeHead(302, { location: "/ok" }).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end("fine");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const options = {
  what: "definition",
  maxBytes: 1024,
  timeoutMs: 5_000,
  denyPrivate: true,
  addressKind: (address: string) => (address === "127.0.0.2" ? "test-private" : null),
};

describe("download with denyPrivate", () => {
  it("follows redirects between allowed addresses", async () => {
    expect((await download(`${base}/to-public`, options)).body.toString()).toBe("fine");
  });

  it("refuses a redirect to a non-public address before requesting it", async () => {
    requests = [];
    await expect(download(`${base}/to-private`, options)).rejects.toThrow(
      /from http:\/\/127\.0\.0\.2:\d+\/secret: it is 127\.0\.0\.2, a test-private address, and CYRNEL_DOWNLOAD_DENY_PRIVATE=1/,
    );
    expect(requests).toEqual(["/to-private"]);
  });

  it("checks every address a name resolves to", async () => {
    const port = new URL(base).port;
    const denyLoopback = {
      ...options,
      addressKind: (a: string) => (a === "127.0.0.1" || a === "::1" ? "loopback" : null),
    };
    await expect(download(`http://localhost:${port}/ok`, denyLoopback)).rejects.toThrow(
      /localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
  });
});

describe("download without denyPrivate", () => {
  const byDefault = { ...options, denyPrivate: false };

  it("refuses a redirect from a public URL into a private range before requesting it", async () => {
    requests = [];
    await expect(download(`${base}/to-private`, byDefault)).rejects.toThrow(
      /from http:\/\/127\.0\.0\.2:\d+\/secret: it is 127\.0\.0\.2, a test-private address, and a download from a public URL is never redirected into a private range/,
    );
    expect(requests).toEqual(["/to-private"]);
  });

  it("a private URL given by the operator may be fetched, and redirect within private ranges", async () => {
    const everythingPrivate = { ...byDefault, addressKind: () => "test-private" };
    expect((await download(`${base}/ok`, everythingPrivate)).body.toString()).toBe("fine");
    // Followed (the target is not listening: the connection, not the rule, fails it).
    await expect(download(`${base}/to-private`, everythingPrivate)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("follows redirects on the same host", async () => {
    const loopbackPrivate = { ...byDefault, addressKind: () => "test-private" as string | null };
    expect((await download(`${base}/to-public`, loopbackPrivate)).body.toString()).toBe("fine");
    expect((await download(`${base}/to-public`, byDefault)).body.toString()).toBe("fine");
  });
});
