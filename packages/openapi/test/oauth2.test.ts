import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OpenApiAdapter } from "../src/adapter.js";
import { FakeHost, rejection } from "./helpers/host.js";
import { json, type Recorded, startServer, type TestServer } from "./helpers/server.js";

/**
 * OAuth2 client credentials against a real local token endpoint: the token
 * is fetched once, cached, refreshed after expiry (driven by an injected
 * clock, no sleeps), and re-fetched when the API rejects a cached one.
 */

let server: TestServer;
let tokenCount = 0;
let expiresIn: number | undefined = 3600;
let tokenStatus = 200;
let revoked = new Set<string>();

const document = (tokenUrl: string) =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "OAuth", version: "1" },
    servers: [{ url: "http://placeholder.invalid" }],
    components: {
      securitySchemes: {
        cc: {
          type: "oauth2",
          flows: { clientCredentials: { tokenUrl, scopes: { "read:pets": "read", write: "write" } } },
        },
      },
    },
    security: [{ cc: ["read:pets", "write"] }],
    paths: { "/pets": { get: { operationId: "listPets", responses: { "200": { description: "ok" } } } } },
  });

const tokenRequests = () => server.requests.filter((request) => request.path === "/token");
const apiRequests = () => server.requests.filter((request) => request.path === "/pets");
const sentAuth = () => apiRequests().map((request) => request.headers.authorization);

function handler(request: Recorded, response: Parameters<Parameters<TestServer["handle"]>[0]>[1]) {
  if (request.path === "/token") {
    if (tokenStatus !== 200)
      return json(response, tokenStatus, { error: "invalid_client", error_description: "bad secret s3cr3t!" });
    tokenCount += 1;
    return json(response, 200, {
      access_token: `token-${tokenCount}`,
      token_type: "Bearer",
      ...(expiresIn ? { expires_in: expiresIn } : {}),
    });
  }
  const auth = String(request.headers.authorization ?? "");
  if (revoked.has(auth)) return json(response, 401, { error: "revoked" });
  return json(response, 200, { ok: true });
}

beforeAll(async () => {
  server = await startServer(handler);
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.handle(handler);
  tokenCount = 0;
  expiresIn = 3600;
  tokenStatus = 200;
  revoked = new Set();
});

async function setup(secret: Record<string, unknown>, tokenUrl = `${server.url}/token`) {
  let now = 1_000_000;
  const clock = {
    advance(ms: number) {
      now += ms;
    },
  };
  const host = new FakeHost(new OpenApiAdapter(() => now));
  await host.install("svc", document(tokenUrl), { baseUrl: server.url }, { cc: secret });
  return { host, clock };
}

const secret = { clientId: "my client", clientSecret: "s3cr3t!" };

describe("OAuth2 client credentials", () => {
  it("fetches a token once with the client authenticated by HTTP basic, then reuses it", async () => {
    const { host } = await setup(secret);
    await host.invoke("svc", "listPets");
    await host.invoke("svc", "listPets");
    expect(sentAuth()).toEqual(["Bearer token-1", "Bearer token-1"]);
    expect(tokenRequests()).toHaveLength(1);
    const [token] = tokenRequests();
    expect(token!.method).toBe("POST");
    expect(token!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(token!.headers.authorization).toBe(`Basic ${Buffer.from("my+client:s3cr3t!").toString("base64")}`);
    expect(token!.body.toString()).toBe("grant_type=client_credentials&scope=read%3Apets+write");
  });

  it("refreshes after expiry", async () => {
    const { host, clock } = await setup(secret);
    await host.invoke("svc", "listPets");
    clock.advance(3_600_000 - 30_001);
    await host.invoke("svc", "listPets");
    clock.advance(2);
    await host.invoke("svc", "listPets");
    await host.invoke("svc", "listPets");
    expect(sentAuth()).toEqual(["Bearer token-1", "Bearer token-1", "Bearer token-2", "Bearer token-2"]);
    expect(tokenRequests()).toHaveLength(2);
  });

  it("short-lived tokens are refreshed a tenth of their lifetime early", async () => {
    expiresIn = 10;
    const { host, clock } = await setup(secret);
    await host.invoke("svc", "listPets");
    clock.advance(8_999);
    await host.invoke("svc", "listPets");
    clock.advance(1);
    await host.invoke("svc", "listPets");
    expect(sentAuth()).toEqual(["Bearer token-1", "Bearer token-1", "Bearer token-2"]);
  });

  it("concurrent calls share one token request", async () => {
    const { host } = await setup(secret);
    await Promise.all([host.invoke("svc", "listPets"), host.invoke("svc", "listPets"), host.invoke("svc", "listPets")]);
    expect(tokenRequests()).toHaveLength(1);
    expect(apiRequests()).toHaveLength(3);
  });

  it("a cached token the API rejects with 401 is replaced once, credentials kept", async () => {
    const { host } = await setup(secret);
    await host.invoke("svc", "listPets");
    revoked.add("Bearer token-1");
    expect(await host.invoke("svc", "listPets")).toEqual({ ok: true });
    revoked.add("Bearer token-2");
    revoked.add("Bearer token-3");
    const error = await rejection(host.invoke("svc", "listPets"));
    expect(error.status).toBe(401);
    expect(sentAuth()).toEqual([
      "Bearer token-1",
      "Bearer token-1",
      "Bearer token-2",
      "Bearer token-2",
      "Bearer token-3",
    ]);
  });

  it("client_secret_post when asked, and relative token URLs resolve against the base URL", async () => {
    const { host } = await setup({ ...secret, clientAuthentication: "body" }, "/token");
    await host.invoke("svc", "listPets");
    const [token] = tokenRequests();
    expect(token!.headers.authorization).toBeUndefined();
    expect(token!.body.toString()).toBe(
      "grant_type=client_credentials&scope=read%3Apets+write&client_id=my+client&client_secret=s3cr3t!",
    );
  });

  it("a ready access token is used as is, without a token request", async () => {
    const { host } = await setup({ accessToken: "given" });
    await host.invoke("svc", "listPets");
    expect(sentAuth()).toEqual(["Bearer given"]);
    expect(tokenRequests()).toHaveLength(0);
  });

  it("the token never reaches the caller, even when the API echoes it", async () => {
    const { host } = await setup(secret);
    server.handle((request, response) =>
      request.path === "/token"
        ? handler(request, response)
        : json(response, 200, { auth: request.headers.authorization }),
    );
    expect(await host.invoke("svc", "listPets")).toEqual({ auth: "Bearer [redacted]" });
  });

  it("a token endpoint failure names the endpoint and the OAuth error, never the secret", async () => {
    tokenStatus = 401;
    const { host } = await setup(secret);
    const error = await rejection(host.invoke("svc", "listPets"));
    expect(error.message).toBe(`OAuth2 token request to ${server.url}/token failed: 401 Unauthorized (invalid_client)`);
    expect(apiRequests()).toHaveLength(0);
  });

  it("re-hydrating drops cached tokens", async () => {
    const { host } = await setup(secret);
    await host.invoke("svc", "listPets");
    await host.configure("svc", { baseUrl: server.url }, { cc: secret });
    await host.invoke("svc", "listPets");
    expect(tokenRequests()).toHaveLength(2);
  });

  it("tokens without expires_in are kept until the service is re-hydrated", async () => {
    expiresIn = undefined;
    const { host, clock } = await setup(secret);
    await host.invoke("svc", "listPets");
    clock.advance(365 * 24 * 3_600_000);
    await host.invoke("svc", "listPets");
    expect(tokenRequests()).toHaveLength(1);
  });
});
