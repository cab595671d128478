import { describe, expect, it } from "vitest";
import { authorizationFlow } from "./authorization.js";
import { serverDomain } from "./config.js";
import { generateDefinition } from "./definition.js";

const codeFlow = (authorizationUrl: string, tokenUrl: string, scopes: Record<string, string> = {}) => ({
  type: "oauth2",
  flows: { authorizationCode: { authorizationUrl, tokenUrl, scopes } },
});
const server = (url: string, variables: Record<string, string> = {}) =>
  serverDomain({ url, variables: Object.entries(variables).map(([name, value]) => ({ name, default: value })) });

describe("authorizationFlow", () => {
  it.each([
    [
      "absolute URLs as given, scopes by name",
      {
        code: codeFlow("https://github.com/login/oauth/authorize", "https://github.com/login/oauth/access_token", {
          repo: "r",
          "read:org": "o",
        }),
      },
      null,
      {
        authorizationUrl: "https://github.com/login/oauth/authorize",
        tokenUrl: "https://github.com/login/oauth/access_token",
        scopes: ["repo", "read:org"],
      },
    ],
    [
      "relative URLs against the first server, its variables at their defaults",
      { code: codeFlow("/oauth/authorize", "oauth/token") },
      server("https://{region}.api.example.com/v1", { region: "eu" }),
      {
        authorizationUrl: "https://eu.api.example.com/oauth/authorize",
        tokenUrl: "https://eu.api.example.com/v1/oauth/token",
        scopes: [],
      },
    ],
    [
      "the first scheme with an authorization-code flow",
      {
        key: { type: "apiKey", in: "header", name: "X-Key" },
        cc: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://a/token", scopes: {} } } },
        code: codeFlow("https://a/authorize", "https://a/token", { read: "Read" }),
        later: codeFlow("https://b/authorize", "https://b/token"),
      },
      null,
      { authorizationUrl: "https://a/authorize", tokenUrl: "https://a/token", scopes: ["read"] },
    ],
  ])("%s", (_label, schemes, base, expected) => {
    expect(authorizationFlow(schemes, base)).toEqual(expected);
  });

  it.each([
    ["no OAuth2 scheme", { key: { type: "apiKey", in: "header", name: "X-Key" } }, null],
    ["relative URLs and no server", { code: codeFlow("/authorize", "/token") }, null],
    ["relative URLs and a relative server", { code: codeFlow("/authorize", "/token") }, server("/v1")],
    ["a URL of another scheme", { code: codeFlow("ftp://a/authorize", "https://a/token") }, null],
    [
      "a missing token URL",
      { code: { type: "oauth2", flows: { authorizationCode: { authorizationUrl: "https://a" } } } },
      null,
    ],
    [
      "an implicit flow only",
      { implicit: { type: "oauth2", flows: { implicit: { authorizationUrl: "https://a", scopes: {} } } } },
      null,
    ],
  ])("is left out: %s", (_label, schemes, base) => {
    expect(authorizationFlow(schemes, base)).toBeUndefined();
  });
});

describe("generateDefinition's authorization", () => {
  it("comes from an OpenAPI 3 authorizationCode flow", async () => {
    const definition = await generateDefinition(
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "T", version: "1" },
        servers: [{ url: "https://api.example.com/v2" }],
        components: { securitySchemes: { oauth: codeFlow("/authorize", "/token", { "pets:read": "Read" }) } },
        paths: {},
      }),
    );
    expect(definition.authorization).toEqual({
      authorizationUrl: "https://api.example.com/authorize",
      tokenUrl: "https://api.example.com/token",
      scopes: ["pets:read"],
    });
  });

  it("comes from a Swagger 2 accessCode flow", async () => {
    const definition = await generateDefinition(
      JSON.stringify({
        swagger: "2.0",
        info: { title: "T", version: "1" },
        host: "api.example.com",
        paths: {},
        securityDefinitions: {
          app: { type: "oauth2", flow: "application", tokenUrl: "https://auth.example.com/cc", scopes: {} },
          user: {
            type: "oauth2",
            flow: "accessCode",
            authorizationUrl: "https://auth.example.com/authorize",
            tokenUrl: "https://auth.example.com/token",
            scopes: { read: "Read", write: "Write" },
          },
        },
      }),
    );
    expect(definition.authorization).toEqual({
      authorizationUrl: "https://auth.example.com/authorize",
      tokenUrl: "https://auth.example.com/token",
      scopes: ["read", "write"],
    });
  });

  it("is absent when the document declares no such flow", async () => {
    const definition = await generateDefinition(
      JSON.stringify({ openapi: "3.0.3", info: { title: "T", version: "1" }, paths: {} }),
    );
    expect("authorization" in definition).toBe(false);
  });
});
