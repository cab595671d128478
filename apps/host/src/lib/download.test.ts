import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { download, downloadJson, downloadText } from "./download.js";

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

/**
 * The idle timeout (CYRNEL_DOWNLOAD_TIMEOUT_MS) against the bound on the whole transfer
 * (CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS): a steady download may take longer than the idle timeout, a stalled one may not,
 * and a trickle stops at the total bound. The server's pauses are a fifth of the idle timeout, so a busy machine
 * has room.
 */
describe("download timeouts", () => {
  let slow: Server;
  let slowBase: string;
  const stalled: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    slow = createServer((req, res) => {
      const chunk = "x".repeat(1000);
      if (req.url === "/steady") {
        // 8 chunks 200 ms apart: 1.4 s in all, longer than the 1 s idle timeout, never idle that long.
        res.writeHead(200, { "content-type": "text/plain" });
        let sent = 0;
        const next = () => {
          res.write(chunk);
          if (++sent === 8) res.end();
          else stalled.push(setTimeout(next, 200));
        };
        next();
      } else if (req.url === "/stall") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write(chunk); // … and nothing more
      } else if (req.url === "/trickle") {
        res.writeHead(200, { "content-type": "text/plain" });
        const next = () => {
          if (res.destroyed) return;
          res.write("x");
          stalled.push(setTimeout(next, 50));
        };
        next();
      } else if (req.url === "/page") {
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end("\n  <!DOCTYPE html>\n<html><head><title>openapi.yaml · repo</title></head><body></body></html>");
      } else if (req.url === "/yaml-as-html") {
        res.writeHead(200, { "content-type": "text/html" }).end("openapi: 3.0.3\ninfo: {title: t, version: '1'}\n");
      }
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    slowBase = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const timer of stalled) clearTimeout(timer);
    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  });

  const timed = { what: "definition", maxBytes: 1_000_000, timeoutMs: 1_000, totalTimeoutMs: 60_000 };

  it("lets a steady download run past the idle timeout", async () => {
    const { body } = await download(`${slowBase}/steady`, timed);
    expect(body.byteLength).toBe(8000);
  });

  it("fails a download that stops sending, naming the idle timeout's setting", async () => {
    await expect(download(`${slowBase}/stall`, { ...timed, timeoutMs: 300 })).rejects.toThrow(
      /could not download definition from http:\/\/127\.0\.0\.1:\d+\/stall: nothing arrived for 300 ms \(the idle timeout, CYRNEL_DOWNLOAD_TIMEOUT_MS\)/,
    );
  });

  it("fails a trickle at the bound on the whole transfer, naming its setting", async () => {
    await expect(download(`${slowBase}/trickle`, { ...timed, totalTimeoutMs: 500 })).rejects.toThrow(
      /trickle: not finished after 500 ms \(CYRNEL_DOWNLOAD_TOTAL_TIMEOUT_MS\)/,
    );
  });

  it("fails a body that drips, never idle, once it has had the idle window and still averages under 1 KiB/s", async () => {
    await expect(download(`${slowBase}/trickle`, { ...timed, timeoutMs: 300 })).rejects.toThrow(
      /trickle: the body arrives at \d+ bytes\/s, under the 1024 bytes\/s a download must keep after its first 300 ms \(CYRNEL_DOWNLOAD_TIMEOUT_MS\)/,
    );
  });

  it("says plainly when a URL answers a web page instead of the document", async () => {
    const expected = { ...timed, expected: 'a document the "openapi" adapter reads' };
    await expect(downloadText(`${slowBase}/page`, expected)).rejects.toThrow(
      /^definition at http:\/\/127\.0\.0\.1:\d+\/page answered an HTML page \(text\/html\), not a document the "openapi" adapter reads: check that the URL points at the raw file/,
    );
    await expect(downloadJson(`${slowBase}/page`, { ...timed, what: "registry index" })).rejects.toThrow(
      /registry index at .* answered an HTML page \(text\/html\), not a JSON document/,
    );
    // Judged by the body: a YAML file a server labels text/html is still the document.
    expect(await downloadText(`${slowBase}/yaml-as-html`, expected)).toContain("openapi: 3.0.3");
  });
});
