/**
 * Where module code comes from: the built-ins (from packages) and the custom
 * modules in `$CYRNEL_DATA_DIR/modules/<id>/`. Loads them at start, rescans
 * the folder (`reload`), puts updated files in place of running code
 * (`replace`), registers and deletes modules installed from archives
 * (`add`, `remove`, for the module installer). Custom code is imported under
 * a new generation each time (custom-modules.ts) and under a crash marker
 * (module-quarantine.ts); a folder's fingerprint tells whether its files
 * changed. Starting and stopping code is the registry's.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { ModuleFactory } from "@cyrnel/sdk";
import type { ModuleDetail, ModuleRecord } from "../../contract/modules.js";
import { CyrnelError, messageOf } from "../../errors.js";
import type { SchemaValidator } from "../../lib/json-schema.js";
import type { Locks } from "../../lib/keyed-mutex.js";
import { TimeoutError } from "../../lib/with-timeout.js";
import type { HostLogger } from "../../log.js";
import type { SecretStore } from "../secrets/secret-store.js";
import {
  type LoadedModuleCode,
  listModuleFolders,
  loadCustomModule,
  moduleFingerprint,
  readModuleManifest,
} from "./custom-modules.js";
import { checkInstance, type ValidManifest, validateManifest } from "./manifest.js";
import type { ModuleEntries, ModuleEntry } from "./module-entries.js";
import type { ModuleFiles } from "./module-files.js";
import type { ModuleQuarantine } from "./module-quarantine.js";
import type { ModuleRegistry } from "./module-registry.js";
import type { ModuleRows } from "./module-rows.js";

export interface ModuleLoaderOptions {
  entries: ModuleEntries;
  store: ModuleRows;
  registry: ModuleRegistry;
  /** The module locks the registry and module settings use; `reload` is the rescan's own key. */
  locks: Locks;
  quarantine: ModuleQuarantine;
  secrets: SecretStore;
  validator: SchemaValidator;
  logger: HostLogger;
  modulesDir: string;
  hostVersion: string;
  builtins: ModuleFactory[];
  /** Bound on importing a custom module and on its `instantiate()`, each. */
  lifecycleTimeoutMs: number;
  /**
   * Hosts sharing a database: rescans share the folders they find changed (and bring back removed ones), and a
   * deleted module's files are deleted on every host (module-files.ts). Absent on one host.
   */
  files?: Pick<ModuleFiles, "prepareRescan" | "unshare">;
}

/** The lock key of rescans and of swaps of a module's files. Never a module id (they hold no `:`). */
export const RESCAN_LOCK = ":reload";

export class ModuleLoader {
  private generation = 0;

  constructor(private readonly options: ModuleLoaderOptions) {}

  /** Loads every module: the built-ins, each folder, and a `missing` entry for a known module whose folder is gone. */
  async start(): Promise<void> {
    const { entries, store, builtins, modulesDir } = this.options;
    for (const factory of builtins) await this.registerBuiltin(factory);
    for (const id of listModuleFolders(modulesDir)) await this.discover(id);
    for (const row of await store.all()) {
      if (!entries.has(row.id)) entries.set(entries.missing(row.id));
    }
  }

  /** Rescans the modules folder: new modules appear (disabled), changed ones are reloaded, vanished ones are missing. */
  reload(): Promise<ModuleRecord[]> {
    const { entries, locks, files } = this.options;
    return locks.run(RESCAN_LOCK, async () => {
      const known = entries.all();
      const custom = known.filter((entry) => !entry.builtin).map((entry) => entry.id);
      const builtins = new Set(known.filter((entry) => entry.builtin).map((entry) => entry.id));
      // Shared modules: every folder to share is checked before anything here changes (a 400 names what cannot be).
      const share = await files?.prepareRescan(custom, builtins);
      const onDisk = new Set(listModuleFolders(this.options.modulesDir));
      for (const id of onDisk) {
        const entry = entries.find(id);
        if (!entry || entry.missing) await locks.run(id, () => this.discover(id));
        else if (!entry.builtin && entry.fingerprint !== moduleFingerprint(this.folder(id))) {
          await locks.run(id, () => this.replace(id).catch(() => undefined));
        }
      }
      for (const entry of entries.all()) {
        if (entry.builtin || entry.missing || onDisk.has(entry.id)) continue;
        await locks.run(entry.id, () => this.lose(entry));
      }
      await share?.();
      return entries.list();
    });
  }

