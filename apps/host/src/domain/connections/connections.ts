/**
 * Connections: a service's calls act for a user's account, through the
 * OAuth2 authorization-code flow with PKCE (RFC 6749 §4.1, RFC 7636).
 *
 * - **Set up.** An operator gives the service an OAuth client
 *   (`PUT /services/:id/oauth`): its id and secret, and the authorization
 *   and token URLs when the definition declares none
 *   (`ServiceDefinition.authorization`). `credentials` says whose account a
 *   call uses: `shared` (one account for every caller, connected by an
 *   admin) or `per-caller` (each key or OAuth subject connects its own).
 * - **Connect.** `start` makes an authorization URL with a single-use
 *   `state` (only its SHA-256 is stored) and a PKCE verifier (stored sealed),
 *   good for 10 minutes. The provider sends the browser to
 *   `GET /oauth/callback`; `finish` takes the request (once, across hosts),
 *   trades the code for tokens and stores them sealed like every secret.
 * - **Call.** The tool gate asks `credentialFor` before each call of a
 *   service that has a client: the caller's (or the shared) connection's
 *   access token, refreshed first when it is about to expire. No connection:
 *   `403 connection_required`, with a fresh authorization URL when the
 *   caller may connect. After an upstream 401 the gate asks
 *   `refreshAfterRejection` once and calls again.
 * - **Refresh** runs under the connection's lock (across hosts on
 *   PostgreSQL), and reads the connection again inside it: of many calls
 *   (on any host) that find the token stale, one refreshes and the others use
 *   what it got. A refresh token the provider refuses ends the connection.
 *
 * Tokens never leave this module except to the adapter of a call, and are
 * never logged.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AuthorizationCodeFlow } from "@cyrnel/sdk";
import { CyrnelError, messageOf, notFound } from "../../errors.js";
import type { Locks } from "../../lib/keyed-mutex.js";
import type { HostLogger } from "../../log.js";
import { type Caller, seesService } from "../governance/caller.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { serviceNotFound } from "../services/not-found.js";
import type { ServiceStore } from "../services/service-store.js";
import type { ConnectionRow, ConnectionStore, CredentialsMode, ServiceOAuthRow } from "./connection-store.js";
import { GrantRefused, type OAuthClient, requestTokens, revokeToken } from "./token-endpoint.js";

/** The owner of a shared connection. */
export const SHARED_OWNER = "shared";
/** How long an authorization URL (its `state`) can be used. */
export const REQUEST_TTL_MS = 10 * 60_000;
/** At most this early before expiry, a token is refreshed (earlier only for tokens living under 5 minutes). */
const MAX_EARLY_REFRESH_MS = 30_000;
/** Parameters of the authorization request the host sets itself; `authorizationParams` cannot replace them. */
const PROTOCOL_PARAMS = new Set([
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "scope",
  "code_challenge",
  "code_challenge_method",
]);

/** Whose account a caller's calls use under per-caller credentials: its key id, `oauth:<sub>`, or `bootstrap`. */
export const ownerOf = (caller: Pick<Caller, "keyId">): string => caller.keyId ?? "bootstrap";

export interface OAuthSettingsInput {
  clientId: string;
  /** Left out: the stored secret is kept; null: removed (a public client). */
  clientSecret?: string | null;
  authorizationUrl?: string | null;
  tokenUrl?: string | null;
  revocationUrl?: string | null;
  scopes?: string[] | null;
  credentials?: CredentialsMode;
  authorizationParams?: Record<string, string>;
}

export interface OAuthSettingsView {
  serviceId: string;
  declared: AuthorizationCodeFlow | null;
  clientId: string | null;
  clientSecretSet: boolean;
  authorizationUrl: string | null;
  tokenUrl: string | null;
  revocationUrl: string | null;
  scopes: string[];
  credentials: CredentialsMode;
  authorizationParams: Record<string, string>;
  redirectUri: string;
  ready: boolean;
}

export type ConnectionView = ConnectionRow;

export interface ConnectionStart {
  authorizationUrl: string;
  expiresAt: string;
  owner: string;
}

export interface CallCredential {
  connectionId: string;
  accessToken: string;
}

