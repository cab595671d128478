/**
 * What connections (connections.ts) keep in the database: a service's OAuth
 * client, its connected accounts and the authorization requests under way
 * (one implementation for both dialects: db/stores/connection-store.ts).
 * Tokens and the client secret are sealed values in the `secrets` table
 * (owners `connection` and `service-oauth`), written in the same
 * transaction as the row they belong to, so a row and its secrets come and
 * go together.
 */
import type { SealedValue } from "../secrets/secret-store.js";

export type CredentialsMode = "shared" | "per-caller";

/** The OAuth client an operator set up for a service. Null URLs and scopes: the ones the definition declares. */
export interface ServiceOAuthRow {
  serviceId: string;
  clientId: string;
  authorizationUrl: string | null;
  tokenUrl: string | null;
  revocationUrl: string | null;
  scopes: string[] | null;
  authorizationParams: Record<string, string>;
  credentials: CredentialsMode;
  updatedAt: string;
}

/** One connected account. `owner` is `shared`, or the caller it acts for (see `ownerOf`). */
export interface ConnectionRow {
  id: string;
  serviceId: string;
  owner: string;
  scopes: string[];
  /** When the access token expires (ISO-8601), or null when the provider did not say. */
  expiresAt: string | null;
  /** Whether a refresh token is kept. */
  refreshable: boolean;
  createdAt: string;
  refreshedAt: string | null;
}

/** An authorization request under way, found by the SHA-256 of its `state`. */
export interface ConnectionRequestRow {
  stateHash: string;
  serviceId: string;
  owner: string;
  /** The PKCE code verifier, sealed (SecretStore.sealText). */
  verifier: string;
  redirectUri: string;
  expiresAt: string;
  createdAt: string;
}

export interface ConnectionStore {
  settings(serviceId: string): Promise<ServiceOAuthRow | undefined>;
  /** Writes the settings; `clientSecret` (sealed) replaces the stored one when given, `null` removes it. */
  putSettings(row: ServiceOAuthRow, clientSecret: readonly SealedValue[] | null | undefined): Promise<void>;
  /** Drops the settings, the client secret, every connection (and its tokens) and request of the service. */
  deleteSettings(serviceId: string): Promise<void>;
  /** Drops every connection of the service (and their tokens): what was connected under other settings. */
  deleteConnections(serviceId: string): Promise<void>;

  addRequest(row: ConnectionRequestRow): Promise<void>;
  /** Takes (deletes and returns) the request: a `state` is good once, across hosts. */
  takeRequest(stateHash: string): Promise<ConnectionRequestRow | undefined>;
  /** Whether the request is still there (not taken by a callback on any host, not pruned). */
  hasRequest(stateHash: string): Promise<boolean>;
  /** Deletes requests that expired before `now` (ISO-8601). */
  pruneRequests(now: string): Promise<void>;

  connection(serviceId: string, owner: string): Promise<ConnectionRow | undefined>;
  connectionById(serviceId: string, id: string): Promise<ConnectionRow | undefined>;
  /** The service's connections, by creation; only `owner`'s when given. */
  list(serviceId: string, owner?: string): Promise<ConnectionRow[]>;
  /** Stores a new connection with its tokens, replacing the owner's previous one (and its tokens). */
  replaceConnection(row: ConnectionRow, tokens: readonly SealedValue[]): Promise<void>;
  /** New tokens of a connection after a refresh; false when the connection is gone. */
  updateTokens(
    id: string,
    values: Pick<ConnectionRow, "scopes" | "expiresAt" | "refreshable" | "refreshedAt">,
    tokens: readonly SealedValue[],
  ): Promise<boolean>;
  /** Deletes the connection and its tokens; false when there was none. */
  deleteConnection(serviceId: string, id: string): Promise<boolean>;
}