  /**
   * Loads the module's current files in place of its running code. Returns normally on success; on a load failure
   * the previous code keeps running and the error is thrown (callers restore files and call again). Starting the new
   * code, and regenerating an adapter's services with it, is `ModuleRegistry.replaceCode`.
   */
  async replace(id: string, options: { fromElsewhere?: boolean } = {}): Promise<void> {
    const entry = this.options.entries.require(id);
    const fingerprint = moduleFingerprint(this.folder(id));
    let loaded: LoadedModuleCode;
    try {
      loaded = await this.loadCode(id, fingerprint);
    } catch (error) {
      // Nothing of it was running: its record shows why the new files fail instead of the old reason.
      if (!entry.instance) Object.assign(entry, this.failedLoad(entry, error), { fingerprint });
      throw error;
    }
    if (entry.manifest && loaded.manifest.type !== entry.manifest.type) {
      throw new Error(`module type changed from ${entry.manifest.type} to ${loaded.manifest.type}`);
    }
    await this.options.registry.replaceCode(entry, loaded, fingerprint, options);
  }

  /**
   * Runs `operation` while holding the module's lock and the rescan lock (module updates from archives), so
   * `reload()` never sees the module's folder half-way through a swap.
   */
  exclusive<T>(id: string, operation: () => Promise<T>): Promise<T> {
    const { locks } = this.options;
    return locks.run(RESCAN_LOCK, () => locks.run(id, operation));
  }

  /**
   * Registers a module whose folder `place()` puts into the modules folder (installs from archives). Runs under
   * the same locks as `reload()`. A module that fails to load is refused: its folder is removed again and nothing
   * is registered. Starts disabled.
   */
  add(id: string, place: () => void, finish?: () => Promise<void>): Promise<ModuleDetail> {
    const { entries, store, quarantine, logger } = this.options;
    return this.exclusive(id, async () => {
      if (entries.has(id)) throw new CyrnelError("conflict", `module "${id}" already exists`);
      place();
      const folder = this.folder(id);
      const fingerprint = moduleFingerprint(folder);
      let loaded: LoadedModuleCode;
      try {
        loaded = await this.loadCode(id, fingerprint);
      } catch (error) {
        rmSync(folder, { recursive: true, force: true });
        quarantine.settled(id);
        throw new CyrnelError("bad_request", `module "${id}" failed to load: ${messageOf(error)}`);
      }
      entries.set({ ...entries.blank(id), manifest: loaded.manifest, instance: loaded.instance, fingerprint });
      await store.upsert(loaded.manifest, false);
      // Still under the module's locks: e.g. its source and its shared archive are recorded before another host
      // that hears of the new row can take the module's lock and look for its files.
      await finish?.();
      logger.info("custom module added", { module: id, version: loaded.manifest.version });
      return entries.get(id);
    });
  }

  /** Deletes a custom module: it stops, an adapter's services are deleted, then its files, row and secrets. */
  remove(id: string): Promise<void> {
    const { entries, store, secrets, quarantine, locks, registry } = this.options;
    const entry = entries.require(id);
    if (entry.builtin) throw new CyrnelError("bad_request", `module "${id}" is built in and cannot be deleted`);
    return locks.run(id, async () => {
      await registry.removing(entry);
      rmSync(this.folder(id), { recursive: true, force: true });
      rmSync(this.backupFolder(id), { recursive: true, force: true });
      quarantine.settled(id);
      // Its secrets go with its row, in one transaction; then every other host drops its files.
      await store.delete(id);
      await this.options.files?.unshare(id);
      secrets.removed();
      entries.delete(id);
    });
  }

  /**
   * A module another host installed, whose files were just put in its folder from the database: loaded as at
   * start, without recording its row again (that host did). The caller holds the module's locks.
   */
  async adopt(id: string): Promise<void> {
    await this.discover(id, { record: false });
  }

  /**
   * A module another host deleted (its row and stored files are gone): it stops and leaves this host's list.
   * Its services went with it on that host. The caller holds the module's locks and removes the files.
   */
  async forget(id: string): Promise<void> {
    const { entries, registry, quarantine } = this.options;
    const entry = entries.find(id);
    if (!entry || entry.builtin) return;
    await registry.retire(entry);
    quarantine.settled(id);
    entries.delete(id);
  }

