/** The registries store, on either dialect (see dialect.ts). */
import { asc, eq, gt } from "drizzle-orm";
import type { RegistryRow, RegistryStore } from "../../domain/registries/registry-store.js";
import type { SqlDialect } from "../dialect.js";

export class SqlRegistryStore implements RegistryStore {
  /** Adding and removing a registry tell the other hosts (`registry`); they cache nothing of it yet. */
  constructor(private readonly sql: SqlDialect) {}

  async get(id: string): Promise<RegistryRow | undefined> {
    const { registries } = this.sql.tables;
    const [row] = await this.sql.db.select().from(registries).where(eq(registries.id, id));
    return row;
  }

  list(filter: { after?: string; limit: number }): Promise<RegistryRow[]> {
    const { registries } = this.sql.tables;
    return this.sql.db
      .select()
      .from(registries)
      .where(filter.after === undefined ? undefined : gt(registries.id, filter.after))
      .orderBy(asc(registries.id))
      .limit(filter.limit + 1);
  }

  async insert(row: Omit<RegistryRow, "createdAt" | "updatedAt">): Promise<RegistryRow> {
    const { registries } = this.sql.tables;
    const now = new Date().toISOString();
    const full = { ...row, createdAt: now, updatedAt: now };
    await this.sql.write({ kind: "registry", id: row.id, action: "created" }, (tx) =>
      tx.insert(registries).values(full),
    );
    return full;
  }

  async delete(id: string): Promise<boolean> {
    const { registries } = this.sql.tables;
    const deleted = await this.sql.write({ kind: "registry", id, action: "deleted" }, (tx) =>
      tx.delete(registries).where(eq(registries.id, id)).returning({ id: registries.id }),
    );
    return deleted.length > 0;
  }
}
