import { describe, expect, it } from "vitest";
import { accountCredentials, httpCredentials, pinsAuthorization, secretEnv } from "./secrets.js";

describe("httpCredentials", () => {
  it("sends a bearer token and custom headers", () => {
    expect(httpCredentials({ bearerToken: "t0k", headers: { "X-Api-Key": "k" } })).toEqual({
      headers: { "X-Api-Key": "k", Authorization: "Bearer t0k" },
    });
  });

  it("passes OAuth client credentials on, bound to their issuer", () => {
    expect(
      httpCredentials({ oauth: { clientId: "c", clientSecret: "s", issuer: "https://auth.example", scope: "a b" } }),
    ).toEqual({
      headers: {},
      oauth: { clientId: "c", clientSecret: "s", issuer: "https://auth.example", scope: "a b" },
    });
  });

  it.each([
    [{ headers: { "Mcp-Session-Id": "x" } }, /must not set "Mcp-Session-Id"/],
    [{ headers: { authorization: "x" }, bearerToken: "t" }, /not both/],
    [{ oauth: { clientId: "c", clientSecret: "s", issuer: "i" }, bearerToken: "t" }, /supplies the Authorization/],
    [{ oauth: { clientId: "c" } }, /clientId and clientSecret/],
  ])("refuses %j", (secrets, message) => {
    expect(() => httpCredentials(secrets)).toThrow(message);
  });
});

describe("httpCredentials with secret headers and query parameters", () => {
  const oauth = { clientId: "c", clientSecret: "s", issuer: "https://auth.example" };

  it("puts the secret headers over the service's own, whatever their case, and the query on the side", () => {
    expect(
      httpCredentials(
        { bearerToken: "t0k", headers: { "X-Api-Key": "k", "X-Other": "o" } },
        { "x-api-key": "secret", "X-New": "n" },
        { api_key: "q" },
      ),
    ).toEqual({
      headers: { "X-Other": "o", Authorization: "Bearer t0k", "x-api-key": "secret", "X-New": "n" },
      query: { api_key: "q" },
    });
  });

  it("lets a secret Authorization header replace the bearer token, and OAuth, which then fetches nothing", () => {
    expect(httpCredentials({ bearerToken: "t0k" }, { authorization: "token x" })).toEqual({
      headers: { authorization: "token x" },
    });
    expect(httpCredentials({ oauth }, { Authorization: "token x" })).toEqual({ headers: { Authorization: "token x" } });
    expect(httpCredentials({ oauth }, { "X-Key": "k" })).toEqual({ headers: { "X-Key": "k" }, oauth });
  });

  it.each(["Mcp-Session-Id", "content-type", "Accept", "Last-Event-ID"])("refuses the transport's %s", (name) => {
    expect(() => httpCredentials({}, { [name]: "x" })).toThrow(`"${name}" must not be set: the MCP transport sets it`);
  });
});

describe("accountCredentials", () => {
  it("sends the account's token in place of the service's bearer token or OAuth client", () => {
    const service = httpCredentials(
      { oauth: { clientId: "c", clientSecret: "s", issuer: "i" }, headers: { A: "a" } },
      {},
      { k: "v" },
    );
    expect(accountCredentials(service, "acct")).toEqual({
      headers: { A: "a", Authorization: "Bearer acct" },
      query: { k: "v" },
    });
    expect(accountCredentials(httpCredentials({ bearerToken: "svc" }), "acct").headers).toEqual({
      Authorization: "Bearer acct",
    });
  });

  it("is not used when a secret header pins Authorization", () => {
    expect([
      pinsAuthorization({ AUTHORIZATION: "x" }),
      pinsAuthorization({ "X-Key": "k" }),
      pinsAuthorization(),
    ]).toEqual([true, false, false]);
  });
});

describe("secretEnv", () => {
  it("is the secrets' env, or nothing", () => {
    expect(secretEnv({ env: { TOKEN: "x" } })).toEqual({ TOKEN: "x" });
    expect(secretEnv({})).toEqual({});
  });
});
