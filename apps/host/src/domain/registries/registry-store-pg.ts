/** The PostgreSQL registries store. */
import { asc, eq, gt } from "drizzle-orm";
import type { PgDb } from "../../db/client-pg.js";
import { registries } from "../../db/schema-pg.js";
import type { RegistryRow, RegistryStore } from "./registry-store.js";

export class PgRegistryStore implements RegistryStore {
  constructor(private readonly db: PgDb) {}

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
    await this.db.insert(registries).values(full);
    return full;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.delete(registries).where(eq(registries.id, id)).returning({ id: registries.id });
    return deleted.length > 0;
  }
}
