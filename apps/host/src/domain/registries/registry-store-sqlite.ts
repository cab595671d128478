/** The SQLite registries store. */
import { asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { registries } from "../../db/schema.js";
import type { RegistryRow, RegistryStore } from "./registry-store.js";

export class SqliteRegistryStore implements RegistryStore {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<RegistryRow | undefined> {
    return this.db.select().from(registries).where(eq(registries.id, id)).get();
  }

  async list(filter: { after?: string; limit: number }): Promise<RegistryRow[]> {
    return this.db
      .select()
      .from(registries)
      .where(filter.after === undefined ? undefined : gt(registries.id, filter.after))
      .orderBy(asc(registries.id))
      .limit(filter.limit + 1)
      .all();
  }

  async insert(row: Omit<RegistryRow, "createdAt" | "updatedAt">): Promise<RegistryRow> {
    const now = new Date().toISOString();
    const full = { ...row, createdAt: now, updatedAt: now };
    this.db.insert(registries).values(full).run();
    return full;
  }

  async delete(id: string): Promise<boolean> {
    return this.db.delete(registries).where(eq(registries.id, id)).run().changes > 0;
  }
}