export interface ConnectionsOptions {
  store: ConnectionStore;
  services: Pick<ServiceStore, "get" | "serviceIds" | "revision" | "changedElsewhere">;
  secrets: Pick<SecretStore, "read" | "seal" | "sealText" | "openText">;
  /** One refresh of a connection at a time (a `ClusterMutex` when hosts share PostgreSQL). */
  locks: Locks;
  logger: HostLogger;
  /** Where providers send the browser back: `<advertised URL>/oauth/callback` (known once the host listens). */
  redirectUri: () => string;
  /** Bound of each request to a provider. */
  timeoutMs: number;
}

/** What a settings row and the definition's declared flow make together. */
interface Effective {
  row: ServiceOAuthRow;
  authorizationUrl: string | null;
  tokenUrl: string | null;
  scopes: string[];
}

interface Tokens {
  accessToken: string;
  refreshToken: string | null;
}

export class Connections {
  /** Settings per service (null: none), kept for one revision of the services (settings writes move it). */
  private readonly settingsCache = new Map<string, ServiceOAuthRow | null>();
  private settingsRevision = -1;
  /** Each connection's tokens as last read, with the write they came from (`refreshedAt ?? createdAt`). */
  private readonly tokenCache = new Map<string, { stamp: string; tokens: Tokens }>();
  /**
   * The authorization URL last handed out with `connection_required`, per service and owner: code that calls in a
   * loop gets the same URL (one request row) while it has at least half its lifetime left, not a row per call.
   */
  private readonly offered = new Map<string, ConnectionStart & { stateHash: string }>();

  constructor(private readonly options: ConnectionsOptions) {}

  // ---- settings (admin) ------------------------------------------------------------------------------------------

  async view(serviceId: string): Promise<OAuthSettingsView> {
    const declared = await this.declared(serviceId);
    const row = await this.options.store.settings(serviceId);
    const secret = row ? await this.clientSecret(serviceId) : null;
    const authorizationUrl = row?.authorizationUrl ?? declared?.authorizationUrl ?? null;
    const tokenUrl = row?.tokenUrl ?? declared?.tokenUrl ?? null;
    return {
      serviceId,
      declared,
      clientId: row?.clientId ?? null,
      clientSecretSet: secret !== null,
      authorizationUrl,
      tokenUrl,
      revocationUrl: row?.revocationUrl ?? null,
      scopes: row?.scopes ?? declared?.scopes ?? [],
      credentials: row?.credentials ?? "shared",
      authorizationParams: row?.authorizationParams ?? {},
      redirectUri: this.options.redirectUri(),
      ready: row !== undefined && authorizationUrl !== null && tokenUrl !== null,
    };
  }

  async configure(serviceId: string, input: OAuthSettingsInput): Promise<OAuthSettingsView> {
    const declared = await this.declared(serviceId);
    const previous = await this.options.store.settings(serviceId);
    const url = (field: string, value: string | null | undefined) => (value ? httpUrl(field, value) : null);
    const row: ServiceOAuthRow = {
      serviceId,
      clientId: input.clientId,
      authorizationUrl: url("authorizationUrl", input.authorizationUrl),
      tokenUrl: url("tokenUrl", input.tokenUrl),
      revocationUrl: url("revocationUrl", input.revocationUrl),
      scopes: input.scopes ?? null,
      authorizationParams: input.authorizationParams ?? {},
      credentials: input.credentials ?? "shared",
      updatedAt: new Date().toISOString(),
    };
    for (const name of Object.keys(row.authorizationParams)) {
      if (PROTOCOL_PARAMS.has(name)) {
        throw new CyrnelError(
          "validation_failed",
          `authorizationParams: "${name}" is set by the host itself; give scopes in "scopes"`,
        );
      }
    }
    const authorizationUrl = row.authorizationUrl ?? declared?.authorizationUrl ?? null;
    if (authorizationUrl === null || (row.tokenUrl ?? declared?.tokenUrl ?? null) === null) {
      throw new CyrnelError(
        "validation_failed",
        `service "${serviceId}" declares no authorization-code flow: give authorizationUrl and tokenUrl`,
      );
    }
    const secret =
      input.clientSecret === undefined
        ? undefined
        : input.clientSecret === null
          ? null
          : this.options.secrets.seal({ type: "service-oauth", id: serviceId }, { clientSecret: input.clientSecret });
    await this.written(serviceId, () => this.options.store.putSettings(row, secret));
    // Connections made for the other kind of owner would be used by nobody (or by the wrong callers).
    if (previous && previous.credentials !== row.credentials) {
      await this.options.store.deleteConnections(serviceId);
      this.options.logger.info("connections dropped: the service's credentials changed", {
        serviceId,
        credentials: row.credentials,
      });
    }
    return this.view(serviceId);
  }

