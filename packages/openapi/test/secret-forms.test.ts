import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { FakeHost, rejection } from "./helpers/host.js";
import { json, type Recorded, startServer, type TestServer } from "./helpers/server.js";

/**
 * A secret goes on the wire percent-encoded (query, cookie), form-encoded
 * (`+` for spaces), or base64-encoded with the user name (basic auth), and
 * an upstream that echoes the request can send any of those forms back,
 * decoded or re-encoded with lowercase hex. None of them may reach results,
 * error bodies or error messages.
 */

const QUERY_KEY = "QUERYKEY+/=abc 123";
const HEADER_KEY = "HEADER key+/=%20 x";
const COOKIE_KEY = "COOKIE;key=+/ 9";
const USER = "ada lovelace";
const PASSWORD = "pass word+/=1";
const TOKEN = "tok/en+= 42";

/** Every form a test upstream could echo a secret in (the test's own list, not the adapter's). */
function formsOf(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
  const plus = percent.replaceAll("%20", "+");
  return [secret, percent, lowerHex(percent), plus, lowerHex(plus)];
}
const FORBIDDEN = [
  ...[QUERY_KEY, HEADER_KEY, COOKIE_KEY, PASSWORD, TOKEN].flatMap(formsOf),
  Buffer.from(`${USER}:${PASSWORD}`).toString("base64"),
];

/** The request as an echoing upstream would report it, in every encoding. */
function echo(request: Recorded) {
  const lower = request.target.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
  let decoded = "";
  try {
    decoded = decodeURIComponent(request.target);
  } catch {
    decoded = "undecodable";
  }
  return {
    target: request.target,
    lower,
    plus: request.target.replaceAll("%20", "+"),
    decoded,
    headers: request.headers,
  };
}

const document = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "Echo", version: "1" },
  components: {
    securitySchemes: {
      query: { type: "apiKey", in: "query", name: "key" },
      header: { type: "apiKey", in: "header", name: "X-Key" },
      cookie: { type: "apiKey", in: "cookie", name: "session" },
      basic: { type: "http", scheme: "basic" },
      bearer: { type: "http", scheme: "bearer" },
    },
  },
  paths: {
    "/echo": {
      get: {
        operationId: "echoAll",
        security: [{ query: [], header: [], cookie: [], basic: [] }],
        responses: { "200": { description: "ok" } },
      },
      post: { operationId: "echoBearer", security: [{ bearer: [] }], responses: { "200": { description: "ok" } } },
    },
  },
});

let server: TestServer;
let host: FakeHost;

beforeAll(async () => {
  server = await startServer();
  host = new FakeHost(instantiate());
  await host.install(
    "echo",
    document,
    { baseUrl: server.url },
    {
      query: QUERY_KEY,
      header: HEADER_KEY,
      cookie: COOKIE_KEY,
      basic: { username: USER, password: PASSWORD },
      bearer: TOKEN,
    },
  );
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

function expectClean(text: string): void {
  for (const form of FORBIDDEN) expect(text, `leaked ${JSON.stringify(form)}`).not.toContain(form);
  expect(text).toContain("[redacted]");
}

describe("encoded secrets", () => {
  it("are sent encoded as their place requires", async () => {
    server.handle((_request, response) => json(response, 200, { ok: true }));
    await host.invoke("echo", "echoAll");
    const [request] = server.requests;
    expect(request!.query).toBe(`key=${encodeURIComponent(QUERY_KEY)}`);
    expect(request!.headers["x-key"]).toBe(HEADER_KEY);
    expect(request!.headers.cookie).toBe(`session=${encodeURIComponent(COOKIE_KEY)}`);
  });

  it.each(["echoAll", "echoBearer"])("%s: never come back in results, in any encoding", async (tool) => {
    server.handle((request, response) => json(response, 200, echo(request)));
    expectClean(JSON.stringify(await host.invoke("echo", tool)));
  });

  it.each(["echoAll", "echoBearer"])(
    "%s: never come back in error bodies or messages, in any encoding",
    async (tool) => {
      server.handle((request, response) => {
        // The reason phrase is the upstream's to choose, and ends up in the message.
        response.statusMessage = `Bad ${request.target} ${String(request.headers.authorization)}`;
        json(response, 400, echo(request));
      });
      const error = await rejection(host.invoke("echo", tool));
      expect(error.status).toBe(400);
      expectClean(JSON.stringify(error.body));
      for (const form of FORBIDDEN) expect(error.message).not.toContain(form);
    },
  );

  it("never come back in text bodies either", async () => {
    server.handle((request, response) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(Object.values(echo(request)).join("\n"));
    });
    const error = await rejection(host.invoke("echo", "echoAll"));
    expectClean(String(error.body));
  });
});
