/**
 * OAuth 2.1 access tokens (the host as a resource server): a bearer JWT is
 * checked against the configured issuer's keys (its JWKS, found through its
 * discovery document, cached; jose fetches it again for a key id it does
 * not know), with only asymmetric algorithms, `iss`, `aud`, `exp` (required)
 * and `nbf`.
 * Its scopes give the caller: `cyrnel:admin` or `cyrnel:agent` the role,
 * `cyrnel:service:<id>` the services an agent may reach (none named: all).
 * The caller's id is `oauth:<sub>`.
 *
 * A process created with a token calls tools as its subject, read again at
 * each call like a key: each token seen writes its subject's grants and
 * expiry (oauth-subject-store.ts), and calls after the expiry of the latest
 * token seen are refused, until the client signs in or refreshes again.
 *
 * Tokens are never logged nor repeated in an answer.
 */
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import type { OAuthConfig } from "../../config-oauth.js";
import { CyrnelError, messageOf } from "../../errors.js";
import type { Caller } from "./caller.js";
import type { OAuthSubjectRow, OAuthSubjectStore } from "./oauth-subject-store.js";

export const OAUTH_ID_PREFIX = "oauth:";
export const ADMIN_SCOPE = "cyrnel:admin";
export const AGENT_SCOPE = "cyrnel:agent";
export const SERVICE_SCOPE_PREFIX = "cyrnel:service:";
/** Asymmetric signatures only: never `none`, never a shared secret (HS*), which the issuer's JWKS cannot check. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
/** Clocks of the issuer and the host may differ by this much. */
const CLOCK_TOLERANCE_SECONDS = 30;
const DISCOVERY_TIMEOUT_MS = 10_000;
/** Subjects whose latest write this host remembers (to skip writing the same grants again); past it, all are forgotten. */
const REMEMBERED_SUBJECTS = 10_000;

/**
 * A valid token that grants no role: `403 forbidden`, and with it the challenge an OAuth client reads to ask for
 * the scope it lacks (`error="insufficient_scope"`, http/error-handler.ts).
 */
export class InsufficientScope extends CyrnelError {
  constructor(
    message: string,
    readonly scope: string,
  ) {
    super("forbidden", message);
  }
}

/** Whether a bearer token looks like a JWS in compact form (three base64url parts). */
export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);

export const isOAuthId = (keyId: string): boolean => keyId.startsWith(OAUTH_ID_PREFIX);

export class OAuthTokens {
  private keys: Promise<JWTVerifyGetKey> | null = null;
  private readonly written = new Map<string, string>();

  constructor(
    private readonly config: OAuthConfig,
    private readonly store: OAuthSubjectStore,
  ) {}

  /** The caller a bearer JWT stands for; `401 unauthorized` saying why it is refused, `403` without a role scope. */
  async authenticate(token: string): Promise<Caller> {
    const payload = await this.verify(token);
    if (typeof payload.sub !== "string" || payload.sub === "") {
      throw new CyrnelError("unauthorized", "the access token has no subject (sub)");
    }
    const caller = callerOfScopes(
      `${OAUTH_ID_PREFIX}${payload.sub}`,
      scopesOf(payload[this.config.scopesClaim]),
      this.config.scopesClaim,
    );
    // jwtVerify has checked that exp is there and in the future.
    const expiresAt = new Date((payload.exp as number) * 1000);
    await this.remember({
      id: caller.keyId as string,
      role: caller.role,
      services: caller.services,
      expiresAt: expiresAt.toISOString(),
      seenAt: new Date().toISOString(),
    });
    return caller;
  }

  /** The caller a process created by `oauth:<sub>` runs as now: the grants of that subject's latest token, until it expires. */
  async processCaller(id: string): Promise<Caller> {
    const row = await this.store.get(id);
    if (!row) throw new CyrnelError("forbidden", `no access token of "${id}" is known to this host`);
    if (Date.parse(row.expiresAt) <= Date.now()) {
      throw new CyrnelError(
        "forbidden",
        `the access token of "${id}" that this process runs with expired at ${row.expiresAt}: sign in again ` +
          "(any request with a newer token of the same subject lets its processes call tools again)",
      );
    }
    return { keyId: row.id, role: row.role, services: row.role === "agent" ? row.services : null };
  }

  private async remember(row: OAuthSubjectRow): Promise<void> {
    const grants = JSON.stringify([row.role, row.services, row.expiresAt]);
    if (this.written.get(row.id) === grants) return;
    await this.store.remember(row);
    if (this.written.size >= REMEMBERED_SUBJECTS) this.written.clear();
    this.written.set(row.id, grants);
  }

  private async verify(token: string): Promise<JWTPayload> {
    const keys = await this.jwks();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audiences,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        // A token that never expires would let its processes call tools forever: exp is required.
        requiredClaims: ["exp"],
        // RFC 9068 access tokens are typed at+jwt; providers that issue plain JWTs are common, so any typ passes.
      });
      return payload;
    } catch (error) {
      throw refusal(error, this.config);
    }
  }

  /** The issuer's key set, from its discovery document (read once; read again after a failure). */
  private jwks(): Promise<JWTVerifyGetKey> {
    this.keys ??= discoverJwksUri(this.config.issuer).then(
      (uri) => createRemoteJWKSet(new URL(uri), { timeoutDuration: DISCOVERY_TIMEOUT_MS }),
      (error: unknown) => {
        this.keys = null;
        throw issuerUnavailable(`its discovery document could not be read (${messageOf(error)})`);
      },
    );
    return this.keys;
  }
}

