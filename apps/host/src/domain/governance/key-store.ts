/**
 * The API keys store. The checks that keep an admin key around run in the transaction of the write.
 *
 * A revoked key keeps its row (`revokedAt`), to be listed as revoked; every method that authenticates or counts
 * (`any`, `byHash`, the counts `insert` and `revoke` ask about) sees live keys only, so a revoked key is exactly as
 * absent there as a deleted one. `get` and `list` show both.
 */

/** A stored API key: only the SHA-256 of the key itself is kept. */
export interface KeyRow {
  id: string;
  name: string;
  role: "admin" | "agent";
  /** Service ids the key may reach; null = all. */
  services: string[] | null;
  /** SHA-256 (hex) of the key. */
  hash: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** When it was revoked; null = live. */
  revokedAt: string | null;
  /** The caller that revoked it (a key id, `bootstrap`, `oauth:<sub>`); null while live. */
  revokedBy: string | null;
}

/** Live (unrevoked) keys: all, and the admin keys among them. */
export interface KeyCounts {
  admins: number;
  all: number;
}

/**
 * Every request with a key reads it by hash, and every tool call from a
 * process started with one reads it by id: implementations prepare those.
 */
export interface KeyStore {
  /** Whether any live key is stored (authentication is then on). */
  any(): Promise<boolean>;
  /** The key, live or revoked. */
  get(id: string): Promise<KeyRow | undefined>;
  /** The live key with this hash: a revoked one is never found. */
  byHash(hash: string): Promise<KeyRow | undefined>;
  /**
   * Oldest first; `limit + 1` rows so the caller can tell whether there is a next page. `revoked`: only revoked
   * (true) or only live (false) keys; both when absent.
   */
  list(filter: { after?: [string, string]; limit: number; revoked?: boolean }): Promise<KeyRow[]>;
  /**
   * Inserts the key unless `refuse` (asked inside the transaction, with the
   * number of live admin keys and of all live keys) says why not. Two inserts
   * or revokes never both see the counts from before the other.
   */
  insert(row: KeyRow, refuse: (counts: KeyCounts) => string | null): Promise<{ row: KeyRow } | { refused: string }>;
  /**
   * Marks the live key revoked (at `at`, by `by`) unless `refuse` (asked inside the transaction, with the live
   * counts the revocation would leave) objects. A missing key is `not_found`; one revoked before is `revoked`,
   * unchanged.
   */
  revoke(
    id: string,
    revocation: { at: string; by: string },
    refuse: (key: KeyRow, remaining: KeyCounts) => string | null,
  ): Promise<"revoked" | "not_found" | { alreadyRevokedAt: string } | { refused: string }>;
  /** Records a use of a live key. */
  touch(id: string, lastUsedAt: string): Promise<void>;
}