  /** The module's folder is gone: it stops and is listed as missing (its row and settings stay). */
  async lose(entry: ModuleEntry): Promise<void> {
    const { entries, registry } = this.options;
    await registry.retire(entry);
    Object.assign(entry, entries.missing(entry.id), { manifest: entry.manifest });
  }

  folder(id: string): string {
    return join(this.options.modulesDir, id);
  }

  /** Where an update keeps the version it replaced (see ModuleInstaller); deleted with the module. */
  backupFolder(id: string): string {
    return join(this.options.modulesDir, ".backup", id);
  }

  // ---- internals ------------------------------------------------------------------

  private async registerBuiltin(factory: ModuleFactory): Promise<void> {
    const { entries, store, validator, hostVersion } = this.options;
    const manifest = validateManifest(factory.manifest, validator, { requireMain: false, hostVersion });
    const entry: ModuleEntry = { ...entries.blank(manifest.id), builtin: true, manifest };
    try {
      const instance = factory.instantiate();
      if (instance instanceof Promise) throw new Error("built-in modules must instantiate synchronously");
      checkInstance(instance, manifest.type);
      entry.instance = instance;
    } catch (error) {
      entry.loadError = messageOf(error);
    }
    entries.set(entry);
    await store.upsert(manifest, true);
  }

  /**
   * Loads a custom module found on disk; failures are recorded on its entry, never thrown. A quarantined module
   * (see module-quarantine.ts) is listed from its manifest without running any of its code.
   */
  private async discover(id: string, options: { record?: boolean } = {}): Promise<void> {
    const { entries, store, quarantine, logger } = this.options;
    const entry: ModuleEntry = { ...entries.blank(id), fingerprint: moduleFingerprint(this.folder(id)) };
    const held = quarantine.reason(id, entry.fingerprint);
    if (held !== null) {
      Object.assign(entry, this.failedLoad(entry, null, held));
      logger.error("custom module quarantined; its code was not loaded", { module: id, reason: held });
    } else {
      try {
        const loaded = await this.loadCode(id, entry.fingerprint);
        entry.manifest = loaded.manifest;
        entry.instance = loaded.instance;
      } catch (error) {
        Object.assign(entry, this.failedLoad(entry, error));
        logger.error("custom module failed to load", { module: id, error: entry.loadError });
      }
    }
    entries.set(entry);
    if (entry.manifest && options.record !== false) await store.upsert(entry.manifest, false);
  }

  /**
   * Imports and instantiates a custom module's code under a crash marker, bounded by the load timeout. Code that
   * never finishes loading is quarantined: it keeps running in the background and would hold up every later start.
   */
  private async loadCode(id: string, fingerprint: string | null): Promise<LoadedModuleCode> {
    const { quarantine, validator, hostVersion, lifecycleTimeoutMs } = this.options;
    this.options.logger.debug("loading custom module", { module: id });
    quarantine.running(id, fingerprint);
    try {
      const loaded = await loadCustomModule(
        this.folder(id),
        validator,
        hostVersion,
        ++this.generation,
        lifecycleTimeoutMs,
      );
      quarantine.settled(id);
      return loaded;
    } catch (error) {
      if (error instanceof TimeoutError) quarantine.hold(id, fingerprint, error.message);
      else quarantine.settled(id);
      throw error;
    }
  }

  /** The entry fields of a module whose code is not loaded: why, and its manifest when module.json is readable. */
  private failedLoad(entry: ModuleEntry, error: unknown, quarantinedFor: string | null = null): Partial<ModuleEntry> {
    const quarantined = quarantinedFor !== null || error instanceof TimeoutError;
    const reason = quarantinedFor ?? messageOf(error);
    let manifest: ValidManifest | null;
    try {
      manifest = readModuleManifest(this.folder(entry.id), this.options.validator, this.options.hostVersion);
    } catch {
      manifest = entry.manifest;
    }
    return {
      manifest,
      instance: null,
      quarantined,
      loadError: quarantined
        ? `quarantined: ${reason}; its code is not run again until its files change (then POST /modules/reload)`
        : reason,
    };
  }
}
