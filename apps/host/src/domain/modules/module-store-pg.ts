/** The PostgreSQL modules store. */
import { and, asc, eq } from "drizzle-orm";
import type { PgChanges } from "../../db/changes-pg.js";
import type { PgDb } from "../../db/client-pg.js";
import { modules, secrets } from "../../db/schema-pg.js";
import type { ValidManifest } from "./manifest.js";
import type { ModuleRow, ModuleStore } from "./module-store.js";

export class PgModuleStore implements ModuleStore {
  constructor(
    private readonly db: PgDb,
    /** Every write tells the other hosts (`module`, its id), in its transaction. */
    private readonly changes: PgChanges,
  ) {}

  async get(id: string): Promise<ModuleRow | undefined> {
    const [row] = await this.db.select().from(modules).where(eq(modules.id, id));
    return row;
  }

  all(): Promise<ModuleRow[]> {
    return this.db.select().from(modules).orderBy(asc(modules.id));
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
    await this.changes.write(this.db, changed(manifest.id), (tx) =>
      tx
        .insert(modules)
        .values({ id: manifest.id, ...meta, enabled: builtin, config: {}, createdAt: now })
        .onConflictDoUpdate({ target: modules.id, set: meta }),
    );
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    await this.changes.write(this.db, changed(id), (tx) =>
      tx.update(modules).set({ enabled, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)),
    );
  }

  async setConfig(id: string, config: Record<string, unknown>): Promise<void> {
    await this.changes.write(this.db, changed(id), (tx) =>
      tx.update(modules).set({ config, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)),
    );
  }

  async setSource(id: string, source: string | null): Promise<void> {
    await this.changes.write(this.db, changed(id), (tx) =>
      tx.update(modules).set({ source }).where(eq(modules.id, id)),
    );
  }

  async delete(id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.delete(modules).where(eq(modules.id, id));
      await tx.delete(secrets).where(and(eq(secrets.ownerType, "module"), eq(secrets.ownerId, id)));
      await this.changes.publish(tx, { kind: "module", id, action: "deleted" });
    });
  }
}

const changed = (id: string) => ({ kind: "module" as const, id, action: "updated" as const });
