/**
 * An API that acts for a user's account, as an OAuth2 resource server: it
 * accepts only the JWT access tokens its authorization server issues for it
 * (signature against the server's JWKS, `typ` at+jwt, issuer and audience
 * checked, not expired) and answers `GET /me` with the account's `sub`;
 * any other credential, or none, is 401 with a Bearer challenge. Its OpenAPI
 * document declares that server's authorization-code flow, so a host can
 * connect the service to an account from the document alone.
 *
 * Every request is recorded (its bearer token, the verified `sub`, the
 * status), and `refuse(token)` makes it answer 401 to a token that is still
 * valid: what an upstream does after revoking a token on its side
 * (`refuseEvery`: to all of them for a while).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, jwtVerify } from "jose";

export interface AccountRequest {
  method: string;
  path: string;
  /** The bearer token sent (`Authorization: Bearer …`), else null. */
  token: string | null;
  /** The token's verified subject, when it was accepted. */
  sub: string | null;
  status: number;
}

export interface AccountApi {
  url: string;
  requests: AccountRequest[];
  /** Answer 401 to `token` from now on, as if it had been revoked upstream. */
  refuse(token: string): void;
  /** While on, answer 401 to every token, even one issued after this call. */
  refuseEvery(on: boolean): void;
  close(): Promise<void>;
}

/** The authorization server the API trusts, and its authorization-code flow as the document declares it. */
export interface AccountApiIssuer {
  url: string;
  jwksUrl: string;
  authorizationUrl: string;
  tokenUrl: string;
}

/** The scope the API declares (and its authorization server grants for it). */
export const ACCOUNT_SCOPE = "me:read";

/** Starts the API on a loopback port, trusting `issuer` (whose JWKS is fetched at the first token). */
export async function startAccountApi(issuer: AccountApiIssuer): Promise<AccountApi> {
  const requests: AccountRequest[] = [];
  const refused = new Set<string>();
  let refusingEvery = false;
  let verify: ((token: string) => Promise<string>) | undefined;

  const server: Server = createServer(async (request, response) => {
    const header = request.headers.authorization ?? "";
    const token = /^Bearer (.+)$/i.exec(header)?.[1] ?? null;
    const record: AccountRequest = {
      method: request.method ?? "",
      path: request.url ?? "",
      token,
      sub: null,
      status: 401,
    };
    requests.push(record);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(body));
    };
    if (request.method !== "GET" || request.url !== "/me") return answer(404, { error: "not_found" });
    if (token === null || refusingEvery || refused.has(token)) {
      return answer(401, { error: "invalid_token" }, { "www-authenticate": 'Bearer error="invalid_token"' });
    }
    try {
      verify ??= verifier(issuer, url);
      record.sub = await verify(token);
    } catch (error) {
      return answer(
        401,
        { error: "invalid_token", error_description: String(error) },
        { "www-authenticate": 'Bearer error="invalid_token"' },
      );
    }
    answer(200, { sub: record.sub });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    refuse: (token) => refused.add(token),
    refuseEvery: (on) => {
      refusingEvery = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Checks a token the way a resource server must, and returns its subject. */
function verifier(issuer: AccountApiIssuer, audience: string): (token: string) => Promise<string> {
  const keys = createRemoteJWKSet(new URL(issuer.jwksUrl));
  return async (token) => {
    const { payload } = await jwtVerify(token, keys, {
      issuer: issuer.url,
      audience,
      typ: "at+jwt",
      algorithms: ["RS256"],
      requiredClaims: ["sub", "exp"],
    });
    return payload.sub!;
  };
}

/** The API's OpenAPI 3 document: `GET /me` (operation `me`) behind the oauth2 authorization-code flow of `issuer`. */
export function accountDocument(apiUrl: string, issuer: AccountApiIssuer): string {
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Account", version: "1.0.0", description: "Who the connected account is." },
    servers: [{ url: apiUrl }],
    components: {
      securitySchemes: {
        account: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: issuer.authorizationUrl,
              tokenUrl: issuer.tokenUrl,
              scopes: { [ACCOUNT_SCOPE]: "Read who you are" },
            },
          },
        },
      },
    },
    paths: {
      "/me": {
        get: {
          operationId: "me",
          summary: "The account the token acts for",
          security: [{ account: [ACCOUNT_SCOPE] }],
          responses: {
            200: {
              description: "The account",
              content: {
                "application/json": {
                  schema: { type: "object", required: ["sub"], properties: { sub: { type: "string" } } },
                },
              },
            },
            401: {
              description: "No valid token",
              content: { "application/json": { schema: { type: "object" } } },
            },
          },
        },
      },
    },
  });
}