  /** Turns connections off for the service: settings, client secret, every connection and request. */
  async unconfigure(serviceId: string): Promise<void> {
    await this.declared(serviceId);
    await this.written(serviceId, () => this.options.store.deleteSettings(serviceId));
  }

  // ---- connecting ------------------------------------------------------------------------------------------------

  async start(serviceId: string, caller: Caller): Promise<ConnectionStart> {
    await this.visible(serviceId, caller);
    const effective = await this.effective(serviceId);
    if (effective === null) {
      throw new CyrnelError(
        "conflict",
        `service "${serviceId}" has no OAuth client for connections: an admin sets one with PUT /services/${serviceId}/oauth`,
      );
    }
    const owner = effective.row.credentials === "shared" ? SHARED_OWNER : ownerOf(caller);
    if (owner === SHARED_OWNER && caller.role !== "admin") {
      throw new CyrnelError(
        "forbidden",
        `service "${serviceId}" acts for one shared account, which only an admin connects`,
      );
    }
    return this.request(effective, owner);
  }

  /** The provider's redirect: takes the request its `state` names, trades the code for tokens, stores them. */
  async finish(query: Record<string, string | undefined>): Promise<ConnectionView> {
    const state = query.state;
    if (!state) {
      throw new CyrnelError("validation_failed", "the callback has no `state`: open the authorization URL again");
    }
    const request = await this.options.store.takeRequest(hashOf(state));
    if (request === undefined || Date.parse(request.expiresAt) < Date.now()) {
      throw new CyrnelError(
        "validation_failed",
        "this authorization `state` is unknown, already used or expired (a state is good once, for " +
          `${REQUEST_TTL_MS / 60_000} minutes): start again with POST /services/{id}/connections`,
      );
    }
    if (query.error) {
      const description = query.error_description ? `: ${query.error_description}` : "";
      throw new CyrnelError(
        "validation_failed",
        `the provider did not authorize the connection to service "${request.serviceId}" (${query.error}${description})`,
      );
    }
    if (!query.code) throw new CyrnelError("validation_failed", "the callback has no authorization `code`");
    const effective = await this.effective(request.serviceId);
    if (effective === null || effective.tokenUrl === null) {
      throw new CyrnelError("conflict", `service "${request.serviceId}" no longer has an OAuth client`);
    }
    let verifier: string;
    try {
      verifier = this.options.secrets.openText(verifierLabel(request.stateHash), request.verifier);
    } catch (error) {
      throw new CyrnelError("conflict", `the authorization request cannot be read: ${messageOf(error)}`);
    }
    const client = await this.client(effective.row);
    let tokens: Awaited<ReturnType<typeof requestTokens>>;
    try {
      tokens = await requestTokens(effective.tokenUrl, client, {
        grant_type: "authorization_code",
        code: query.code,
        redirect_uri: request.redirectUri,
        code_verifier: verifier,
      });
    } catch (error) {
      if (error instanceof GrantRefused) throw new CyrnelError("validation_failed", error.message);
      throw error;
    }
    const now = new Date();
    const row: ConnectionRow = {
      id: `conn_${randomBytes(12).toString("base64url")}`,
      serviceId: request.serviceId,
      owner: request.owner,
      scopes: tokens.scopes ?? effective.scopes,
      expiresAt: expiryOf(now, tokens.expiresIn),
      refreshable: tokens.refreshToken !== null,
      createdAt: now.toISOString(),
      refreshedAt: null,
    };
    const values = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
    await this.options.store.replaceConnection(row, this.sealTokens(row.id, values));
    this.tokenCache.set(row.id, { stamp: row.createdAt, tokens: values });
    this.options.logger.info("account connected", { serviceId: row.serviceId, connectionId: row.id, owner: row.owner });
    return row;
  }

