import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, startHost, type TestHost } from "./support/host.js";

/**
 * Secret headers and query parameters through the whole host: an API whose
 * OpenAPI document declares no security scheme (as GitHub's REST
 * description) and that answers 401 unless it gets `Authorization: token
 * <X>` and `?api_key=<Y>`. The operator sets both as secrets named
 * `header:Authorization` and `query:api_key`; the bundled openapi adapter
 * sends them on every request, and they are write-only and masked like any
 * secret.
 */
const TOKEN = "ghp_e2eSecretToken1234";
const QUERY_KEY = "e2e-query-key-5678";

interface Received {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

let host: TestHost;
let upstream: Server;
let upstreamUrl = "";
const received: Received[] = [];
/** Every answer the host gave, to check that no secret value ever left it. */
const answers: string[] = [];

const api = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
  const response = await host.api(method, path, body);
  answers.push(response.text);
  return response;
};

function document(url: string): string {
  const answer = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "No declared security", version: "1.0.0" },
    servers: [{ url }],
    paths: {
      "/repos/{owner}": {
        get: {
          operationId: "getRepo",
          parameters: [{ name: "owner", in: "path", required: true, schema: { type: "string" } }],
          responses: answer,
        },
      },
      "/complain": {
        get: {
          operationId: "complain",
          summary: "Refuses every call, quoting what it got",
          parameters: [{ name: "note", in: "query", schema: { type: "string" } }],
          responses: answer,
        },
      },
    },
  });
}

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://upstream");
    received.push({ path: url.pathname, query: url.searchParams, headers: request.headers });
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (request.headers.authorization !== `token ${TOKEN}` || url.searchParams.get("api_key") !== QUERY_KEY) {
      return send(401, { message: "Bad credentials" });
    }
    if (url.pathname === "/complain") {
      // An upstream that quotes the request back: the credentials, whole and without their scheme.
      return send(422, {
        message: `credentials ${TOKEN} are not allowed`,
        authorization: request.headers.authorization,
        query: url.search,
      });
    }
    send(200, { owner: url.pathname.split("/")[2] });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  host = await startHost();
  const installed = await api("POST", "/services", {
    id: "gh",
    adapter: "openapi",
    definition: document(upstreamUrl),
  });
  expect(installed.status, installed.text).toBe(201);
  expect(installed.body.secretsSchema.properties).toEqual({});
});

afterAll(async () => {
  await host?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe("secret headers and query parameters of an API that declares no security", () => {
  it.each([
    [{ "header:Bad Name": "x" }, `"Bad Name" is not a valid header name`],
    [{ "header:Host": "evil.example" }, `"Host" frames the message or the connection`],
    [{ "header:Transfer-Encoding": "chunked" }, `"Transfer-Encoding" frames the message`],
    [{ "header:Authorization": 42 }, "the value of a secret header must be a string"],
    [{ "query:api_key": ["a"] }, "the value of a secret query parameter must be a string"],
  ])("refuse %j with 400 validation_failed, and store nothing", async (patch, message) => {
    const response = await api("PATCH", "/services/gh/secrets", { ...patch, "header:X-Also": "not-stored" });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe("validation_failed");
    expect(response.body.error).toContain(message);
    expect((await api("GET", "/services/gh/secrets")).body).toEqual({ set: [] });
  });

  it("without them, the upstream's 401 reaches the caller with its status", async () => {
    expect((await api("POST", "/services/gh/enabled", { enabled: true })).status).toBe(200);
    const refused = await api("POST", "/tools/gh/getRepo/invoke", { parameters: { owner: "octo" } });
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.code).toBe("adapter_error");
    expect(refused.body.details).toMatchObject({ status: 401, body: { message: "Bad credentials" } });
  });

  it("set by name, are sent on every request of the enabled service", async () => {
    const set = await api("PATCH", "/services/gh/secrets", {
      "header:Authorization": `token ${TOKEN}`,
      "query:api_key": QUERY_KEY,
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ set: ["header:Authorization", "query:api_key"] });

    received.length = 0;
    const call = await api("POST", "/tools/gh/getRepo/invoke", { parameters: { owner: "octo" } });
    expect(call.status, call.text).toBe(200);
    expect(call.body.result).toEqual({ owner: "octo" });
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.authorization).toBe(`token ${TOKEN}`);
    expect(received[0]!.query.get("api_key")).toBe(QUERY_KEY);
  });

  it("are listed by name only, and never part of the config", async () => {
    expect((await api("GET", "/services/gh/secrets")).body).toEqual({ set: ["header:Authorization", "query:api_key"] });
    const config = await api("GET", "/services/gh/config");
    expect(config.status).toBe(200);
    expect(config.text).not.toContain("header:");
    expect(config.text).not.toContain("query:");
  });

  it("are masked in an error's body and in the call record's parameters", async () => {
    const failed = await api("POST", "/tools/gh/complain/invoke", { parameters: { note: TOKEN } });
    expect(failed.status, failed.text).toBe(502);
    expect(failed.body.details.status).toBe(422);
    expect(failed.body.details.body).toMatchObject({ authorization: "[redacted]" });
    expect(failed.body.details.body.message).toBe("credentials [redacted] are not allowed");
    // What the upstream received was the real thing.
    expect(received.at(-1)!.query.get("note")).toBe(TOKEN);

    // The note is the token without its scheme: masked as the credentials of the secret header.
    const calls = await api("GET", "/calls?serviceId=gh&toolId=complain&limit=10");
    expect(calls.status, calls.text).toBe(200);
    expect(calls.body.items).toHaveLength(1);
    expect(calls.body.items[0]).toMatchObject({
      outcome: "adapter_error",
      status: 422,
      parameters: { note: "[redacted]" },
    });
  });

  it("never leave the host in any answer", () => {
    for (const text of answers) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(QUERY_KEY);
    }
  });
});
