import { describe, expect, it } from "vitest";
import { hostAjv } from "../test/helpers/ajv.js";
import {
  credentialsFor,
  type SchemeDomain,
  schemeDomains,
  secretsSchema,
  selectAlternative,
  withAccessToken,
} from "./auth.js";
import type { SecurityAlternative } from "./operations.js";

const raw = {
  key_header: { type: "apiKey", in: "header", name: "X-API-KEY", description: "From the dashboard." },
  key_query: { type: "apiKey", in: "query", name: "api_key" },
  key_cookie: { type: "apiKey", in: "cookie", name: "session" },
  bearer: { type: "http", scheme: "Bearer", bearerFormat: "JWT" },
  basic: { type: "http", scheme: "basic" },
  digest: { type: "http", scheme: "digest" },
  cc: {
    type: "oauth2",
    flows: { clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "Read" } } },
  },
  code: {
    type: "oauth2",
    flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: {} } },
  },
  oidc: { type: "openIdConnect", openIdConnectUrl: "https://a/.well-known/openid-configuration" },
  mtls: { type: "mutualTLS" },
};
const domains = schemeDomains(raw);

describe("schemeDomains", () => {
  it("keeps the supported schemes only", () => {
    expect(domains).toEqual({
      key_header: { type: "apiKey", in: "header", name: "X-API-KEY" },
      key_query: { type: "apiKey", in: "query", name: "api_key" },
      key_cookie: { type: "apiKey", in: "cookie", name: "session" },
      bearer: { type: "bearer" },
      basic: { type: "basic" },
      cc: { type: "oauth2", tokenUrl: "https://auth.example.com/token", scopes: ["read"] },
      code: { type: "oauth2", tokenUrl: null, scopes: [] },
      oidc: { type: "openIdConnect" },
    });
  });
});

describe("secretsSchema", () => {
  const schema = secretsSchema(raw, domains);
  const validate = hostAjv().compile(schema);

  it("has one optional property per supported scheme, named like it", () => {
    expect(Object.keys(schema.properties as object)).toEqual(Object.keys(domains));
    expect(schema.required).toBeUndefined();
    expect((schema.properties as Record<string, { description: string }>).key_header!.description).toBe(
      'API key, sent as header "X-API-KEY". From the dashboard.',
    );
  });

  it.each([
    [{}, true],
    [{ key_header: "k", bearer: "t", basic: { username: "u", password: "p" } }, true],
    [{ cc: { clientId: "id", clientSecret: "s" } }, true],
    [{ cc: { accessToken: "t" } }, true],
    [{ cc: { clientId: "id" } }, false],
    [{ code: { accessToken: "t" } }, true],
    [{ code: { clientId: "id", clientSecret: "s" } }, false],
    [{ oidc: { accessToken: "t" } }, true],
    [{ basic: { username: "u" } }, false],
    [{ key_header: "" }, false],
    [{ digest: "x" }, false],
  ])("%j valid: %s", (secrets, valid) => {
    expect(validate(secrets)).toBe(valid);
  });
});

