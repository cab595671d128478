/** The PostgreSQL registries store. */
import { asc, eq, gt } from "drizzle-orm";
import type { PgChanges } from "../../db/changes-pg.js";
import type { PgDb } from "../../db/client-pg.js";
import { registries } from "../../db/schema-pg.js";
import type { RegistryRow, RegistryStore } from "./registry-store.js";

export class PgRegistryStore implements RegistryStore {
  constructor(
    private readonly db: PgDb,
    /** Adding and removing a registry tell the other hosts (`registry`); they cache nothing of it yet. */
    private readonly changes: PgChanges,
  ) {}

  async get(id: string): Promise<RegistryRow | undefined> {
    const [row] = await this.db.select().from(registries).where(eq(registries.id, id));
    return row;
  }

  list(filter: { after?: string; limit: number }): Promise<RegistryRow[]> {
    return this.db
      .select()
      .from(registries)
      .where(filter.after === undefined ? undefined : gt(registries.id, filter.after))
      .orderBy(asc(registries.id))
      .limit(filter.limit + 1);
  }

  async insert(row: Omit<RegistryRow, "createdAt" | "updatedAt">): Promise<RegistryRow> {
    const now = new Date().toISOString();
    const full = { ...row, createdAt: now, updatedAt: now };
    await this.changes.write(this.db, { kind: "registry", id: row.id, action: "created" }, (tx) =>
      tx.insert(registries).values(full),
    );
    return full;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.changes.write(this.db, { kind: "registry", id, action: "deleted" }, (tx) =>
      tx.delete(registries).where(eq(registries.id, id)).returning({ id: registries.id }),
    );
    return deleted.length > 0;
  }
}
