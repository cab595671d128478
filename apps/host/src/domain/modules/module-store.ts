/** All SQL about modules: one row per module the host has seen, with the operator's flag, config and source. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { modules } from "../../db/schema.js";
import type { ValidManifest } from "./manifest.js";

export type ModuleRow = typeof modules.$inferSelect;

export class ModuleStore {
  constructor(readonly db: Db) {}

  get(id: string): ModuleRow | undefined {
    return this.db.select().from(modules).where(eq(modules.id, id)).get();
  }

  all(): ModuleRow[] {
    return this.db.select().from(modules).orderBy(modules.id).all();
  }

  /** Records what the manifest says; a new row starts enabled only for a built-in. */
  upsert(manifest: ValidManifest, builtin: boolean): void {
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

  setEnabled(id: string, enabled: boolean): void {
    this.db.update(modules).set({ enabled, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)).run();
  }

  setConfig(id: string, config: Record<string, unknown>): void {
    this.db.update(modules).set({ config, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)).run();
  }

  /** The registry descriptor URL a module was installed from. */
  setSource(id: string, source: string | null): void {
    this.db.update(modules).set({ source }).where(eq(modules.id, id)).run();
  }

  /** Call inside a transaction together with the module's secrets. */
  delete(id: string): void {
    this.db.delete(modules).where(eq(modules.id, id)).run();
  }
}
