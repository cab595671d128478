/**
 * An upstream service that acts for its users' accounts, as a host meets
 * one: a real OAuth2 authorization server (`oidc-provider`) and the API it
 * protects (account-api.ts), each on its own loopback port.
 *
 * The server knows one confidential client (the host: `client_id` and
 * secret, its `/oauth/callback` as the only redirect URI, the
 * authorization-code and refresh-token grants, PKCE required). With
 * resource indicators, every access token is a JWT for the API (the API's
 * URL is the default resource and the granted one is used at the token
 * endpoint, so a client never needs to send `resource`), living
 * `accessTokenTTL` seconds as set when it is issued. A refresh token comes
 * with every code and is rotated at each refresh (the one sent is
 * consumed). Revocation (RFC 7009) is on.
 *
 * `authorize` is the user's browser: it follows an authorization URL
 * through login and consent, as the account `subject` granting everything
 * asked (or refusing), each call in a session of its own, and returns the
 * redirect to the client (its `code` and `state`) without requesting it.
 * What the client did at the token and revocation endpoints is recorded,
 * and every token issued is kept, for checks that none leaked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider, { errors } from "oidc-provider";
import { ACCOUNT_SCOPE, type AccountApi, accountDocument, startAccountApi } from "./account-api.js";
import { answerInteraction, followAuthorization, type InteractionAnswer } from "./oidc-provider.js";

/** A request of the client to the token endpoint. */
export interface TokenRequest {
  grantType: string;
  /** How the client authenticated: `basic` (Authorization header) or `post` (client_secret in the body). */
  clientAuth: "basic" | "post" | "none";
  status: number;
  /** The provider's `error` when it refused. */
  error: string | null;
}

/** A request of the client to the revocation endpoint. */
export interface RevocationRequest {
  status: number;
  error: string | null;
  tokenTypeHint: string | null;
  /** The kind of token the provider found and revoked (with its whole grant), or null when it knew none. */
  revoked: "RefreshToken" | "AccessToken" | null;
}

export interface UpstreamIssuer {
  /** The issuer URL (`iss` of its tokens). */
  url: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl: string;
  clientId: string;
  clientSecret: string;
  /** Lifetime in seconds of the access tokens issued from now on. */
  accessTokenTTL: number;
  /**
   * Follows `authorizationUrl` as the user's browser, answering as `subject` (or refusing), and returns where the
   * provider then sends the browser: the client's redirect URI with `code` and `state` (or `error`).
   */
  authorize(authorizationUrl: string | URL, answer: InteractionAnswer): Promise<URL>;
  tokenRequests: TokenRequest[];
  revocations: RevocationRequest[];
  /** Every access and refresh token issued so far. */
  issued: string[];
  close(): Promise<void>;
}

export interface Upstream {
  issuer: UpstreamIssuer;
  api: AccountApi;
  /** The API's OpenAPI document (text), declaring the issuer's authorization-code flow. */
  definition: string;
  close(): Promise<void>;
}

export const UPSTREAM_CLIENT_ID = "cyrnel-host";

/** Starts the authorization server and its API; `redirectUri` is the host's callback, the client's only one. */
export async function startUpstream(options: {
  redirectUri: string;
  clientSecret: string;
  accessTokenTTL?: number;
}): Promise<Upstream> {
  // The server listens first: the API needs the issuer's URL, and the provider the API's (its resource).
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endpoints = {
    url,
    jwksUrl: `${url}/jwks`,
    authorizationUrl: `${url}/auth`,
    tokenUrl: `${url}/token`,
    revocationUrl: `${url}/token/revocation`,
  };
  const api = await startAccountApi(endpoints);

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: "upstream-key-1", use: "sig", alg: "RS256" };
  const tokenRequests: TokenRequest[] = [];
  const revocations: RevocationRequest[] = [];
  const issued: string[] = [];

  const issuer: UpstreamIssuer = {
    ...endpoints,
    clientId: UPSTREAM_CLIENT_ID,
    clientSecret: options.clientSecret,
    accessTokenTTL: options.accessTokenTTL ?? 3600,
    async authorize(authorizationUrl, answer) {
      // The answer rides along as a header only this file's interaction handler reads (never sent to the client).
      return followAuthorization(new URL(authorizationUrl), { "x-test-answer": JSON.stringify(answer) });
    },
    tokenRequests,
    revocations,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const provider = new Provider(url, {
    jwks: { keys: [signingKey] },
    cookies: { keys: ["upstream-cookie-key"] },
    clients: [
      {
        client_id: UPSTREAM_CLIENT_ID,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        // The provider accepts the secret as Basic or in the body for either method (RFC 6749 §2.3.1).
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 600, IdToken: 600, RefreshToken: 3600 },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    pkce: { required: () => true },
    // By default a refresh token needs the `offline_access` scope, which the provider drops from a request
    // without `prompt=consent`: here it comes with every code, whatever the client asked.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => api.url,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== api.url) throw new errors.InvalidTarget();
          return {
            scope: ACCOUNT_SCOPE,
            audience: api.url,
            accessTokenTTL: issuer.accessTokenTTL,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });

  // What the client did at the token and revocation endpoints, read once the provider answered.
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if (route !== "token" && route !== "revocation") return;
    const params = (ctx.oidc.params ?? {}) as Record<string, string | undefined>;
    const body = (typeof ctx.body === "object" && ctx.body !== null ? ctx.body : {}) as Record<string, unknown>;
    const error = typeof body.error === "string" ? body.error : null;
    if (route === "token") {
      const authorization = ctx.get("authorization");
      tokenRequests.push({
        grantType: params.grant_type ?? "",
        clientAuth: /^basic /i.test(authorization) ? "basic" : params.client_secret ? "post" : "none",
        status: ctx.status,
        error,
      });
      for (const name of ["access_token", "refresh_token"]) {
        if (typeof body[name] === "string") issued.push(body[name]);
      }
      return;
    }
    const entities = ctx.oidc.entities as Record<string, unknown>;
    revocations.push({
      status: ctx.status,
      error,
      tokenTypeHint: params.token_type_hint ?? null,
      revoked: entities.RefreshToken ? "RefreshToken" : entities.AccessToken ? "AccessToken" : null,
    });
  });

  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    const answer = req.headers["x-test-answer"];
    if (typeof answer !== "string") {
      res.statusCode = 400;
      res.end("only UpstreamIssuer.authorize answers this provider's login and consent");
      return;
    }
    return answerInteraction(provider, req, res, JSON.parse(answer) as InteractionAnswer);
  });

  return {
    issuer,
    api,
    definition: accountDocument(api.url, endpoints),
    async close() {
      await issuer.close();
      await api.close();
    },
  };
}
