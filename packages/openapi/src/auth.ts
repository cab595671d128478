import type { JSONSchema } from "@cyrnel/sdk";
import type { SecurityAlternative } from "./operations.js";
import { define, entriesOf, isRecord, type JsonRecord, own, ownRecord, ownString } from "./records.js";
import { DRAFT_07 } from "./schemas.js";

/**
 * Security schemes → secrets schema, and secrets → credentials on a request.
 *
 * One secret per security scheme, named exactly like the scheme:
 *
 * | scheme                      | secret value                                                  |
 * |-----------------------------|---------------------------------------------------------------|
 * | `apiKey` (header/query/cookie) | string                                                     |
 * | `http` `bearer`             | string (the token)                                            |
 * | `http` `basic`              | `{ "username": string, "password": string }`                  |
 * | `oauth2`                    | `{ "clientId", "clientSecret" }` (client-credentials flow) or `{ "accessToken" }` |
 * | `openIdConnect`             | `{ "accessToken": string }`                                   |
 *
 * Other schemes (`http` digest, `mutualTLS`, …) are not offered. All secrets
 * are optional: an operation uses the first alternative of its security
 * requirement whose secrets are all set.
 *
 * A call made for a connected account (`InvokeInput.accessToken`) has the
 * account's token as the secret of every OAuth2 and OpenID Connect scheme
 * ({@link withAccessToken}), and prefers the alternatives that use one.
 */

export type SchemeDomain =
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string }
  | { type: "basic" }
  | { type: "bearer" }
  | { type: "oauth2"; tokenUrl: string | null; scopes: string[] }
  | { type: "openIdConnect" };

function schemeDomain(raw: JsonRecord): SchemeDomain | undefined {
  switch (own(raw, "type")) {
    case "apiKey": {
      const location = own(raw, "in");
      const name = ownString(raw, "name");
      if (!name || (location !== "header" && location !== "query" && location !== "cookie")) return undefined;
      return { type: "apiKey", in: location, name };
    }
    case "http": {
      const scheme = ownString(raw, "scheme")?.toLowerCase();
      if (scheme === "basic") return { type: "basic" };
      if (scheme === "bearer") return { type: "bearer" };
      return undefined;
    }
    case "oauth2": {
      const flow = ownRecord(ownRecord(raw, "flows"), "clientCredentials");
      const tokenUrl = ownString(flow, "tokenUrl");
      return {
        type: "oauth2",
        tokenUrl: tokenUrl ?? null,
        scopes: entriesOf(own(flow, "scopes")).map(([scope]) => scope),
      };
    }
    case "openIdConnect":
      return { type: "openIdConnect" };
    default:
      return undefined;
  }
}

export function schemeDomains(raw: Record<string, JsonRecord>): Record<string, SchemeDomain> {
  const out: Record<string, SchemeDomain> = {};
  for (const [name, scheme] of Object.entries(raw)) {
    const domain = schemeDomain(scheme);
    if (domain) define(out, name, domain);
  }
  return out;
}

function describeScheme(scheme: SchemeDomain): string {
  switch (scheme.type) {
    case "apiKey":
      return `API key, sent as ${scheme.in} "${scheme.name}".`;
    case "bearer":
      return "Bearer token, sent as `Authorization: Bearer <token>`.";
    case "basic":
      return "HTTP basic credentials, sent as `Authorization: Basic …`.";
    case "oauth2":
      return scheme.tokenUrl
        ? `OAuth2: clientId and clientSecret (a client-credentials token is fetched from ${scheme.tokenUrl}, cached and refreshed), or a ready accessToken.`
        : "OAuth2: a ready accessToken (this scheme has no client-credentials flow).";
    case "openIdConnect":
      return "OpenID Connect: a ready accessToken, sent as `Authorization: Bearer <token>`.";
  }
}

function secretSchema(scheme: SchemeDomain, description: string): JSONSchema {
  const string = { type: "string", minLength: 1 };
  switch (scheme.type) {
    case "apiKey":
    case "bearer":
      return { ...string, description };
    case "basic":
      return {
        type: "object",
        description,
        properties: { username: { type: "string" }, password: { type: "string" } },
        required: ["username", "password"],
        additionalProperties: false,
      };
    case "oauth2":
      return {
        type: "object",
        description,
        properties: {
          accessToken: { ...string, description: "A token obtained elsewhere; used as is." },
          ...(scheme.tokenUrl
            ? {
                clientId: string,
                clientSecret: string,
                clientAuthentication: {
                  enum: ["basic", "body"],
                  description:
                    "How the client authenticates to the token endpoint: HTTP basic (default) or client_id/client_secret in the form body.",
                },
              }
            : {}),
        },
        ...(scheme.tokenUrl
          ? { anyOf: [{ required: ["accessToken"] }, { required: ["clientId", "clientSecret"] }] }
          : { required: ["accessToken"] }),
        additionalProperties: false,
      };
    case "openIdConnect":
      return {
        type: "object",
        description,
        properties: { accessToken: string },
        required: ["accessToken"],
        additionalProperties: false,
      };
  }
}

export function secretsSchema(raw: Record<string, JsonRecord>, domains: Record<string, SchemeDomain>): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  for (const [name, scheme] of Object.entries(domains)) {
    const documented = ownString(raw[name], "description")?.trim();
    define(
      properties,
      name,
      secretSchema(scheme, documented ? `${describeScheme(scheme)} ${documented}` : describeScheme(scheme)),
    );
  }
  return { $schema: DRAFT_07, type: "object", properties, additionalProperties: false };
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

/** Whether an oauth2 or OpenID Connect secret carries a ready access token (no token request needed). */
export function hasAccessToken(secret: unknown): boolean {
  return nonEmpty(own(secret, "accessToken"));
}