describe("selectAlternative", () => {
  const alt = (...schemes: string[]): SecurityAlternative => schemes.map((scheme) => ({ scheme, scopes: [] }));
  it.each<[string, SecurityAlternative[], Record<string, unknown>, SecurityAlternative | null]>([
    ["no requirement", [], {}, []],
    ["the first satisfiable alternative", [alt("bearer"), alt("key_header")], { key_header: "k" }, alt("key_header")],
    [
      "document order when several are satisfiable",
      [alt("bearer"), alt("key_header")],
      { key_header: "k", bearer: "t" },
      alt("bearer"),
    ],
    ["all schemes of an alternative", [alt("key_header", "key_query")], { key_header: "k" }, null],
    [
      "an AND alternative",
      [alt("key_header", "key_query")],
      { key_header: "k", key_query: "q" },
      alt("key_header", "key_query"),
    ],
    ["an optional alternative ({})", [alt("bearer"), alt()], {}, []],
    ["an unsupported scheme", [alt("digest")], { digest: "x" }, null],
    ["an unknown scheme", [alt("nope")], { nope: "x" }, null],
    ["oauth2 client credentials", [alt("cc")], { cc: { clientId: "i", clientSecret: "s" } }, alt("cc")],
    [
      "oauth2 without a token URL needs an access token",
      [alt("code")],
      { code: { clientId: "i", clientSecret: "s" } },
      null,
    ],
    ["inherited names are not schemes", [alt("constructor")], { constructor: "x" }, null],
  ])("%s", (_label, requirement, secrets, expected) => {
    expect(selectAlternative(requirement, domains, secrets)).toEqual(expected);
  });

  it.each<[string, SecurityAlternative[], Record<string, unknown>, SecurityAlternative | null]>([
    [
      "an alternative using OAuth2 first",
      [alt("basic"), alt("code")],
      { basic: basicSecret, code: token },
      alt("code"),
    ],
    ["or OpenID Connect", [alt("key_header"), alt("oidc")], { key_header: "k", oidc: token }, alt("oidc")],
    [
      "but only a satisfiable one",
      [alt("basic"), alt("code", "key_query")],
      { basic: basicSecret, code: token },
      alt("basic"),
    ],
    ["document order otherwise", [alt("key_query"), alt("key_header")], { key_header: "k" }, alt("key_header")],
    ["no requirement", [], { code: token }, []],
  ])("preferring the access token: %s", (_label, requirement, secrets, expected) => {
    expect(selectAlternative(requirement, domains, secrets, true)).toEqual(expected);
  });
});

const basicSecret = { username: "u", password: "p" };
const token = { accessToken: "account" };

describe("withAccessToken", () => {
  it("makes the token the secret of every OAuth2 and OpenID Connect scheme, and of no other", () => {
    const secrets = { bearer: "b", cc: { clientId: "i", clientSecret: "s" }, code: { accessToken: "operator" } };
    expect(withAccessToken(secrets, domains, "account")).toEqual({ bearer: "b", cc: token, code: token, oidc: token });
    expect(secrets.code).toEqual({ accessToken: "operator" });
  });
});

describe("credentialsFor", () => {
  const basic = Buffer.from("user:pä:ss").toString("base64");
  // `secrets` is what results and messages are scrubbed of: every value that could leak must be listed.
  it.each<[string, SchemeDomain, unknown, string | undefined, object]>([
    [
      "apiKey header",
      domains.key_header!,
      "k1",
      undefined,
      { headers: [["X-API-KEY", "k1"]], query: [], cookies: [], secrets: ["k1"] },
    ],
    [
      "apiKey query",
      domains.key_query!,
      "k2",
      undefined,
      { headers: [], query: [["api_key", "k2"]], cookies: [], secrets: ["k2"] },
    ],
    [
      "apiKey cookie",
      domains.key_cookie!,
      "k3",
      undefined,
      { headers: [], query: [], cookies: [["session", "k3"]], secrets: ["k3"] },
    ],
    ["bearer", domains.bearer!, "tok", undefined, { headers: [["Authorization", "Bearer tok"]], secrets: ["tok"] }],
    [
      "basic",
      domains.basic!,
      { username: "user", password: "pä:ss" },
      undefined,
      { headers: [["Authorization", `Basic ${basic}`]], secrets: ["pä:ss", basic] },
    ],
    [
      "oauth2 access token",
      domains.code!,
      { accessToken: "at" },
      undefined,
      { headers: [["Authorization", "Bearer at"]], secrets: ["at"] },
    ],
    [
      "oauth2 fetched token",
      domains.cc!,
      { clientId: "i", clientSecret: "s" },
      "fetched",
      { headers: [["Authorization", "Bearer fetched"]], secrets: ["fetched", "s"] },
    ],
    [
      "openIdConnect",
      domains.oidc!,
      { accessToken: "id" },
      undefined,
      { headers: [["Authorization", "Bearer id"]], secrets: ["id"] },
    ],
  ])("%s", (_label, scheme, secret, token, expected) => {
    expect(credentialsFor(scheme, secret, token)).toMatchObject(expected);
  });
});
