/** All SQL about registries. */
import { asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { registries } from "../../db/schema.js";

export type RegistryRow = typeof registries.$inferSelect;

export class RegistryStore {
  constructor(private readonly db: Db) {}

  get(id: string): RegistryRow | undefined {
    return this.db.select().from(registries).where(eq(registries.id, id)).get();
  }

  /** Ordered by id; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: { after?: string; limit: number }): RegistryRow[] {
    return this.db
      .select()
      .from(registries)
      .where(filter.after === undefined ? undefined : gt(registries.id, filter.after))
      .orderBy(asc(registries.id))
      .limit(filter.limit + 1)
      .all();
  }

  insert(row: Omit<RegistryRow, "createdAt" | "updatedAt">): RegistryRow {
    const now = new Date().toISOString();
    const full = { ...row, createdAt: now, updatedAt: now };
    this.db.insert(registries).values(full).run();
    return full;
  }

  delete(id: string): boolean {
    return this.db.delete(registries).where(eq(registries.id, id)).run().changes > 0;
  }
}
