import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { FakeHost, rejection, type SecretOverrides } from "./helpers/host.js";
import { json, type Recorded, startServer, type TestServer } from "./helpers/server.js";

/**
 * The operator's secret headers and query parameters (`ServiceState.secretHeaders` / `secretQuery`) and a
 * connected account's access token (`InvokeInput.accessToken`), against real HTTP servers: what arrives on the
 * wire, what is scrubbed from what comes back, and what never reaches another origin.
 */

let server: TestServer;
let other: TestServer;
let host: FakeHost;

const ok = { "200": { description: "ok" } };
const text = { type: "string" };

function document(ccTokenUrl: string): string {
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Overrides", version: "1" },
    servers: [{ url: "http://placeholder.invalid" }],
    components: {
      securitySchemes: {
        key: { type: "apiKey", in: "query", name: "api_key" },
        headerKey: { type: "apiKey", in: "header", name: "X-Key" },
        basic: { type: "http", scheme: "basic" },
        code: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: "https://auth.example.com/authorize",
              tokenUrl: "https://auth.example.com/token",
              scopes: { repo: "Repositories" },
            },
          },
        },
        cc: { type: "oauth2", flows: { clientCredentials: { tokenUrl: ccTokenUrl, scopes: {} } } },
      },
    },
    paths: {
      "/open": {
        get: {
          operationId: "open",
          parameters: [
            { name: "api_key", in: "query", schema: text },
            { name: "page", in: "query", schema: { type: "integer" } },
            { name: "X-Trace", in: "header", schema: text },
          ],
          responses: ok,
        },
      },
      "/keyed": { get: { operationId: "keyed", security: [{ key: [] }], responses: ok } },
      "/header-keyed": { get: { operationId: "headerKeyed", security: [{ headerKey: [] }], responses: ok } },
      "/either": { get: { operationId: "either", security: [{ basic: [] }, { code: ["repo"] }], responses: ok } },
      "/coded": { get: { operationId: "coded", security: [{ code: ["repo"] }], responses: ok } },
      "/cc": { get: { operationId: "clientCredentials", security: [{ cc: [] }], responses: ok } },
    },
  });
}

const ECHO_TOKEN = "ghp_secretheader1234";
const QUERY_SECRET = "q-secret 1/2";

beforeAll(async () => {
  [server, other] = await Promise.all([startServer(), startServer()]);
});
afterAll(async () => {
  await Promise.all([server.close(), other.close()]);
});
afterEach(() => {
  for (const each of [server, other]) {
    each.requests.length = 0;
    each.handle((_request, response) => json(response, 200, { ok: true }));
  }
});

const last = (of: TestServer = server): Recorded => {
  const request = of.requests.at(-1);
  if (!request) throw new Error("the server received no request");
  return request;
};

async function install(
  secrets: Record<string, unknown> = {},
  overrides: SecretOverrides = {},
  config: Record<string, unknown> = {},
  ccTokenUrl = `${other.url}/token`,
): Promise<void> {
  host = new FakeHost(instantiate());
  await host.install("svc", document(ccTokenUrl), { baseUrl: server.url, ...config }, secrets, overrides);
}

describe("secret headers", () => {
  it("go on every request, in place of config headers, header parameters and credentials of the same name", async () => {
    await install(
      { headerKey: "scheme-key", basic: { username: "ada", password: "lovelace" } },
      {
        secretHeaders: {
          "X-Client": "secret-client",
          Authorization: `token ${ECHO_TOKEN}`,
          "x-key": "override-key",
          "x-trace": "secret-trace",
        },
      },
      { headers: { "x-client": "config-client", "X-Other": "kept" } },
    );
    await host.invoke("svc", "open", { "X-Trace": "from-the-caller" });
    expect(last().headers).toMatchObject({
      "x-client": "secret-client",
      "x-other": "kept",
      authorization: `token ${ECHO_TOKEN}`,
      "x-trace": "secret-trace",
      "x-key": "override-key",
    });
    await host.invoke("svc", "headerKeyed");
    expect([last().headers["x-key"], last().headers.authorization]).toEqual(["override-key", `token ${ECHO_TOKEN}`]);
    // Over basic's Authorization too: the operator's header wins over every scheme.
    await host.invoke("svc", "either");
    expect(last().headers.authorization).toBe(`token ${ECHO_TOKEN}`);
  });

  it("are refused at hydrate when the HTTP client frames the message with them or cannot send them, value unsaid", async () => {
    for (const [headers, says] of [
      [{ Host: "evil.example" }, `"Host" must not be set: framing headers`],
      [{ "content-length": "0" }, `"content-length" must not be set`],
      [{ "X-Split": "a\r\nX-Injected: hidden-value" }, `"X-Split" must not contain line breaks`],
      [{ "bad name": "hidden-value" }, `"bad name" is not a header the HTTP client can send`],
    ] as const) {
      const error = await rejection(install({}, { secretHeaders: headers }));
      expect(error.message).toContain(says);
      expect(error.message).not.toContain("hidden-value");
    }
  });
});

describe("secret query parameters", () => {
  it("are added to every URL, in place of a parameter or credential of the same name", async () => {
    await install({ key: "scheme-query-key" }, { secretQuery: { api_key: QUERY_SECRET, "x y": "z" } });
    await host.invoke("svc", "open", { api_key: "from-the-caller", page: 2 });
    expect(last().query).toBe("page=2&api_key=q-secret%201%2F2&x%20y=z");
    await host.invoke("svc", "keyed");
    expect(last().query).toBe("api_key=q-secret%201%2F2&x%20y=z");
  });
});