  async list(serviceId: string, caller: Caller): Promise<ConnectionView[]> {
    await this.visible(serviceId, caller);
    return this.options.store.list(serviceId, caller.role === "admin" ? undefined : ownerOf(caller));
  }

  /** Revokes the tokens at the provider (when it has a revocation URL) and forgets the connection. */
  async revoke(serviceId: string, connectionId: string, caller: Caller): Promise<void> {
    await this.visible(serviceId, caller);
    const row = await this.options.store.connectionById(serviceId, connectionId);
    if (row === undefined || (caller.role !== "admin" && row.owner !== ownerOf(caller))) {
      throw notFound(`connection "${connectionId}" of service "${serviceId}"`);
    }
    const settings = await this.options.store.settings(serviceId);
    if (settings?.revocationUrl) {
      try {
        const tokens = await this.tokensOf(row);
        const client = await this.client(settings);
        const [token, hint] =
          tokens.refreshToken === null
            ? [tokens.accessToken, "access_token" as const]
            : [tokens.refreshToken, "refresh_token" as const];
        if (!(await revokeToken(settings.revocationUrl, client, token, hint))) {
          this.options.logger.warn("the provider did not confirm the revocation", { serviceId, connectionId });
        }
      } catch (error) {
        this.options.logger.warn("revoking a connection's token failed; the connection is forgotten anyway", {
          serviceId,
          connectionId,
          error: messageOf(error),
        });
      }
    }
    await this.options.store.deleteConnection(serviceId, connectionId);
    this.tokenCache.delete(connectionId);
  }

  // ---- calls -----------------------------------------------------------------------------------------------------

  /**
   * The access token a call of `caller` to the service carries, or null
   * when the service has no OAuth client (its calls use its secrets only).
   * Throws `connection_required` when the account to act for is not
   * connected.
   */
  async credentialFor(serviceId: string, caller: Caller): Promise<CallCredential | null> {
    const settings = await this.settingsOf(serviceId);
    if (settings === null) return null;
    const owner = settings.credentials === "shared" ? SHARED_OWNER : ownerOf(caller);
    const row = await this.options.store.connection(serviceId, owner);
    if (row === undefined) throw await this.required(serviceId, caller, owner, "has none");
    const tokens = await this.tokensOf(row);
    if (!this.expiresSoon(row)) return { connectionId: row.id, accessToken: tokens.accessToken };
    const fresh = row.refreshable ? await this.refresh(row, tokens.accessToken, caller) : null;
    if (fresh === null) {
      throw await this.required(serviceId, caller, owner, "has one whose access token expired and cannot be refreshed");
    }
    return { connectionId: row.id, accessToken: fresh };
  }

  /**
   * The upstream answered 401 to `rejected`: a new access token (refreshed
   * now, or by another call meanwhile), or null when there is none to get.
   */
  async refreshAfterRejection(
    serviceId: string,
    connectionId: string,
    rejected: string,
    caller: Caller,
  ): Promise<string | null> {
    const row = await this.options.store.connectionById(serviceId, connectionId);
    if (row === undefined || !row.refreshable) return null;
    return this.refresh(row, rejected, caller);
  }

  // ---- inside ----------------------------------------------------------------------------------------------------

