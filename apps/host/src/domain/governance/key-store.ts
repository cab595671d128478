/** The API keys store. The checks that keep an admin key around run in the transaction of the write. */

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
}

export interface KeyCounts {
  admins: number;
  all: number;
}

/**
 * Every request with a key reads it by hash, and every tool call from a
 * process started with one reads it by id: implementations prepare those.
 */
export interface KeyStore {
  /** Whether any key is stored (authentication is then on). */
  any(): Promise<boolean>;
  get(id: string): Promise<KeyRow | undefined>;
  byHash(hash: string): Promise<KeyRow | undefined>;
  /** Oldest first; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: { after?: [string, string]; limit: number }): Promise<KeyRow[]>;
  /**
   * Inserts the key unless `refuse` (asked inside the transaction, with the
   * number of admin keys and of all keys) says why not. Two inserts or
   * deletes never both see the counts from before the other.
   */
  insert(row: KeyRow, refuse: (counts: KeyCounts) => string | null): Promise<{ row: KeyRow } | { refused: string }>;
  /** Deletes the key unless `refuse` (asked inside the transaction, with the counts the deletion would leave) objects. */
  delete(
    id: string,
    refuse: (key: KeyRow, remaining: KeyCounts) => string | null,
  ): Promise<"deleted" | "not_found" | { refused: string }>;
  touch(id: string, lastUsedAt: string): Promise<void>;
}
