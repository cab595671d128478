/** The SQLite modules store. */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { modules, secrets } from "../../db/schema.js";
import type { ValidManifest } from "./manifest.js";
import type { ModuleRow, ModuleStore } from "./module-store.js";

export class SqliteModuleStore implements ModuleStore {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<ModuleRow | undefined> {
    return this.db.select().from(modules).where(eq(modules.id, id)).get();
  }

  async all(): Promise<ModuleRow[]> {
    return this.db.select().from(modules).orderBy(modules.id).all();
  }

  async upsert(manifest: ValidManifest, builtin: boolean): Promise<void> {
    const now = new Date().toISOString();
    const meta = {
      type: manifest.type,
      name: manifest.name,
      description: manifest.description,
      version: manifest.version,
      builtin,
      updatedAt: now,
    };
    this.db
      .insert(modules)
      .values({ id: manifest.id, ...meta, enabled: builtin, config: {}, createdAt: now })
      .onConflictDoUpdate({ target: modules.id, set: meta })
      .run();
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    this.db.update(modules).set({ enabled, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)).run();
  }

  async setConfig(id: string, config: Record<string, unknown>): Promise<void> {
    this.db.update(modules).set({ config, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)).run();
  }

  async setSource(id: string, source: string | null): Promise<void> {
    this.db.update(modules).set({ source }).where(eq(modules.id, id)).run();
  }

  async delete(id: string): Promise<void> {
    this.db.transaction((tx) => {
      tx.delete(modules).where(eq(modules.id, id)).run();
      tx.delete(secrets)
        .where(and(eq(secrets.ownerType, "module"), eq(secrets.ownerId, id)))
        .run();
    });
  }
}
