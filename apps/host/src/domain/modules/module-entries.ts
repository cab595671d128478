/**
 * The host's in-memory view of every module it knows: its code (when it
 * loaded), whether it is set up right now, and why not. The module loader
 * (code from disk) and the module registry (activation) change it; the rest
 * of the host only reads it: the active adapters and environment, and the
 * records the API shows.
 */
import type { AdapterModule, EnvironmentModule, ModuleType } from "@cyrnel/sdk";
import type { ModuleDetail, ModuleRecord } from "../../contract/modules.js";
import { CyrnelError, notFound } from "../../errors.js";
import type { ValidManifest } from "./manifest.js";
import type { ModuleRows } from "./module-rows.js";

export interface ModuleEntry {
  id: string;
  builtin: boolean;
  manifest: ValidManifest | null;
  instance: AdapterModule | EnvironmentModule | null;
  loadError: string | null;
  activationError: string | null;
  active: boolean;
  missing: boolean;
  quarantined: boolean;
  fingerprint: string | null;
  /**
   * New adapter code was loaded but its services were not regenerated with it yet: that waits until the code has
   * started (see `ModuleRegistry.replaceCode`), so code that fails to start never rewrites anyone's tools.
   */
  regenerate: boolean;
}

export const EMPTY_SCHEMA = { type: "object", properties: {} };

export class ModuleEntries {
  private readonly entries = new Map<string, ModuleEntry>();
  /** The one active environment (the registry keeps it; see ModuleRegistry). */
  environmentId: string | null = null;

  constructor(private readonly store: Pick<ModuleRows, "peek">) {}

  // ---- reading ----------------------------------------------------------------

  list(filter: { type?: ModuleType; enabled?: boolean } = {}): ModuleRecord[] {
    return [...this.entries.keys()]
      .sort()
      .map((id) => this.record(id))
      .filter((record) => filter.type === undefined || record.type === filter.type)
      .filter((record) => filter.enabled === undefined || record.enabled === filter.enabled);
  }

  get(id: string): ModuleDetail {
    const entry = this.require(id);
    return {
      ...this.record(id),
      configSchema: entry.manifest?.configSchema ?? EMPTY_SCHEMA,
      secretsSchema: entry.manifest?.secretsSchema ?? EMPTY_SCHEMA,
    };
  }

  /** The active adapter instance, or a 404/409 naming why there is none. */
  adapter(id: string): AdapterModule {
    const entry = this.entries.get(id);
    if (!entry || (entry.manifest && entry.manifest.type !== "adapter")) throw notFound(`adapter module "${id}"`);
    if (!entry.active || !entry.instance)
      throw new CyrnelError("conflict", `adapter module "${id}" is ${this.whyInactive(entry)}`);
    return entry.instance as AdapterModule;
  }

  /** The adapter instance when active, else null (for gating without throwing). */
  activeAdapter(id: string): AdapterModule | null {
    const entry = this.entries.get(id);
    return entry?.active && entry.manifest?.type === "adapter" ? (entry.instance as AdapterModule) : null;
  }

  /** The code of an adapter even when it is not active (generateDefinition is pure). */
  adapterCode(id: string): AdapterModule | null {
    const entry = this.entries.get(id);
    return entry?.manifest?.type === "adapter" ? (entry.instance as AdapterModule | null) : null;
  }

  activeEnvironment(): { id: string; module: EnvironmentModule } | null {
    const entry = this.environmentId ? this.entries.get(this.environmentId) : undefined;
    return entry?.active && entry.instance ? { id: entry.id, module: entry.instance as EnvironmentModule } : null;
  }

  // ---- for the loader and the registry ------------------------------------------

  has(id: string): boolean {
    return this.entries.has(id);
  }

  find(id: string): ModuleEntry | undefined {
    return this.entries.get(id);
  }

  /** The entry, or a 404. */
  require(id: string): ModuleEntry {
    const entry = this.entries.get(id);
    if (!entry) throw notFound(`module "${id}"`);
    return entry;
  }

  all(): ModuleEntry[] {
    return [...this.entries.values()];
  }

  set(entry: ModuleEntry): void {
    this.entries.set(entry.id, entry);
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /** An entry for a module not loaded yet; the manifest comes from the database row when there is one. */
  blank(id: string): ModuleEntry {
    const row = this.store.peek(id);
    return {
      id,
      builtin: row?.builtin ?? false,
      manifest: row ? { id, name: row.name, description: row.description, type: row.type, version: row.version } : null,
      instance: null,
      loadError: null,
      activationError: null,
      active: false,
      missing: false,
      quarantined: false,
      fingerprint: null,
      regenerate: false,
    };
  }

  /** An entry for a module the database knows whose folder is gone. */
  missing(id: string): ModuleEntry {
    return { ...this.blank(id), missing: true, loadError: "the module's folder is missing" };
  }

  // ---- internals ------------------------------------------------------------------

  private whyInactive(entry: ModuleEntry): string {
    if (entry.missing) return "missing from the modules folder";
    if (entry.loadError) return `broken: ${entry.loadError}`;
    if (this.store.peek(entry.id)?.enabled) return `enabled but failed to start: ${entry.activationError}`;
    return "disabled";
  }

  private record(id: string): ModuleRecord {
    const entry = this.require(id);
    const row = this.store.peek(id);
    return {
      id,
      name: entry.manifest?.name ?? id,
      description: entry.manifest?.description ?? "",
      type: entry.manifest?.type ?? null,
      version: entry.manifest?.version ?? null,
      builtin: entry.builtin,
      enabled: row?.enabled ?? false,
      active: entry.active,
      missing: entry.missing,
      quarantined: entry.quarantined,
      source: row?.source ?? null,
      error: entry.loadError ?? entry.activationError,
    };
  }
}
