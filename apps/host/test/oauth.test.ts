import { createServer } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoWeather } from "../../../examples/demo-weather/src/server.mjs";
import { type ApiResponse, startHost, type TestHost } from "./support/host.js";
import { startIssuer, type TestIssuer } from "./support/oidc-provider.js";

/**
 * The host as an OAuth 2.1 resource server, end to end: a real OpenID
 * provider (oidc-provider) in this process issues JWT access tokens for the
 * host, and the MCP TypeScript SDK client signs in with its own OAuth flow
 * (protected resource metadata, authorization server discovery, dynamic
 * client registration, PKCE) and then lists tools and runs code. Tokens the
 * flow does not produce (expired, for another audience or issuer, signed by
 * another key, unsigned, without a role scope) are minted with the
 * provider's key and refused. A static key keeps working beside OAuth.
 */
const API_KEY = "oauth-test-admin-key";
const SUBJECT = "alice";
const BURST = 30;

let weather: Awaited<ReturnType<typeof startDemoWeather>>;
let issuer: TestIssuer;
let host: TestHost;
let resource: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  weather = await startDemoWeather();
  const port = await freePort();
  resource = `http://127.0.0.1:${port}`;
  issuer = await startIssuer({ resource, subject: SUBJECT });
  host = await startHost({
    env: {
      CYRNEL_API_KEY: API_KEY,
      CYRNEL_PORT: String(port),
      CYRNEL_ADVERTISE_URL: resource,
      CYRNEL_OAUTH_ISSUER: issuer.url,
      CYRNEL_KEY_REQUESTS_BURST: String(BURST),
      CYRNEL_KEY_REQUESTS_PER_SECOND: "1",
    },
  });
  const installed = await host.api("POST", "/services", {
    id: "weather",
    adapter: "openapi",
    url: `${weather.url}/openapi.json`,
    enabled: true,
  });
  expect(installed.status, installed.text).toBe(201);
});
afterAll(async () => {
  await host?.stop();
  await issuer?.close();
  await weather?.close();
});

const now = () => Math.floor(Date.now() / 1000);
/** A token as the provider would issue it for the host, for `sub`, with `claims` changed. */
const token = (sub: string, claims: Record<string, unknown> = {}) =>
  issuer.sign({
    iss: issuer.url,
    aud: resource,
    sub,
    scope: "cyrnel:agent",
    iat: now(),
    exp: now() + 600,
    ...claims,
  });
const withToken = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
const challenge = () =>
  `Bearer realm="cyrnel", resource_metadata="${resource}/.well-known/oauth-protected-resource", scope="cyrnel:agent"`;

const FORECAST_PROGRAM = `
const cities = await cyrnel.services.weather.tools.listCities.invoke({ country: "NO" });
console.log("cities: " + cities.length);
return cities.map((city) => city.id);
`;

/** What an MCP client application keeps between its OAuth steps, in memory; the redirect is captured. */
class MemoryOAuthClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly redirectUrl = "http://127.0.0.1:1/callback";
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "cyrnel oauth test",
    redirect_uris: [this.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("protected resource metadata", () => {
  it("names the issuer and the resource, without a key, at both paths", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const response = await host.api("GET", path, undefined, { authorization: "" });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        resource,
        authorization_servers: [issuer.url],
        bearer_methods_supported: ["header"],
        scopes_supported: ["cyrnel:agent", "cyrnel:admin"],
        resource_name: "cyrnel",
      });
    }
  });

  it("is published as a public route in /openapi.json", async () => {
    const document = await host.api("GET", "/openapi.json");
    const operation = document.body.paths["/.well-known/oauth-protected-resource"].get;
    expect(operation["x-cyrnel-access"]).toBe("public");
  });

  it("is named by every 401", async () => {
    const missing = await fetch(`${host.url}/processes`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(challenge());
    const mcp = await fetch(`${host.url}/mcp`, { method: "POST", body: "{}" });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toBe(challenge());
  });
});

describe("an MCP client that knows only OAuth", () => {
  it("signs in with the SDK's own flow, lists tools and runs code as oauth:<sub>", async () => {
    const oauth = new MemoryOAuthClient();
    const first = new Client({ name: "oauth-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { authProvider: oauth });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // The SDK discovered the issuer, registered itself and sent the user agent to authorize with PKCE.
    expect(oauth.information?.client_id).toEqual(expect.any(String));
    const url = oauth.authorizationUrl!;
    expect(url.origin).toBe(issuer.url);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toMatch(new RegExp(`^${resource}/?$`));
    await transport.finishAuth(await issuer.authorize(url));
    expect(oauth.saved?.access_token.split(".")).toHaveLength(3);

    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { authProvider: oauth }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("run_code");
      const result = (await client.callTool({
        name: "run_code",
        arguments: { code: FORECAST_PROGRAM },
      })) as CallToolResult;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ exitState: "success", stdout: "cities: 2\n" });
      const processId = (result.structuredContent as { id: number }).id;

      // The static admin key sees who created the process and made its calls.
      const process = await host.api("GET", `/processes/${processId}`);
      expect(process.body.keyId).toBe(`oauth:${SUBJECT}`);
      const calls = await host.api("GET", `/processes/${processId}/calls`);
      expect(calls.body.items.length).toBeGreaterThan(0);
      for (const call of calls.body.items) expect(call.keyId).toBe(`oauth:${SUBJECT}`);
    } finally {
      await client.close();
    }
  });
});

