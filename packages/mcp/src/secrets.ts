import type { JSONSchema } from "@cyrnel/sdk";
import { isRecord, stringMap } from "./records.js";
import type { McpTarget } from "./target.js";

/**
 * Stage 5: the service's secrets → what a connection carries. They are set
 * with `PATCH /services/:id/secrets`, stored encrypted, handed over only at
 * `hydrateService` — so the listing at install sees none of them (see the
 * README: a server that lists its tools only with credentials cannot be
 * installed yet).
 *
 * - stdio: `env`, variables added to the child's environment (`env.ts`).
 * - http: `bearerToken` (`Authorization: Bearer …`), `headers` (any other
 *   header, e.g. `X-API-Key`), `oauth` (client credentials: the MCP SDK
 *   discovers the authorization server from the MCP server's metadata,
 *   fetches a token and refreshes it).
 *
 * Any service may also have secret headers and query parameters the host
 * keeps apart (`ServiceState.secretHeaders` / `secretQuery`): over HTTP they
 * go on every request in place of any header of their name (the
 * `Authorization` of `bearerToken` or `oauth` included) and on the endpoint
 * URL; a stdio server has neither, so they do not apply to it. A connected
 * account's access token gets a session of its own ({@link accountCredentials}).
 */

const STRING_MAP = { type: "object", additionalProperties: { type: "string" } };

export function secretsSchemaOf(target: McpTarget): JSONSchema {
  if (target.transport === "stdio") {
    return {
      type: "object",
      additionalProperties: false,
      properties: {
        env: {
          ...STRING_MAP,
          description:
            "Environment variables added to the server process (e.g. an API key the server reads), over the definition's `env`.",
        },
      },
    };
  }
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      bearerToken: { type: "string", minLength: 1, description: "Sent as `Authorization: Bearer <token>`." },
      headers: { ...STRING_MAP, description: "Extra HTTP headers on every request (e.g. `X-API-Key`)." },
      oauth: {
        type: "object",
        description:
          "OAuth 2 client credentials: the token comes from the authorization server the MCP server names, and is refreshed.",
        additionalProperties: false,
        properties: {
          clientId: { type: "string", minLength: 1 },
          clientSecret: { type: "string", minLength: 1 },
          scope: { type: "string", description: "Space-separated scopes." },
          issuer: {
            type: "string",
            description:
              "The authorization server these credentials belong to: they are only ever sent to it, whatever the MCP server advertises.",
          },
        },
        required: ["clientId", "clientSecret", "issuer"],
      },
    },
  };
}

/** Headers MCP's Streamable HTTP transport sets itself: a secret may not replace them. */
const TRANSPORT_HEADERS = new Set([
  "accept",
  "content-type",
  "content-length",
  "host",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "transfer-encoding",
]);

export interface HttpCredentials {
  headers: Record<string, string>;
  /** Query parameters set on the endpoint URL (the service's secret query parameters). */
  query?: Record<string, string>;
  oauth?: { clientId: string; clientSecret: string; scope?: string; issuer: string };
}

const isAuthorization = (name: string) => name.toLowerCase() === "authorization";

/** `headers` with `name` set, in place of any spelling of it. */
function withHeader(headers: Record<string, string>, name: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  const set = (key: string, item: string) =>
    Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
  for (const [key, item] of Object.entries(headers)) if (key.toLowerCase() !== name.toLowerCase()) set(key, item);
  set(name, value);
  return out;
}

/**
 * The HTTP credentials of a service: its secrets (already validated against the schema by the host), then its
 * secret headers over them and its secret query parameters. A secret `Authorization` header replaces what
 * `bearerToken` or `oauth` would send, so no token is fetched for `oauth` then.
 */
export function httpCredentials(
  secrets: Record<string, unknown>,
  secretHeaders: Record<string, string> = {},
  secretQuery: Record<string, string> = {},
): HttpCredentials {
  const own = ownCredentials(secrets);
  let headers = own.headers;
  for (const [name, value] of Object.entries(secretHeaders)) {
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
      throw new Error(`the secret header "${name}" must not be set: the MCP transport sets it`);
    }
    headers = withHeader(headers, name, value);
  }
  return {
    headers,
    ...(Object.keys(secretQuery).length > 0 ? { query: { ...secretQuery } } : {}),
    ...(own.oauth === undefined || pinsAuthorization(secretHeaders) ? {} : { oauth: own.oauth }),
  };
}

/** Whether the secret headers set `Authorization`, which then wins over a connected account's token too. */
export function pinsAuthorization(secretHeaders: Record<string, string> = {}): boolean {
  return Object.keys(secretHeaders).some(isAuthorization);
}

/**
 * The credentials of a session for a connected account: the service's, with `Authorization: Bearer <token>` in
 * place of its own bearer token or OAuth client. (Not used when {@link pinsAuthorization}: such calls go over the
 * service's own session.)
 */
export function accountCredentials(service: HttpCredentials, accessToken: string): HttpCredentials {
  const { oauth: _oauth, ...rest } = service;
  return { ...rest, headers: withHeader(service.headers, "Authorization", `Bearer ${accessToken}`) };
}

/** What the `bearerToken`, `headers` and `oauth` secrets send. */
function ownCredentials(secrets: Record<string, unknown>): HttpCredentials {
  const headers = secrets.headers === undefined ? {} : stringMap(secrets.headers);
  if (headers === undefined) throw new Error("secrets.headers must map header names to strings");
  const clash = Object.keys(headers).find((name) => TRANSPORT_HEADERS.has(name.toLowerCase()));
  if (clash !== undefined) throw new Error(`secrets.headers must not set "${clash}": the MCP transport sets it`);
  const out: Record<string, string> = { ...headers };
  if (typeof secrets.bearerToken === "string") {
    if (Object.keys(out).some((name) => name.toLowerCase() === "authorization")) {
      throw new Error(`set either secrets.bearerToken or an Authorization header in secrets.headers, not both`);
    }
    out.Authorization = `Bearer ${secrets.bearerToken}`;
  }
  const oauth = secrets.oauth;
  if (oauth === undefined) return { headers: out };
  if (!isRecord(oauth) || typeof oauth.clientId !== "string" || typeof oauth.clientSecret !== "string") {
    throw new Error("secrets.oauth needs clientId and clientSecret");
  }
  if (typeof oauth.issuer !== "string") throw new Error("secrets.oauth needs issuer, the authorization server's URL");
  if (Object.keys(out).some((name) => name.toLowerCase() === "authorization")) {
    throw new Error("secrets.oauth supplies the Authorization header: drop bearerToken or the header");
  }
  return {
    headers: out,
    oauth: {
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      issuer: oauth.issuer,
      ...(typeof oauth.scope === "string" ? { scope: oauth.scope } : {}),
    },
  };
}

/** The environment variables a stdio service's secrets add. */
export function secretEnv(secrets: Record<string, unknown>): Record<string, string> {
  if (secrets.env === undefined) return {};
  const env = stringMap(secrets.env);
  if (env === undefined) throw new Error("secrets.env must map variable names to strings");
  return env;
}
