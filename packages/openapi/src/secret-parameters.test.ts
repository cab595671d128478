import { describe, expect, it } from "vitest";
import { emptyCredentials, type SchemeDomain } from "./auth.js";
import type { ParameterBinding } from "./domain.js";
import type { ParameterLocation } from "./operations.js";
import { coveringScheme, withSecretFields, withSecretParameters } from "./secret-parameters.js";

const SCHEMES: Record<string, SchemeDomain> = {
  api_key: { type: "apiKey", in: "header", name: "X-Api-Key" },
  queryKey: { type: "apiKey", in: "query", name: "key" },
  slackAuth: { type: "oauth2", tokenUrl: null, scopes: [] },
  basic: { type: "basic" },
  bearer: { type: "bearer" },
};
const requires = (...schemes: string[]) => [schemes.map((scheme) => ({ scheme, scopes: [] }))];

describe("coveringScheme", () => {
  it.each<[string, string, ParameterLocation, ReturnType<typeof requires>, string | undefined]>([
    ["an apiKey scheme's own header, any case", "x-api-key", "header", [], "api_key"],
    ["an apiKey scheme's own query parameter", "key", "query", [], "queryKey"],
    ["the same name in another place", "key", "header", [], undefined],
    ["a parameter named like a scheme (its secret)", "bearer", "query", [], "bearer"],
    ["a basic scheme's name: no single value", "basic", "header", [], undefined],
    ["Slack's token, by the operation's OAuth2 scheme", "token", "header", requires("slackAuth"), "slackAuth"],
    ["an access_token query parameter", "Access-Token", "query", requires("bearer"), "bearer"],
    ["a token where only basic is required", "token", "query", requires("basic"), undefined],
    ["a token on an operation without security", "token", "query", [], undefined],
    ["a token in the path (part of the URL's meaning)", "token", "path", requires("slackAuth"), undefined],
    ["another parameter", "channel", "query", requires("slackAuth"), undefined],
  ])("%s", (_label, name, location, security, scheme) => {
    expect(coveringScheme({ name, in: location }, security, SCHEMES)).toBe(scheme);
  });
});

describe("withSecretParameters", () => {
  const binding = (key: string, location: ParameterLocation, secret?: string): ParameterBinding => ({
    key,
    name: key,
    in: location,
    style: "form",
    explode: true,
    allowReserved: false,
    ...(secret ? { secret } : {}),
  });
  const tokens: Record<string, string> = { slackAuth: "xoxb-1", api_key: "k-1" };
  const tokenOf = (scheme: string) => tokens[scheme];

  it("adds an omitted covered parameter with its scheme's token, as a secret", () => {
    const out = withSecretParameters(emptyCredentials(), [binding("token", "query", "slackAuth")], {}, tokenOf);
    expect(out).toEqual({ headers: [], query: [["token", "xoxb-1"]], cookies: [], secrets: ["xoxb-1"] });
  });

  it("lets a value the caller gave win over the credential of the same name", () => {
    const credentials = { ...emptyCredentials(), headers: [["X-Api-Key", "k-1"]] as [string, string][] };
    const out = withSecretParameters(
      credentials,
      [{ ...binding("apiKey", "header", "api_key"), name: "x-api-key" }],
      { apiKey: "mine" },
      tokenOf,
    );
    expect(out.headers).toEqual([]);
  });

  it("adds nothing the credentials already send, nor what has no token, nor uncovered parameters", () => {
    const credentials = { ...emptyCredentials(), headers: [["X-Api-Key", "k-1"]] as [string, string][] };
    const out = withSecretParameters(
      credentials,
      [
        { ...binding("apiKey", "header", "api_key"), name: "x-api-key" },
        binding("cookieToken", "cookie", "unset"),
        binding("channel", "query"),
      ],
      { channel: "general" },
      tokenOf,
    );
    expect(out).toEqual(credentials);
  });
});

describe("withSecretFields", () => {
  const tokenOf = (scheme: string) => (scheme === "slackAuth" ? "xoxb-1" : undefined);
  const fields = { token: "slackAuth", other: "unset" };

  it("fills an omitted field, and makes a body when none was given", () => {
    expect(withSecretFields(fields, { name: "x" }, tokenOf)).toEqual({
      body: { name: "x", token: "xoxb-1" },
      secrets: ["xoxb-1"],
    });
    expect(withSecretFields(fields, undefined, tokenOf)).toEqual({ body: { token: "xoxb-1" }, secrets: ["xoxb-1"] });
  });

  it.each([
    ["the caller's own token", { token: "mine" }],
    ["a body given as encoded text", "token=mine"],
    ["a body that is not an object", [1, 2]],
  ])("leaves %s alone", (_label, body) => {
    expect(withSecretFields(fields, body, tokenOf)).toBeUndefined();
  });

  it("adds nothing without covered fields or tokens", () => {
    expect(withSecretFields(undefined, {}, tokenOf)).toBeUndefined();
    expect(withSecretFields({ other: "unset" }, {}, tokenOf)).toBeUndefined();
  });
});