describe("secret headers and query parameters as credentials", () => {
  beforeAll(async () => {
    await install(
      {},
      { secretHeaders: { Authorization: `token ${ECHO_TOKEN}` }, secretQuery: { api_key: QUERY_SECRET } },
      { followCrossOriginRedirects: true },
    );
  });

  it("are scrubbed from results, error bodies and messages, a header's credentials also without its scheme", async () => {
    server.handle((request, response) =>
      json(response, 200, { headers: request.headers, target: request.target, quoted: `bad token ${ECHO_TOKEN}` }),
    );
    const result = JSON.stringify(await host.invoke("svc", "open"));
    expect(result).not.toContain(ECHO_TOKEN);
    expect(result).not.toContain("q-secret");
    expect(result).toContain("[redacted]");

    server.handle((request, response) =>
      json(response, 401, { message: `credentials ${ECHO_TOKEN} refused`, target: request.target }),
    );
    const error = await rejection(host.invoke("svc", "open", { page: 1 }));
    expect(error.status).toBe(401);
    expect(error.message).toBe(`GET ${server.url}/open?page=1 → 401 Unauthorized`);
    expect(JSON.stringify(error.body)).not.toContain(ECHO_TOKEN);
    expect(JSON.stringify(error.body)).not.toContain("q-secret");
  });

  it("stay behind on a cross-origin redirect", async () => {
    server.handle((_request, response) => {
      response.writeHead(302, { location: `${other.url}/elsewhere` });
      response.end();
    });
    expect(await host.invoke("svc", "open")).toEqual({ ok: true });
    expect(last().headers.authorization).toBe(`token ${ECHO_TOKEN}`);
    expect(last().query).toBe("api_key=q-secret%201%2F2");
    expect(other.requests.map((request) => [request.target, request.headers.authorization])).toEqual([
      ["/elsewhere", undefined],
    ]);
  });
});

describe("OAuth2 token requests", () => {
  const tokenEndpoint = (request: Recorded, response: Parameters<Parameters<TestServer["handle"]>[0]>[1]) =>
    request.path === "/token"
      ? json(response, 200, { access_token: "fetched-token", expires_in: 3600 })
      : json(response, 200, { ok: true });
  const cc = { cc: { clientId: "client", clientSecret: "client-secret" } };
  const overrides = { secretHeaders: { "X-Gateway": "gateway-secret" } };

  it("to another origin never carry the secret headers", async () => {
    other.handle(tokenEndpoint);
    await install(cc, overrides);
    await host.invoke("svc", "clientCredentials");
    expect(last(other).path).toBe("/token");
    expect(last(other).headers["x-gateway"]).toBeUndefined();
    expect([last().headers.authorization, last().headers["x-gateway"]]).toEqual([
      "Bearer fetched-token",
      "gateway-secret",
    ]);
  });

  it("to the API's own origin carry them, under the token request's own headers", async () => {
    server.handle(tokenEndpoint);
    await install(cc, { secretHeaders: { ...overrides.secretHeaders, Accept: "text/plain" } }, {}, "/token");
    await host.invoke("svc", "clientCredentials");
    const token = server.requests.find((request) => request.path === "/token")!;
    expect(token.headers["x-gateway"]).toBe("gateway-secret");
    expect(token.headers.accept).toBe("application/json");
    expect(token.headers.authorization).toBe(`Basic ${Buffer.from("client:client-secret").toString("base64")}`);
  });
});

describe("a connected account's access token", () => {
  const call = (toolId: string, accessToken?: string) => host.invoke("svc", toolId, {}, undefined, accessToken);

  it("is the token of every OAuth2 scheme, in place of the operator's secret", async () => {
    await install({ code: { accessToken: "operator-token" } });
    await call("coded", "account-token");
    expect(last().headers.authorization).toBe("Bearer account-token");
    await call("coded");
    expect(last().headers.authorization).toBe("Bearer operator-token");
  });

  it("makes an alternative that uses it the one chosen", async () => {
    await install({ basic: { username: "ada", password: "lovelace" } });
    await call("either", "account-token");
    expect(last().headers.authorization).toBe("Bearer account-token");
    await call("either");
    expect(last().headers.authorization).toMatch(/^Basic /);
  });

  it("stands in for client credentials: no token request", async () => {
    await install({ cc: { clientId: "client", clientSecret: "client-secret" } });
    await call("clientCredentials", "account-token");
    expect(last().headers.authorization).toBe("Bearer account-token");
    expect(other.requests).toEqual([]);
  });

  it("goes as Authorization: Bearer where the operation uses no OAuth2 scheme, or no security at all", async () => {
    await install({ key: "scheme-query-key", headerKey: "scheme-header-key" });
    await call("open", "account-token");
    expect(last().headers.authorization).toBe("Bearer account-token");
    await call("keyed", "account-token");
    expect([last().headers.authorization, last().query]).toEqual(["Bearer account-token", "api_key=scheme-query-key"]);
    await call("open");
    expect(last().headers.authorization).toBeUndefined();
  });

  it("gives way to a secret Authorization header", async () => {
    await install({}, { secretHeaders: { authorization: `token ${ECHO_TOKEN}` } });
    await call("open", "account-token");
    expect(last().headers.authorization).toBe(`token ${ECHO_TOKEN}`);
    await call("coded", "account-token");
    expect(last().headers.authorization).toBe(`token ${ECHO_TOKEN}`);
  });

  it("refused by the upstream surfaces as status 401, the token scrubbed", async () => {
    await install();
    server.handle((request, response) => json(response, 401, { refused: request.headers.authorization }));
    const error = await rejection(call("coded", "account-token-expired"));
    expect(error.status).toBe(401);
    expect(error.body).toEqual({ refused: "Bearer [redacted]" });
    const again = await rejection(call("open", "account-token-expired"));
    expect([again.status, again.body]).toEqual([401, { refused: "Bearer [redacted]" }]);
  });
});
