/** The modules store, on either dialect (see dialect.ts). */
import { and, asc, eq } from "drizzle-orm";
import type { ValidManifest } from "../../domain/modules/manifest.js";
import type { ModuleRow, ModuleStore } from "../../domain/modules/module-store.js";
import type { SqlDialect } from "../dialect.js";

const changed = (id: string) => ({ kind: "module" as const, id, action: "updated" as const });

export class SqlModuleStore implements ModuleStore {
  /** Every write tells the other hosts (`module`, its id), in its transaction. */
  constructor(private readonly sql: SqlDialect) {}

  async get(id: string): Promise<ModuleRow | undefined> {
    const { modules } = this.sql.tables;
    const [row] = await this.sql.db.select().from(modules).where(eq(modules.id, id));
    return row;
  }

  all(): Promise<ModuleRow[]> {
    const { modules } = this.sql.tables;
    return this.sql.db.select().from(modules).orderBy(asc(modules.id));
  }

  async upsert(manifest: ValidManifest, builtin: boolean): Promise<void> {
    const { modules } = this.sql.tables;
    const now = new Date().toISOString();
    const meta = {
      type: manifest.type,
      name: manifest.name,
      description: manifest.description,
      version: manifest.version,
      builtin,
      updatedAt: now,
    };
    await this.sql.write(changed(manifest.id), (tx) =>
      tx
        .insert(modules)
        .values({ id: manifest.id, ...meta, enabled: builtin, config: {}, createdAt: now })
        .onConflictDoUpdate({ target: modules.id, set: meta }),
    );
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    const { modules } = this.sql.tables;
    await this.sql.write(changed(id), (tx) =>
      tx.update(modules).set({ enabled, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)),
    );
  }

  async setConfig(id: string, config: Record<string, unknown>): Promise<void> {
    const { modules } = this.sql.tables;
    await this.sql.write(changed(id), (tx) =>
      tx.update(modules).set({ config, updatedAt: new Date().toISOString() }).where(eq(modules.id, id)),
    );
  }

  async setSource(id: string, source: string | null): Promise<void> {
    const { modules } = this.sql.tables;
    await this.sql.write(changed(id), (tx) => tx.update(modules).set({ source }).where(eq(modules.id, id)));
  }

  async delete(id: string): Promise<void> {
    const { modules, secrets } = this.sql.tables;
    await this.sql.transaction(async (tx) => {
      await tx.delete(modules).where(eq(modules.id, id));
      await tx.delete(secrets).where(and(eq(secrets.ownerType, "module"), eq(secrets.ownerId, id)));
      await this.sql.publish(tx, { kind: "module", id, action: "deleted" });
    });
  }
}