  private async refresh(row: ConnectionRow, stale: string, caller: Caller): Promise<string | null> {
    return this.options.locks.run(`connection:${row.id}`, async () => {
      // Read again under the lock: another call (on any host) may have refreshed it meanwhile.
      const current = await this.options.store.connectionById(row.serviceId, row.id);
      if (current === undefined) throw await this.required(row.serviceId, caller, row.owner, "has none");
      const tokens = await this.tokensOf(current);
      if (tokens.accessToken !== stale && !this.expiresSoon(current)) return tokens.accessToken;
      const effective = await this.effective(row.serviceId);
      if (tokens.refreshToken === null || effective === null || effective.tokenUrl === null) return null;
      let fresh: Awaited<ReturnType<typeof requestTokens>>;
      try {
        fresh = await requestTokens(effective.tokenUrl, await this.client(effective.row), {
          grant_type: "refresh_token",
          refresh_token: tokens.refreshToken,
        });
      } catch (error) {
        if (!(error instanceof GrantRefused)) throw error;
        // The grant is gone at the provider (revoked, expired): so is the connection.
        await this.options.store.deleteConnection(row.serviceId, row.id);
        this.tokenCache.delete(row.id);
        this.options.logger.warn("a connection's refresh token was refused; the account must connect again", {
          serviceId: row.serviceId,
          connectionId: row.id,
        });
        throw await this.required(row.serviceId, caller, row.owner, "had one whose grant the provider refused");
      }
      const now = new Date();
      // A provider that does not rotate refresh tokens sends none back: the one held stays good.
      const values = { accessToken: fresh.accessToken, refreshToken: fresh.refreshToken ?? tokens.refreshToken };
      const update = {
        scopes: fresh.scopes ?? current.scopes,
        expiresAt: expiryOf(now, fresh.expiresIn),
        refreshable: true,
        refreshedAt: now.toISOString(),
      };
      await this.options.store.updateTokens(row.id, update, this.sealTokens(row.id, values));
      this.tokenCache.set(row.id, { stamp: update.refreshedAt, tokens: values });
      return fresh.accessToken;
    });
  }

  /** `403 connection_required`, with a fresh authorization URL when this caller may connect the account. */
  private async required(serviceId: string, caller: Caller, owner: string, why: string): Promise<CyrnelError> {
    if (owner === SHARED_OWNER && caller.role !== "admin") {
      return new CyrnelError(
        "connection_required",
        `service "${serviceId}" acts for a shared connected account and ${why}: an admin connects it ` +
          `(POST /services/${serviceId}/connections)`,
      );
    }
    const whose = owner === SHARED_OWNER ? "its shared account" : "this caller's own account";
    const effective = await this.effective(serviceId);
    if (effective === null) {
      return new CyrnelError("connection_required", `service "${serviceId}" acts for ${whose} and ${why}`);
    }
    const key = `${serviceId}\u0000${owner}`;
    let start = this.offered.get(key);
    // Reused only while its state is unused on every host (a callback takes it) and has half its lifetime left.
    const usable =
      start !== undefined &&
      Date.parse(start.expiresAt) - Date.now() >= REQUEST_TTL_MS / 2 &&
      (await this.options.store.hasRequest(start.stateHash));
    if (!usable || start === undefined) {
      const fresh = await this.request(effective, owner);
      start = { ...fresh, stateHash: hashOf(new URL(fresh.authorizationUrl).searchParams.get("state") ?? "") };
      this.offered.set(key, start);
    }
    return new CyrnelError(
      "connection_required",
      `service "${serviceId}" acts for ${whose} and ${why}: open ${start.authorizationUrl} in a browser to ` +
        `connect it (good for ${REQUEST_TTL_MS / 60_000} minutes), then call again`,
      { authorizationUrl: start.authorizationUrl, expiresAt: start.expiresAt },
    );
  }

