/** All SQL about stored API keys. The checks that keep an admin key around run in the transaction of the write. */
import { and, asc, count, eq, gt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { apiKeys } from "../../db/schema.js";

export type KeyRow = typeof apiKeys.$inferSelect;

export class KeyStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    // Every request with a key reads it by hash, and every tool call from a process started with one reads it by id.
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

  /** Whether any key is stored (authentication is then on). */
  any(): boolean {
    return this.statements.any.get() !== undefined;
  }

  get(id: string): KeyRow | undefined {
    return this.statements.byId.get({ id });
  }

  byHash(hash: string): KeyRow | undefined {
    return this.statements.byHash.get({ hash });
  }

  /** Oldest first; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: { after?: [string, string]; limit: number }): KeyRow[] {
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

  /**
   * Inserts the key unless `refuse` (asked inside the transaction, with the
   * number of admin keys and of all keys) says why not.
   */
  insert(row: KeyRow, refuse: (counts: KeyCounts) => string | null): { row: KeyRow } | { refused: string } {
    return this.db.transaction((tx) => {
      const refused = refuse(this.counts(tx));
      if (refused !== null) return { refused };
      tx.insert(apiKeys).values(row).run();
      return { row };
    });
  }

  /** Deletes the key unless `refuse` (asked inside the transaction, with the counts the deletion would leave) objects. */
  delete(
    id: string,
    refuse: (key: KeyRow, remaining: KeyCounts) => string | null,
  ): "deleted" | "not_found" | { refused: string } {
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

  touch(id: string, lastUsedAt: string): void {
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

export interface KeyCounts {
  admins: number;
  all: number;
}