/** OpenID Connect discovery first, then RFC 8414 (at the root, with the issuer's path appended, and under it). */
async function discoverJwksUri(issuer: string): Promise<string> {
  const base = issuer.replace(/\/+$/, "");
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const candidates = [
    `${base}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${base}/.well-known/oauth-authorization-server`,
  ];
  const failures: string[] = [];
  for (const candidate of [...new Set(candidates)]) {
    let response: Response;
    try {
      response = await fetch(candidate, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
      });
    } catch (error) {
      failures.push(`${candidate}: ${messageOf(error)}`);
      continue;
    }
    if (!response.ok) {
      failures.push(`${candidate}: ${response.status}`);
      continue;
    }
    const document = (await response.json().catch(() => null)) as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (document === null || typeof document.jwks_uri !== "string") {
      failures.push(`${candidate}: no jwks_uri`);
      continue;
    }
    if (document.issuer !== issuer) {
      failures.push(`${candidate}: names issuer ${JSON.stringify(document.issuer)}, not ${issuer}`);
      continue;
    }
    return document.jwks_uri;
  }
  throw new Error(failures.join("; "));
}

/** The scopes of a token: a space-separated string (`scope`) or an array of strings (`scp`). */
export function scopesOf(claim: unknown): string[] {
  if (typeof claim === "string") return claim.split(/\s+/).filter((scope) => scope !== "");
  if (Array.isArray(claim)) return claim.filter((scope): scope is string => typeof scope === "string");
  return [];
}

/** The caller the scopes make: `403 forbidden` naming the scopes missing when neither role scope is there. */
export function callerOfScopes(id: string, scopes: string[], claim = "scope"): Caller {
  if (scopes.includes(ADMIN_SCOPE)) return { keyId: id, role: "admin", services: null };
  if (!scopes.includes(AGENT_SCOPE)) {
    throw new InsufficientScope(
      `the access token grants neither "${AGENT_SCOPE}" nor "${ADMIN_SCOPE}" (in its "${claim}" claim): ` +
        `ask the authorization server for the scope "${AGENT_SCOPE}"`,
      AGENT_SCOPE,
    );
  }
  const services = scopes
    .filter((scope) => scope.startsWith(SERVICE_SCOPE_PREFIX))
    .map((scope) => scope.slice(SERVICE_SCOPE_PREFIX.length))
    .filter((service) => service !== "");
  return { keyId: id, role: "agent", services: services.length === 0 ? null : [...new Set(services)].sort() };
}

/** Why jose refused a token, said plainly (never with the token). */
function refusal(error: unknown, config: OAuthConfig): CyrnelError {
  const say = (message: string) => new CyrnelError("unauthorized", `the access token is refused: ${message}`);
  if (error instanceof errors.JWTExpired) {
    const exp = (error.payload as JWTPayload).exp;
    return say(`it expired${typeof exp === "number" ? ` at ${new Date(exp * 1000).toISOString()}` : ""}`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    const payload = error.payload as JWTPayload;
    switch (error.claim) {
      case "nbf":
        return say(
          `it is not valid yet${typeof payload.nbf === "number" ? ` (not before ${new Date(payload.nbf * 1000).toISOString()})` : ""}`,
        );
      case "iat":
        return say("it was issued in the future");
      case "aud":
        return say(`it is not meant for this host: its audience (aud) is not ${config.audiences.join(" or ")}`);
      case "iss":
        return say(`it was issued by another issuer; this host accepts tokens of ${config.issuer}`);
      default:
        return say(`its "${error.claim}" claim is not valid (${error.reason})`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return say(`its signature algorithm is not accepted (only ${ALGORITHMS.join(", ")})`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return say("its signature does not verify against the issuer's keys");
  }
  if (error instanceof errors.JWKSTimeout || (error instanceof errors.JOSEError && error.code === "ERR_JOSE_GENERIC")) {
    return issuerUnavailable("its keys could not be read");
  }
  if (error instanceof errors.JOSEError) return say("it is not a well-formed signed JWT");
  return issuerUnavailable(messageOf(error));
}

/**
 * The issuer cannot be asked right now: `503`, not `401` — the token may be
 * good, and a client told 401 would throw it away and sign its user in again.
 */
function issuerUnavailable(why: string): CyrnelError {
  return new CyrnelError(
    "issuer_unavailable",
    `the access token cannot be checked now: the issuer ${why}; try again shortly`,
    { retryAfterSeconds: ISSUER_RETRY_SECONDS },
  );
}

/** When to ask again after the issuer could not be reached (its discovery is tried again on the next request). */
const ISSUER_RETRY_SECONDS = 5;