  private async request(effective: Effective, owner: string): Promise<ConnectionStart> {
    const { row } = effective;
    const state = randomBytes(32).toString("base64url");
    const verifier = randomBytes(32).toString("base64url");
    const stateHash = hashOf(state);
    const redirectUri = this.options.redirectUri();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + REQUEST_TTL_MS).toISOString();
    await this.options.store.pruneRequests(now.toISOString());
    await this.options.store.addRequest({
      stateHash,
      serviceId: row.serviceId,
      owner,
      verifier: this.options.secrets.sealText(verifierLabel(stateHash), verifier),
      redirectUri,
      expiresAt,
      createdAt: now.toISOString(),
    });
    const url = new URL(effective.authorizationUrl as string);
    for (const [name, value] of Object.entries(row.authorizationParams)) url.searchParams.set(name, value);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", row.clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("state", state);
    url.searchParams.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
    url.searchParams.set("code_challenge_method", "S256");
    if (effective.scopes.length > 0) url.searchParams.set("scope", effective.scopes.join(" "));
    return { authorizationUrl: url.href, expiresAt, owner };
  }

  /** Whether the connection's access token expires within its early-refresh margin. */
  private expiresSoon(row: ConnectionRow): boolean {
    if (row.expiresAt === null) return false;
    const expires = Date.parse(row.expiresAt);
    const issued = Date.parse(row.refreshedAt ?? row.createdAt);
    const early = Math.min(MAX_EARLY_REFRESH_MS, Math.max(0, expires - issued) / 10);
    return Date.now() >= expires - early;
  }

  private async tokensOf(row: ConnectionRow): Promise<Tokens> {
    const stamp = row.refreshedAt ?? row.createdAt;
    const cached = this.tokenCache.get(row.id);
    if (cached?.stamp === stamp) return cached.tokens;
    const values = await this.options.secrets.read({ type: "connection", id: row.id });
    if (typeof values.accessToken !== "string") {
      throw new CyrnelError("conflict", `connection "${row.id}" has no access token stored; connect again`);
    }
    const tokens = {
      accessToken: values.accessToken,
      refreshToken: typeof values.refreshToken === "string" ? values.refreshToken : null,
    };
    this.tokenCache.set(row.id, { stamp, tokens });
    return tokens;
  }

  private sealTokens(id: string, tokens: Tokens) {
    return this.options.secrets.seal(
      { type: "connection", id },
      tokens.refreshToken === null ? { accessToken: tokens.accessToken } : { ...tokens },
    );
  }

  private async client(row: ServiceOAuthRow): Promise<OAuthClient> {
    return {
      clientId: row.clientId,
      clientSecret: await this.clientSecret(row.serviceId),
      timeoutMs: this.options.timeoutMs,
    };
  }

  private async clientSecret(serviceId: string): Promise<string | null> {
    const values = await this.options.secrets.read({ type: "service-oauth", id: serviceId });
    return typeof values.clientSecret === "string" ? values.clientSecret : null;
  }

  /** Whether the service has an OAuth client set up (its calls may carry a connected account's token). */
  async configured(serviceId: string): Promise<boolean> {
    return (await this.settingsOf(serviceId)) !== null;
  }

  /** The settings a call goes by, kept per revision of the services (a settings write moves it on every host). */
  private async settingsOf(serviceId: string): Promise<ServiceOAuthRow | null> {
    const revision = this.options.services.revision;
    if (revision !== this.settingsRevision) {
      this.settingsCache.clear();
      this.settingsRevision = revision;
    }
    const cached = this.settingsCache.get(serviceId);
    if (cached !== undefined) return cached;
    const row = (await this.options.store.settings(serviceId)) ?? null;
    if (this.options.services.revision === revision) this.settingsCache.set(serviceId, row);
    return row;
  }

  private async effective(serviceId: string): Promise<Effective | null> {
    const row = await this.options.store.settings(serviceId);
    if (row === undefined) return null;
    const declared = (await this.options.services.get(serviceId))?.authorization ?? null;
    const authorizationUrl = row.authorizationUrl ?? declared?.authorizationUrl ?? null;
    if (authorizationUrl === null) return null;
    return {
      row,
      authorizationUrl,
      tokenUrl: row.tokenUrl ?? declared?.tokenUrl ?? null,
      scopes: row.scopes ?? declared?.scopes ?? [],
    };
  }

  /** The declared flow of a service that exists (404 otherwise; settings routes are the admin's). */
  private async declared(serviceId: string): Promise<AuthorizationCodeFlow | null> {
    const service = await this.options.services.get(serviceId);
    if (service === undefined) throw await serviceNotFound(this.options.services, serviceId, { services: null });
    return service.authorization;
  }

  private async visible(serviceId: string, caller: Caller): Promise<void> {
    if (!seesService(caller, serviceId) || (await this.options.services.get(serviceId)) === undefined) {
      throw await serviceNotFound(this.options.services, serviceId, caller);
    }
  }

  /** A settings write, then the services' revision moved here (other hosts move theirs on its change). */
  private async written(serviceId: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } finally {
      this.options.services.changedElsewhere(serviceId);
    }
  }
}

const hashOf = (state: string) => createHash("sha256").update(state).digest("hex");
const verifierLabel = (stateHash: string) => `connection-request\u0000${stateHash}`;

function expiryOf(now: Date, expiresIn: number | null): string | null {
  return expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000).toISOString();
}

function httpUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CyrnelError("validation_failed", `${field} is not an absolute URL: "${value}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new CyrnelError("validation_failed", `${field} must be an http(s) URL, got "${value}"`);
  }
  return url.href;
}
