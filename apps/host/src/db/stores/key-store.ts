/**
 * The API keys store, on either dialect (see dialect.ts). The checks that
 * keep an admin key around read the counts and write in one transaction
 * that holds the keys' lock: two hosts creating or revoking keys at once
 * take turns, so neither decides on counts the other is about to change.
 *
 * Revoking sets `revoked_at` rather than deleting the row; the lookups that
 * authenticate (`byHash`, `any`) and the counts carry `revoked_at IS NULL` in
 * their SQL, so no caller can forget it.
 */
import { and, asc, count, eq, gt, isNotNull, isNull, ne, or, placeholder } from "drizzle-orm";
import type { KeyCounts, KeyRow, KeyStore } from "../../domain/governance/key-store.js";
import type { SharedDb, SqlDialect } from "../dialect.js";

const KEYS_LOCK = "cyrnel.api_keys";

export class SqlKeyStore implements KeyStore {
  private readonly statements;

  /**
   * Creating and revoking a key tell the other hosts (`key`), in the transaction. Hosts read keys on every
   * request, so nothing needs it yet; a later cache of keys has its event. Using a key (`touch`) does not.
   */
  constructor(private readonly sql: SqlDialect) {
    const { db, tables } = sql;
    const { apiKeys } = tables;
    // Every request with a stored key reads it by hash: prepared once.
    this.statements = {
      byHash: db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.hash, placeholder("hash")), isNull(apiKeys.revokedAt)))
        .prepare("cyrnel_key_by_hash"),
      byId: db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.id, placeholder("id")))
        .prepare("cyrnel_key_by_id"),
      any: db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(isNull(apiKeys.revokedAt))
        .limit(1)
        .prepare("cyrnel_key_any"),
    };
  }

  async any(): Promise<boolean> {
    return (await this.statements.any.execute()).length > 0;
  }

  async get(id: string): Promise<KeyRow | undefined> {
    return (await this.statements.byId.execute({ id }))[0];
  }

  async byHash(hash: string): Promise<KeyRow | undefined> {
    return (await this.statements.byHash.execute({ hash }))[0];
  }

  list(filter: { after?: [string, string]; limit: number; revoked?: boolean }): Promise<KeyRow[]> {
    const { apiKeys } = this.sql.tables;
    const after = filter.after;
    return this.sql.db
      .select()
      .from(apiKeys)
      .where(
        and(
          after === undefined
            ? undefined
            : or(gt(apiKeys.createdAt, after[0]), and(eq(apiKeys.createdAt, after[0]), gt(apiKeys.id, after[1]))),
          filter.revoked === undefined
            ? undefined
            : filter.revoked
              ? isNotNull(apiKeys.revokedAt)
              : isNull(apiKeys.revokedAt),
        ),
      )
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
      .limit(filter.limit + 1);
  }

  insert(row: KeyRow, refuse: (counts: KeyCounts) => string | null): Promise<{ row: KeyRow } | { refused: string }> {
    const { apiKeys } = this.sql.tables;
    return this.sql.transaction(
      async (tx) => {
        const refused = refuse(await this.counts(tx));
        if (refused !== null) return { refused };
        await tx.insert(apiKeys).values(row);
        await this.sql.publish(tx, { kind: "key", id: row.id, action: "created" });
        return { row };
      },
      { lock: KEYS_LOCK },
    );
  }

  revoke(
    id: string,
    revocation: { at: string; by: string },
    refuse: (key: KeyRow, remaining: KeyCounts) => string | null,
  ): Promise<"revoked" | "not_found" | { alreadyRevokedAt: string } | { refused: string }> {
    const { apiKeys } = this.sql.tables;
    return this.sql.transaction(
      async (tx) => {
        const [key] = await tx.select().from(apiKeys).where(eq(apiKeys.id, id));
        if (!key) return "not_found" as const;
        if (key.revokedAt !== null) return { alreadyRevokedAt: key.revokedAt };
        const refused = refuse(key, await this.counts(tx, id));
        if (refused !== null) return { refused };
        await tx
          .update(apiKeys)
          .set({ revokedAt: revocation.at, revokedBy: revocation.by })
          .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
        await this.sql.publish(tx, { kind: "key", id, action: "updated" });
        return "revoked" as const;
      },
      { lock: KEYS_LOCK },
    );
  }

  async touch(id: string, lastUsedAt: string): Promise<void> {
    const { apiKeys } = this.sql.tables;
    await this.sql.db
      .update(apiKeys)
      .set({ lastUsedAt })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
  }

  private async counts(tx: SharedDb, except?: string): Promise<KeyCounts> {
    const { apiKeys } = this.sql.tables;
    const rows = await tx
      .select({ role: apiKeys.role, n: count() })
      .from(apiKeys)
      .where(and(isNull(apiKeys.revokedAt), except === undefined ? undefined : ne(apiKeys.id, except)))
      .groupBy(apiKeys.role);
    const admins = rows.find((row) => row.role === "admin")?.n ?? 0;
    return { admins, all: rows.reduce((sum, row) => sum + row.n, 0) };
  }
}
