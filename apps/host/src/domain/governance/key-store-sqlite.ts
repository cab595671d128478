/** The SQLite API keys store: a transaction of better-sqlite3 runs start to end with nothing in between. */
import { and, asc, count, eq, gt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { apiKeys } from "../../db/schema.js";
import type { KeyCounts, KeyRow, KeyStore } from "./key-store.js";

export class SqliteKeyStore implements KeyStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    this.statements = {
      byHash: db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.hash, sql.placeholder("hash")))
        .prepare(),
      byId: db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.id, sql.placeholder("id")))
        .prepare(),
      any: db.select({ id: apiKeys.id }).from(apiKeys).limit(1).prepare(),
    };
  }

  async any(): Promise<boolean> {
    return this.statements.any.get() !== undefined;
  }

  async get(id: string): Promise<KeyRow | undefined> {
    return this.statements.byId.get({ id });
  }

  async byHash(hash: string): Promise<KeyRow | undefined> {
    return this.statements.byHash.get({ hash });
  }

  async list(filter: { after?: [string, string]; limit: number }): Promise<KeyRow[]> {
    const after = filter.after;
    return this.db
      .select()
      .from(apiKeys)
      .where(
        after === undefined
          ? undefined
          : or(gt(apiKeys.createdAt, after[0]), and(eq(apiKeys.createdAt, after[0]), gt(apiKeys.id, after[1]))),
      )
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
      .limit(filter.limit + 1)
      .all();
  }

  async insert(
    row: KeyRow,
    refuse: (counts: KeyCounts) => string | null,
  ): Promise<{ row: KeyRow } | { refused: string }> {
    return this.db.transaction((tx) => {
      const refused = refuse(this.counts(tx));
      if (refused !== null) return { refused };
      tx.insert(apiKeys).values(row).run();
      return { row };
    });
  }

  async delete(
    id: string,
    refuse: (key: KeyRow, remaining: KeyCounts) => string | null,
  ): Promise<"deleted" | "not_found" | { refused: string }> {
    return this.db.transaction((tx) => {
      const key = tx.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
      if (!key) return "not_found";
      const remaining = this.counts(tx, id);
      const refused = refuse(key, remaining);
      if (refused !== null) return { refused };
      tx.delete(apiKeys).where(eq(apiKeys.id, id)).run();
      return "deleted";
    });
  }

  async touch(id: string, lastUsedAt: string): Promise<void> {
    this.db.update(apiKeys).set({ lastUsedAt }).where(eq(apiKeys.id, id)).run();
  }

  private counts(tx: Pick<Db, "select">, except?: string): KeyCounts {
    const rows = tx
      .select({ role: apiKeys.role, n: count() })
      .from(apiKeys)
      .where(except === undefined ? undefined : ne(apiKeys.id, except))
      .groupBy(apiKeys.role)
      .all();
    const admins = rows.find((row) => row.role === "admin")?.n ?? 0;
    return { admins, all: rows.reduce((sum, row) => sum + row.n, 0) };
  }
}