/** Whether `secret` is enough to authenticate with `scheme`. */
export function usable(scheme: SchemeDomain, secret: unknown): boolean {
  switch (scheme.type) {
    case "apiKey":
    case "bearer":
      return nonEmpty(secret);
    case "basic":
      return typeof own(secret, "username") === "string" && typeof own(secret, "password") === "string";
    case "oauth2":
      return (
        hasAccessToken(secret) ||
        (scheme.tokenUrl !== null && nonEmpty(own(secret, "clientId")) && nonEmpty(own(secret, "clientSecret")))
      );
    case "openIdConnect":
      return hasAccessToken(secret);
  }
}

/** Whether a connected account's access token stands in for the scheme's secret: OAuth2 and OpenID Connect. */
export function takesAccessToken(scheme: SchemeDomain | undefined): boolean {
  return scheme?.type === "oauth2" || scheme?.type === "openIdConnect";
}

const schemeOf = (schemes: Record<string, SchemeDomain>, name: string) =>
  Object.hasOwn(schemes, name) ? schemes[name] : undefined;

/** Whether the alternative uses an OAuth2 or OpenID Connect scheme (one an access token serves). */
export function usesAccessToken(alternative: SecurityAlternative, schemes: Record<string, SchemeDomain>): boolean {
  return alternative.some(({ scheme }) => takesAccessToken(schemeOf(schemes, scheme)));
}

/**
 * The secrets of one call made for a connected account: its access token is
 * the secret of every OAuth2 and OpenID Connect scheme (as if it were
 * `{accessToken}`), whatever the operator set there.
 */
export function withAccessToken(
  secrets: Record<string, unknown>,
  schemes: Record<string, SchemeDomain>,
  accessToken: string,
): Record<string, unknown> {
  const out = { ...secrets };
  for (const [name, scheme] of Object.entries(schemes)) {
    if (takesAccessToken(scheme)) define(out, name, { accessToken });
  }
  return out;
}

/**
 * The first alternative whose schemes all have usable secrets: `[]` for no
 * authentication (an empty requirement list, or an explicit `{}`
 * alternative reached first); `null` when none can be satisfied. With
 * `preferAccessToken` (a call for a connected account) the alternatives that
 * use an OAuth2 or OpenID Connect scheme are tried first: the account's token
 * is the credential of the call.
 */
export function selectAlternative(
  requirement: readonly SecurityAlternative[],
  schemes: Record<string, SchemeDomain>,
  secrets: Record<string, unknown>,
  preferAccessToken = false,
): SecurityAlternative | null {
  if (requirement.length === 0) return [];
  const satisfied = (alternative: SecurityAlternative) =>
    alternative.every(({ scheme }) => {
      const domain = schemeOf(schemes, scheme);
      return domain !== undefined && usable(domain, own(secrets, scheme));
    });
  const preferred = preferAccessToken
    ? requirement.find((alternative) => usesAccessToken(alternative, schemes) && satisfied(alternative))
    : undefined;
  return preferred ?? requirement.find(satisfied) ?? null;
}

/**
 * The one token a secret stands for, without a token request: an apiKey or
 * bearer secret itself, a ready OAuth2/OpenID Connect access token; else
 * undefined (basic credentials, an unset secret, client credentials whose
 * token has not been fetched).
 */
export function schemeToken(scheme: SchemeDomain, secret: unknown): string | undefined {
  switch (scheme.type) {
    case "apiKey":
    case "bearer":
      return nonEmpty(secret) ? secret : undefined;
    case "oauth2":
    case "openIdConnect": {
      const token = own(secret, "accessToken");
      return nonEmpty(token) ? token : undefined;
    }
    case "basic":
      return undefined;
  }
}

/** What credentials add to a request. Values are plaintext secrets: never log them. */
export interface Credentials {
  headers: [string, string][];
  query: [string, string][];
  cookies: [string, string][];
  /** Every secret value involved, so messages and results can be scrubbed of them. */
  secrets: string[];
}

export function emptyCredentials(): Credentials {
  return { headers: [], query: [], cookies: [], secrets: [] };
}

/**
 * Credentials for one scheme. For oauth2 and OpenID Connect `token` is the
 * access token to send (from the secret or from the token endpoint).
 */
export function credentialsFor(scheme: SchemeDomain, secret: unknown, token?: string): Credentials {
  const out = emptyCredentials();
  switch (scheme.type) {
    case "apiKey": {
      const value = String(secret);
      const target = scheme.in === "header" ? out.headers : scheme.in === "query" ? out.query : out.cookies;
      target.push([scheme.name, value]);
      out.secrets.push(value);
      return out;
    }
    case "bearer":
      out.headers.push(["Authorization", `Bearer ${String(secret)}`]);
      out.secrets.push(String(secret));
      return out;
    case "basic": {
      const username = String(own(secret, "username"));
      const password = String(own(secret, "password"));
      const encoded = Buffer.from(`${username}:${password}`, "utf8").toString("base64");
      out.headers.push(["Authorization", `Basic ${encoded}`]);
      out.secrets.push(password, encoded);
      return out;
    }
    case "oauth2":
    case "openIdConnect": {
      const value = token ?? String(own(secret, "accessToken"));
      out.headers.push(["Authorization", `Bearer ${value}`]);
      out.secrets.push(value);
      if (isRecord(secret) && nonEmpty(secret.clientSecret)) out.secrets.push(secret.clientSecret);
      return out;
    }
  }
}

export function mergeCredentials(parts: readonly Credentials[]): Credentials {
  const out = emptyCredentials();
  for (const part of parts) {
    out.headers.push(...part.headers);
    out.query.push(...part.query);
    out.cookies.push(...part.cookies);
    out.secrets.push(...part.secrets);
  }
  return out;
}
