/**
 * The API keys store, on either dialect (see dialect.ts). The checks that
 * keep an admin key around read the counts and write in one transaction
 * that holds the keys' lock: two hosts creating or revoking keys at once
 * take turns, so neither decides on counts the other is about to change.
 */
import { and, asc, count, eq, gt, ne, or, placeholder } from "drizzle-orm";
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
        .where(eq(apiKeys.hash, placeholder("hash")))
        .prepare("cyrnel_key_by_hash"),
      byId: db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.id, placeholder("id")))
        .prepare("cyrnel_key_by_id"),
      any: db.select({ id: apiKeys.id }).from(apiKeys).limit(1).prepare("cyrnel_key_any"),
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

  list(filter: { after?: [string, string]; limit: number }): Promise<KeyRow[]> {
    const { apiKeys } = this.sql.tables;
    const after = filter.after;
    return this.sql.db
      .select()
      .from(apiKeys)
      .where(
        after === undefined
          ? undefined
          : or(gt(apiKeys.createdAt, after[0]), and(eq(apiKeys.createdAt, after[0]), gt(apiKeys.id, after[1]))),
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

  delete(
    id: string,
    refuse: (key: KeyRow, remaining: KeyCounts) => string | null,
  ): Promise<"deleted" | "not_found" | { refused: string }> {
    const { apiKeys } = this.sql.tables;
    return this.sql.transaction(
      async (tx) => {
        const [key] = await tx.select().from(apiKeys).where(eq(apiKeys.id, id));
        if (!key) return "not_found" as const;
        const refused = refuse(key, await this.counts(tx, id));
        if (refused !== null) return { refused };
        await tx.delete(apiKeys).where(eq(apiKeys.id, id));
        await this.sql.publish(tx, { kind: "key", id, action: "deleted" });
        return "deleted" as const;
      },
      { lock: KEYS_LOCK },
    );
  }

  async touch(id: string, lastUsedAt: string): Promise<void> {
    const { apiKeys } = this.sql.tables;
    await this.sql.db.update(apiKeys).set({ lastUsedAt }).where(eq(apiKeys.id, id));
  }

  private async counts(tx: SharedDb, except?: string): Promise<KeyCounts> {
    const { apiKeys } = this.sql.tables;
    const rows = await tx
      .select({ role: apiKeys.role, n: count() })
      .from(apiKeys)
      .where(except === undefined ? undefined : ne(apiKeys.id, except))
      .groupBy(apiKeys.role);
    const admins = rows.find((row) => row.role === "admin")?.n ?? 0;
    return { admins, all: rows.reduce((sum, row) => sum + row.n, 0) };
  }
}