describe("bearer tokens", () => {
  it("an agent token reaches agent routes, not admin ones", async () => {
    const bearer = await token("dave");
    expect((await host.api("GET", "/services", undefined, withToken(bearer))).status).toBe(200);
    const keys = await host.api("GET", "/keys", undefined, withToken(bearer));
    expect(keys.status).toBe(403);
  });

  it("cyrnel:admin makes an admin; cyrnel:service:<id> narrows an agent to those services", async () => {
    const admin = await token("erin", { scope: "cyrnel:admin" });
    expect((await host.api("GET", "/keys", undefined, withToken(admin))).status).toBe(200);
    // The claim may be an array (as `scp`) too.
    const narrowed = await token("frank", { scope: ["cyrnel:agent", "cyrnel:service:other"] });
    const services = await host.api("GET", "/services", undefined, withToken(narrowed));
    expect(services.status, services.text).toBe(200);
    expect(services.body.items.map((service: { id: string }) => service.id)).toEqual([]);
    const weatherToken = await token("frank", { scope: "cyrnel:agent cyrnel:service:weather" });
    const seen = await host.api("GET", "/services", undefined, withToken(weatherToken));
    expect(seen.body.items.map((service: { id: string }) => service.id)).toEqual(["weather"]);
  });

  it("a token without a role scope is 403 naming the scope", async () => {
    const response = await host.api("GET", "/services", undefined, withToken(await token("gina", { scope: "openid" })));
    expect(response.status).toBe(403);
    expect(response.body.code).toBe("forbidden");
    expect(response.body.error).toContain("cyrnel:agent");
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer realm="cyrnel", error="insufficient_scope", scope="cyrnel:agent", resource_metadata="${resource}/.well-known/oauth-protected-resource"`,
    );
  });

  const refusals: [string, () => Promise<string>, string][] = [
    ["expired", () => token("henry", { iat: now() - 7200, exp: now() - 3600 }), "expired"],
    ["not yet valid", () => token("henry", { nbf: now() + 3600 }), "not valid yet"],
    ["that never expires (no exp)", () => token("henry", { exp: undefined }), '"exp" claim'],
    ["for another audience", () => token("henry", { aud: "https://elsewhere.example" }), "audience"],
    ["from another issuer", () => token("henry", { iss: "https://issuer.example" }), "another issuer"],
    [
      "signed by another key (same kid)",
      async () => {
        const { privateKey } = await generateKeyPair("RS256");
        return issuer.sign(
          { iss: issuer.url, aud: resource, sub: "henry", scope: "cyrnel:agent", exp: now() + 600 },
          { key: privateKey },
        );
      },
      "signature",
    ],
    [
      "signed by a key the issuer does not publish",
      async () => {
        const { privateKey } = await generateKeyPair("RS256");
        return issuer.sign(
          { iss: issuer.url, aud: resource, sub: "henry", scope: "cyrnel:agent", exp: now() + 600 },
          { key: privateKey, kid: "unknown-kid" },
        );
      },
      "signature",
    ],
    [
      "unsigned (alg none)",
      async () => {
        const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
        return `${part({ alg: "none", typ: "JWT" })}.${part({ iss: issuer.url, aud: resource, sub: "henry", scope: "cyrnel:agent", exp: now() + 600 })}.`;
      },
      "algorithm",
    ],
  ];
  for (const [name, make, reason] of refusals) {
    it(`refuses a token ${name}: 401 with the challenge, never echoing the token`, async () => {
      const bearer = await make();
      const response = await host.api("GET", "/services", undefined, withToken(bearer));
      expect(response.status, response.text).toBe(401);
      expect(response.body.code).toBe("unauthorized");
      expect(response.body.error).toContain(reason);
      expect(response.headers.get("www-authenticate")).toBe(challenge());
      expect(response.text).not.toContain(bearer);
      expect(host.output.join("\n")).not.toContain(bearer);
    });
  }

  it("the static key still works beside OAuth, and a wrong key is refused as before", async () => {
    expect((await host.api("GET", "/keys")).status).toBe(200);
    const wrong = await host.api("GET", "/services", undefined, withToken("not-a-key"));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid API key");
  });

  it("per-key request limits apply to an OAuth subject by its id", async () => {
    const bearer = await token("ivan");
    let limited: ApiResponse | undefined;
    for (let sent = 0; sent <= BURST + 1 && limited === undefined; sent++) {
      const response = await host.api("GET", "/services", undefined, withToken(bearer));
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(200);
    }
    expect(limited?.body.code).toBe("rate_limited");
    // Another subject has its own bucket.
    expect((await host.api("GET", "/services", undefined, withToken(await token("judy")))).status).toBe(200);
  });
});

describe("processes of an OAuth subject", () => {
  it("call tools while the subject's latest token is valid, and are refused 403 once it expired", async () => {
    const shortLived = await token("kate", { exp: now() + 2 });
    const created = await host.api(
      "POST",
      "/processes",
      { code: FORECAST_PROGRAM, block: true },
      withToken(shortLived),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ exitState: "success", keyId: "oauth:kate" });
    const id = created.body.id as number;

    // Run again (by the admin) once kate's only token has expired: its tool call is refused, saying why.
    await expect
      .poll(async () => {
        const rerun = await host.api("POST", `/processes/${id}/signals/run`, {
          force: true,
          block: true,
          typecheck: false,
        });
        return `${rerun.body.exitState} ${rerun.body.error}`;
      })
      .toMatch(/^failed .*access token of "oauth:kate" that this process runs with expired at/);

    // A newer token of the same subject (a refresh) lets its processes call again.
    expect((await host.api("GET", "/services", undefined, withToken(await token("kate")))).status).toBe(200);
    const again = await host.api("POST", `/processes/${id}/signals/run`, {
      force: true,
      block: true,
      typecheck: false,
    });
    expect(again.body, again.text).toMatchObject({ exitState: "success" });
  });
});
