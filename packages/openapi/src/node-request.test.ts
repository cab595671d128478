import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { send } from "./http.js";

/** GET and HEAD with a body (which fetch refuses) go out over node:http: bytes, length, redirects, HEAD. */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const seen: Seen[] = [];
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    seen.push({
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    if (request.url === "/moved") {
      response.writeHead(307, { location: "/here" });
      response.end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ echoed: seen.at(-1)?.body }));
  });
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const exchange = (method: string, path: string, body: string | FormData) => ({
  method,
  url: `${base}${path}`,
  displayUrl: `${base}${path}`,
  headers: new Headers(typeof body === "string" ? { "content-type": "application/json" } : {}),
  body,
  timeoutMs: 30_000,
  maxResponseBytes: 10 * 1024 * 1024,
  credentialHeaders: [],
  secrets: [],
});

describe("a body on GET and HEAD", () => {
  it("a GET carries its body and length, and its JSON answer is read", async () => {
    seen.length = 0;
    const reply = await send(exchange("GET", "/list?x=1", '{"Filter":{"a":"é"}}'));
    expect(reply).toMatchObject({ status: 200, body: { echoed: '{"Filter":{"a":"é"}}' } });
    expect(seen[0]).toMatchObject({ method: "GET", url: "/list?x=1", body: '{"Filter":{"a":"é"}}' });
    expect(seen[0]!.headers["content-length"]).toBe(String(Buffer.byteLength('{"Filter":{"a":"é"}}')));
    expect(seen[0]!.headers["content-type"]).toBe("application/json");
  });

  it("a 307 redirect sends the body again; a multipart body keeps its boundary", async () => {
    seen.length = 0;
    const form = new FormData();
    form.append("a", "1");
    await send(exchange("GET", "/moved", form));
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(["GET /moved", "GET /here"]);
    for (const request of seen) {
      expect(String(request.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
      expect(request.body).toContain('name="a"');
    }
  });

  it("a HEAD carries its body and resolves with no body", async () => {
    seen.length = 0;
    const reply = await send(exchange("HEAD", "/probe", "{}"));
    expect(reply).toMatchObject({ status: 200, body: null });
    expect(seen[0]).toMatchObject({ method: "HEAD", body: "{}" });
  });
});
