/**
 * The modules table kept in memory: a host has a handful of modules, and
 * the in-memory view of them (ModuleEntries) answers synchronously — which
 * adapter is active, and why not — on every service and tool call. Every
 * module write of this host goes through here, so the copy follows it; a
 * write by another host sharing the database is read again when its change
 * arrives (`refresh`, `load`: domain/modules/module-sync.ts).
 */
import type { ValidManifest } from "./manifest.js";
import type { ModuleRow, ModuleStore } from "./module-store.js";

export class ModuleRows implements ModuleStore {
  private readonly rows = new Map<string, ModuleRow>();

  constructor(private readonly store: ModuleStore) {}

  /** Reads every row; before anything else asks. */
  async load(): Promise<void> {
    this.rows.clear();
    for (const row of await this.store.all()) this.rows.set(row.id, row);
  }

  /** The row as this host last read or wrote it. */
  peek(id: string): ModuleRow | undefined {
    return this.rows.get(id);
  }

  async get(id: string): Promise<ModuleRow | undefined> {
    return this.rows.get(id);
  }

  async all(): Promise<ModuleRow[]> {
    return [...this.rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async upsert(manifest: ValidManifest, builtin: boolean): Promise<void> {
    await this.store.upsert(manifest, builtin);
    await this.refresh(manifest.id);
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    await this.store.setEnabled(id, enabled);
    await this.refresh(id);
  }

  async setConfig(id: string, config: Record<string, unknown>): Promise<void> {
    await this.store.setConfig(id, config);
    await this.refresh(id);
  }

  async setSource(id: string, source: string | null): Promise<void> {
    await this.store.setSource(id, source);
    await this.refresh(id);
  }

  async delete(id: string): Promise<void> {
    await this.store.delete(id);
    this.rows.delete(id);
  }

  /** The ids of every row in the database now (the copy here may lag behind another host's writes). */
  async idsInDatabase(): Promise<string[]> {
    return (await this.store.all()).map((row) => row.id);
  }

  /** Reads the row again (after a write here, or another host's); gone from the database, gone from here. */
  async refresh(id: string): Promise<void> {
    const row = await this.store.get(id);
    if (row) this.rows.set(id, row);
    else this.rows.delete(id);
  }
}
