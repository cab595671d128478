/**
 * A real OpenID provider (`oidc-provider`) in the test process, as the
 * authorization server of a host under test: RS256 keys published as its
 * JWKS, dynamic client registration, PKCE, and resource indicators that
 * issue JWT access tokens for one resource (the host). Login and consent
 * are answered at once for one account (`subject`), so a client's
 * authorization request can be followed to its redirect with a code over
 * plain HTTP (`authorize`). `sign` mints tokens with the provider's own key,
 * for the cases a real flow does not produce (expired, another audience …).
 * The login/consent answer and the redirect-following browser are exported
 * for the other provider of the suites (upstream-oauth.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import Provider, { errors } from "oidc-provider";

export interface TestIssuer {
  /** The issuer URL (`iss`), e.g. `http://127.0.0.1:1234`. */
  url: string;
  /** Follows an authorization URL through login and consent to the client's redirect; returns its `code`. */
  authorize(authorizationUrl: URL): Promise<string>;
  /** A JWT signed with the provider's own key (or `key`), claims as given. */
  sign(claims: JWTPayload, options?: { key?: CryptoKey; kid?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(options: { resource: string; subject: string }): Promise<TestIssuer> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: "test-key-1", use: "sig", alg: "RS256" };

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(url, {
    jwks: { keys: [signingKey] },
    cookies: { keys: ["test-cookie-key"] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 3600, RefreshToken: 3600 },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    scopes: ["openid", "offline_access", "cyrnel:agent", "cyrnel:admin"],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== options.resource) throw new errors.InvalidTarget();
          return {
            scope: "cyrnel:agent cyrnel:admin",
            audience: options.resource,
            accessTokenTTL: 3600,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });

  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    return answerInteraction(provider, req, res, { subject: options.subject });
  });

  return {
    url,
    async authorize(authorizationUrl) {
      const target = await followAuthorization(authorizationUrl);
      const code = target.searchParams.get("code");
      if (code !== null) return code;
      throw new Error(
        `authorization refused: ${target.searchParams.get("error")} ${target.searchParams.get("error_description")}`,
      );
    },
    sign(claims, signOptions = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: signOptions.kid ?? signingKey.kid })
        .sign(signOptions.key ?? privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How the test's user answers a provider's login and consent: as `subject`, granting all that was asked, or refusing. */
export type InteractionAnswer = { subject: string } | { refuse: true };

/**
 * Login and consent, answered at once: `subject` signs in and grants what the client asked for (its OpenID scopes
 * and each resource's scopes), or the user refuses and the client gets `error=access_denied`.
 */
export async function answerInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  answer: InteractionAnswer,
): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res);
    if ("refuse" in answer) {
      await provider.interactionFinished(req, res, {
        error: "access_denied",
        error_description: "the user refused",
      });
      return;
    }
    if (details.prompt.name === "login") {
      await provider.interactionFinished(req, res, { login: { accountId: answer.subject } });
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: answer.subject, clientId: details.params.client_id as string });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(" "));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant!.addResourceScope(indicator, scopes.join(" "));
    }
    const grantId = await grant!.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
}

/**
 * Follows an authorization URL as a browser would (the provider's cookies kept for this one flow, so each call is a
 * new session) until the provider redirects away from itself, and returns that redirect: the client's
 * `redirect_uri` with its `code` or `error`, not requested. `headers` go with every request to the provider.
 */
export async function followAuthorization(authorizationUrl: URL, headers: Record<string, string> = {}): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = authorizationUrl.href;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, {
      redirect: "manual",
      headers: { ...headers, cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get("location");
    if (location === null)
      throw new Error(`authorization stopped at ${next}: ${response.status} ${await response.text()}`);
    const target = new URL(location, next);
    if (target.origin !== authorizationUrl.origin) return target;
    next = target.href;
  }
  throw new Error("authorization did not end in 10 redirects");
}
