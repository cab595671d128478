/**
 * API keys: `CYRNEL_API_KEY` (the bootstrap admin key, never stored) and
 * the keys an admin creates, each with a role, an optional service
 * allow-list and an optional expiry. A stored key is shown once: only its
 * SHA-256 is kept, and requests find their key by that hash.
 *
 * Authentication is on when `CYRNEL_API_KEY` is set or any key is stored.
 * Without `CYRNEL_API_KEY`, once keys exist one of them is always an admin
 * key: the first key must be an admin key and the last admin key cannot be
 * revoked, so creating or revoking keys can neither lock the operator out
 * nor turn authentication off behind their back.
 *
 * Revoking keeps the key's row, marked revoked (`revokedAt`, `revokedBy`), so
 * the list still names it; everything that authenticates or counts keys treats
 * a revoked key as absent (key-store.ts), and this file checks `revokedAt`
 * again wherever a row becomes a caller, so a revoked key is refused exactly
 * as an unknown one: 401 `invalid API key` for a request, 403 for its processes.
 *
 * With OAuth on (`CYRNEL_OAUTH_ISSUER`, oauth-tokens.ts) authentication is
 * always on, and a bearer token that is not a key but a JWT is checked as an
 * access token of the issuer; its caller's id is `oauth:<sub>`.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { isValidIdentifier } from "@cyrnel/sdk";
import type { CreatedKey, CreateKeyBody, KeyRecord } from "../../contract/keys.js";
import { CyrnelError, notFound } from "../../errors.js";
import type { ProcessEvents } from "../processes/process-events.js";
import { BOOTSTRAP_CALLER, type Caller } from "./caller.js";
import type { KeyRow, KeyStore } from "./key-store.js";
import { isOAuthId, looksLikeJwt, type OAuthTokens } from "./oauth-tokens.js";

/** `lastUsedAt` is written at most this often per key: a busy agent would otherwise write on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const KEY_PREFIX = "cyk_";
const MAX_NAME_CHARS = 100;

/** `revokedBy` when CYRNEL_API_KEY revoked a key: the id call records use for it too. */
const BOOTSTRAP_KEY_ID = "bootstrap";

const sha256 = (value: string) => createHash("sha256").update(value, "utf8").digest();

export class ApiKeys {
  private readonly bootstrapDigest: Buffer | null;
  /**
   * Once a live key is stored one always is (without CYRNEL_API_KEY the last admin key cannot be revoked), so a `true`
   * is kept and requests stop asking; a `false` is asked again each time, since another host may create a key.
   */
  private keysStored = false;

  constructor(
    private readonly store: KeyStore,
    /** `CYRNEL_API_KEY`, or null. */
    bootstrapKey: string | null,
    /** Where a revoked key is told (`keyRevoked`, awaited: what its processes wait for ends with it). */
    private readonly events: ProcessEvents,
    /** Access tokens of the OAuth issuer, when `CYRNEL_OAUTH_ISSUER` is set. */
    private readonly oauth: OAuthTokens | null = null,
  ) {
    this.bootstrapDigest = bootstrapKey === null ? null : sha256(bootstrapKey);
  }

  /** Whether requests must carry a key or token: `CYRNEL_API_KEY` or OAuth is set, or any live key is stored. */
  async required(): Promise<boolean> {
    if (this.bootstrapDigest !== null || this.oauth !== null || this.keysStored) return true;
    this.keysStored = await this.store.any();
    return this.keysStored;
  }

  /**
   * The caller a bearer token stands for. Both comparisons are of SHA-256
   * digests, in constant time, so neither the key nor its length leaks
   * through timing; a stored key is found by its digest.
   */
  async authenticate(token: string): Promise<Caller> {
    const digest = sha256(token);
    if (this.bootstrapDigest !== null && timingSafeEqual(digest, this.bootstrapDigest)) return BOOTSTRAP_CALLER;
    // Stored keys (`cyk_…`) have no dots: a JWT is never one.
    if (this.oauth !== null && looksLikeJwt(token)) return this.oauth.authenticate(token);
    const row = await this.store.byHash(digest.toString("hex"));
    // The store finds live keys only; revokedAt is checked again so that no lookup can let a revoked key through.
    if (!row || row.revokedAt !== null || !timingSafeEqual(Buffer.from(row.hash, "hex"), digest)) {
      throw new CyrnelError("unauthorized", "invalid API key");
    }
    const now = Date.now();
    if (expired(row, now)) throw new CyrnelError("unauthorized", `this API key expired at ${row.expiresAt}`);
    if (row.lastUsedAt === null || now - Date.parse(row.lastUsedAt) >= LAST_USED_RESOLUTION_MS) {
      await this.store.touch(row.id, new Date(now).toISOString());
    }
    return callerOf(row);
  }

