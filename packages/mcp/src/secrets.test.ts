import { describe, expect, it } from "vitest";
import { httpCredentials, secretEnv } from "./secrets.js";

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

describe("secretEnv", () => {
  it("is the secrets' env, or nothing", () => {
    expect(secretEnv({ env: { TOKEN: "x" } })).toEqual({ TOKEN: "x" });
    expect(secretEnv({})).toEqual({});
  });
});