  /**
   * The caller a process's tool calls run as: its key as it is now (a
   * narrowed allow-list applies at once). A key revoked or expired since
   * the process started can no longer call anything. A process created with
   * an OAuth token runs as its subject's latest token (OAuthTokens.processCaller).
   */
  async processCaller(keyId: string | null): Promise<Caller> {
    if (keyId === null) return BOOTSTRAP_CALLER;
    if (isOAuthId(keyId)) {
      if (this.oauth === null) {
        throw new CyrnelError("forbidden", `"${keyId}" signed in with OAuth, which this host no longer accepts`);
      }
      return this.oauth.processCaller(keyId);
    }
    const row = await this.store.get(keyId);
    if (!row || row.revokedAt !== null) {
      throw new CyrnelError("forbidden", "the API key that started this process was revoked");
    }
    if (expired(row, Date.now())) {
      throw new CyrnelError("forbidden", `the API key that started this process expired at ${row.expiresAt}`);
    }
    return callerOf(row);
  }

  async create(input: CreateKeyBody): Promise<CreatedKey> {
    const name = input.name.trim();
    if (name === "" || name.length > MAX_NAME_CHARS) {
      throw new CyrnelError("bad_request", `"name" must be 1 to ${MAX_NAME_CHARS} characters`);
    }
    const services = input.services ?? null;
    if (services !== null) {
      if (input.role === "admin") {
        throw new CyrnelError(
          "bad_request",
          `"services" applies to agent keys only: an admin key reaches every service`,
        );
      }
      const invalid = services.find((id) => !isValidIdentifier(id));
      if (invalid !== undefined) {
        throw new CyrnelError("bad_request", `"services" has "${invalid}", which is not a valid service id`);
      }
    }
    let expiresAt: string | null = null;
    if (input.expiresAt != null) {
      const at = Date.parse(input.expiresAt);
      if (Number.isNaN(at)) throw new CyrnelError("bad_request", `"expiresAt" is not an ISO-8601 date-time`);
      if (at <= Date.now()) throw new CyrnelError("bad_request", `"expiresAt" must be in the future`);
      expiresAt = new Date(at).toISOString();
    }
    const key = KEY_PREFIX + randomBytes(32).toString("base64url");
    const row: KeyRow = {
      id: `key_${randomBytes(8).toString("hex")}`,
      name,
      role: input.role,
      // Services that are not installed (yet) are allowed: services come and go, the list is the key's.
      services: services === null ? null : [...new Set(services)],
      hash: sha256(key).toString("hex"),
      createdAt: new Date().toISOString(),
      expiresAt,
      lastUsedAt: null,
      revokedAt: null,
      revokedBy: null,
    };
    const outcome = await this.store.insert(row, ({ admins }) =>
      this.bootstrapDigest === null && admins === 0 && row.role !== "admin"
        ? "no admin key exists and CYRNEL_API_KEY is not set: this key would turn authentication on with no key " +
          "left that can manage the host; create an admin key first"
        : null,
    );
    if ("refused" in outcome) throw new CyrnelError("conflict", outcome.refused);
    return { ...keyRecord(row), key };
  }

  async get(id: string): Promise<KeyRecord> {
    const row = await this.store.get(id);
    if (!row) throw notFound(`API key "${id}"`);
    return keyRecord(row);
  }

  /** Live and revoked keys, or only those `revoked` says. */
  list(filter: { after?: [string, string]; limit: number; revoked?: boolean }): Promise<KeyRow[]> {
    return this.store.list(filter);
  }

  /**
   * Revokes the key, keeping its row: the next request with it is refused, its processes can no longer call tools,
   * and the approvals they wait for expire (`keyRevoked`). Were that to fail, those approvals could still be approved,
   * but the call would not be made: the tool gate reads the key again after every decision. Revoking a key twice is a
   * 404, as it was when revoking deleted the row.
   */
  async revoke(id: string, by: Caller): Promise<void> {
    const revocation = { at: new Date().toISOString(), by: by.keyId ?? BOOTSTRAP_KEY_ID };
    const outcome = await this.store.revoke(id, revocation, (key, remaining) =>
      this.bootstrapDigest === null && key.role === "admin" && remaining.admins === 0
        ? `"${key.name}" is the last admin key and CYRNEL_API_KEY is not set: revoking it would leave no key that ` +
          "can manage the host; create another admin key first"
        : null,
    );
    if (outcome === "not_found") throw notFound(`API key "${id}"`);
    if (typeof outcome === "object") {
      if ("refused" in outcome) throw new CyrnelError("conflict", outcome.refused);
      throw new CyrnelError("not_found", `API key "${id}" was already revoked, at ${outcome.alreadyRevokedAt}`);
    }
    await this.events.emit("keyRevoked", { keyId: id });
  }
}

export function keyRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    services: row.services,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    revokedBy: row.revokedBy,
  };
}

const expired = (row: KeyRow, now: number) => row.expiresAt !== null && Date.parse(row.expiresAt) <= now;

const callerOf = (row: KeyRow): Caller => ({
  keyId: row.id,
  role: row.role,
  services: row.role === "agent" ? row.services : null,
});
