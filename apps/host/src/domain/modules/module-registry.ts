/**
 * Every module the host knows: the built-ins (from code) and the custom
 * ones (from `$CYRNEL_DATA_DIR/modules`). Owns activation (`setup`) and
 * deactivation (`teardown`), module config and secrets, and the rule that
 * exactly one environment is active. What activation means for services and
 * processes is supplied by the composition root as {@link ModuleHooks}.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type {
  AdapterModule,
  EnvironmentBindings,
  EnvironmentModule,
  ModuleFactory,
  ModuleSetupContext,
  ModuleType,
} from "@cyrnel/sdk";
import { eq } from "drizzle-orm";
import type { ModuleDetail, ModuleRecord } from "../../contract/modules.js";
import type { Db } from "../../db/client.js";
import { modules } from "../../db/schema.js";
import { CyrnelError, messageOf, notFound } from "../../errors.js";
import { applyPatch } from "../../lib/json-patch.js";
import { type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import { KeyedMutex } from "../../lib/keyed-mutex.js";
import { TimeoutError, withTimeout } from "../../lib/with-timeout.js";
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
import { ModuleQuarantine } from "./module-quarantine.js";

export interface ModuleHooks {
  /** An adapter became active: hydrate its enabled services. */
  adapterActivated(adapterId: string): Promise<void>;
  /** New code replaced an adapter: regenerate its services from their stored definitions. */
  adapterReplaced(adapterId: string): Promise<void>;
  /** A custom adapter is about to be deleted: delete its services. */
  adapterRemoving(adapterId: string): Promise<void>;
  /** Wait until no execution of this environment is running (used when switching environments). */
  drainEnvironment(environmentId: string): Promise<void>;
  /** Cancel every execution of this environment (used when disabling or removing it). */
  cancelEnvironment(environmentId: string): Promise<void>;
}

interface Entry {
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
   * started (see `replace`), so code that fails to start never rewrites anyone's tools.
   */
  regenerate: boolean;
}

export interface ModuleRegistryOptions {
  db: Db;
  validator: SchemaValidator;
  secrets: SecretStore;
  logger: HostLogger;
  modulesDir: string;
  hostVersion: string;
  builtins: ModuleFactory[];
  bindings: EnvironmentBindings;
  hooks: ModuleHooks;
  /**
   * Bound on each call that loads, starts or stops module code: importing a custom module, `instantiate()`,
   * `setup()`, `teardown()`. Separate from the (usually much shorter) bound on tool calls: starting an environment
   * may spawn processes, and a short invoke timeout must not make that fail on a busy machine.
   */
  lifecycleTimeoutMs: number;
}

const EMPTY_SCHEMA = { type: "object", properties: {} };

export class ModuleRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly mutex = new KeyedMutex();
  private generation = 0;
  private environmentId: string | null = null;
  private readonly quarantine: ModuleQuarantine;

  constructor(private readonly options: ModuleRegistryOptions) {
    this.quarantine = new ModuleQuarantine(options.modulesDir);
  }

  // ---- start and stop ----------------------------------------------------

  async start(): Promise<void> {
    for (const factory of this.options.builtins) this.registerBuiltin(factory);
    for (const id of listModuleFolders(this.options.modulesDir)) await this.discover(id);
    for (const row of this.options.db.select().from(modules).all()) {
      if (!this.entries.has(row.id)) this.entries.set(row.id, this.missingEntry(row.id));
    }
    const enabled = this.rows().filter((row) => row.enabled);
    for (const row of enabled.filter((r) => r.type === "adapter")) await this.activate(this.entries.get(row.id)!);
    let environment: string | null = null;
    for (const row of enabled.filter((r) => r.type === "environment")) {
      if (environment === null) {
        // A failing environment keeps its enabled flag (operator intent); its record shows the error.
        if (await this.activate(this.entries.get(row.id)!)) environment = row.id;
      } else {
        this.options.logger.warn("only one environment can be active; disabling another enabled one", {
          module: row.id,
        });
        this.setEnabledFlag(row.id, false);
      }
    }
  }

  async stop(): Promise<void> {
    const active = [...this.entries.values()].filter((entry) => entry.active);
    // Environment first: it may be calling into adapters.
    active.sort(
      (a, b) => (a.manifest?.type === "environment" ? -1 : 0) - (b.manifest?.type === "environment" ? -1 : 0),
    );
    for (const entry of active) await this.deactivate(entry);
  }

  // ---- queries ------------------------------------------------------------

  list(filter: { type?: ModuleType; enabled?: boolean } = {}): ModuleRecord[] {
    return [...this.entries.keys()]
      .sort()
      .map((id) => this.record(id))
      .filter((record) => filter.type === undefined || record.type === filter.type)
      .filter((record) => filter.enabled === undefined || record.enabled === filter.enabled);
  }

  get(id: string): ModuleDetail {
    const entry = this.entry(id);
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

  // ---- enable / disable -------------------------------------------------------

  setEnabled(id: string, enabled: boolean): Promise<ModuleDetail> {
    this.entry(id);
    // Environment switches touch two modules: serialise them on one key.
    const key = this.entries.get(id)?.manifest?.type === "environment" ? "environment" : id;
    return this.mutex.run(key, async () => {
      const entry = this.entry(id);
      if (enabled) await this.enable(entry);
      else await this.disable(entry);
      return this.get(id);
    });
  }

  private async enable(entry: Entry): Promise<void> {
    if (entry.missing) throw new CyrnelError("conflict", `module "${entry.id}" is missing from the modules folder`);
    if (!entry.instance || !entry.manifest) {
      throw new CyrnelError("conflict", `module "${entry.id}" failed to load: ${entry.loadError}`);
    }
    if (entry.active) {
      this.setEnabledFlag(entry.id, true);
      return;
    }
    const previousEnvironment = this.environmentId;
    if (!(await this.activate(entry))) {
      throw new CyrnelError("adapter_error", `module "${entry.id}" failed to start: ${entry.activationError}`);
    }
    this.setEnabledFlag(entry.id, true);
    if (entry.manifest.type === "environment") {
      const previous = previousEnvironment !== entry.id ? previousEnvironment : null;
      if (previous) {
        this.setEnabledFlag(previous, false);
        // The previous environment finishes what it is running, then stops.
        void this.options.hooks
          .drainEnvironment(previous)
          .then(() => this.deactivate(this.entries.get(previous)!))
          .catch((error) =>
            this.options.logger.error("stopping the previous environment failed", { module: previous, error }),
          );
      }
    }
  }

  private async disable(entry: Entry): Promise<void> {
    this.setEnabledFlag(entry.id, false);
    if (!entry.active) return;
    if (entry.manifest?.type === "environment") {
      if (this.environmentId === entry.id) this.environmentId = null;
      await this.options.hooks.cancelEnvironment(entry.id);
    }
    await this.deactivate(entry);
  }

  // ---- config and secrets ---------------------------------------------------------

  config(id: string): Record<string, unknown> {
    const entry = this.entry(id);
    return this.validated(entry, "configSchema", this.row(id)?.config ?? {}).value;
  }

  patchConfig(id: string, patch: unknown): Promise<Record<string, unknown>> {
    return this.mutex.run(id, async () => {
      const entry = this.entry(id);
      const previous = this.row(id)?.config ?? {};
      const next = applyPatch(this.config(id), patch);
      this.requireValid(entry, "configSchema", next, "config");
      this.writeConfig(id, next);
      await this.restartAfterChange(entry, () => this.writeConfig(id, previous));
      return this.config(id);
    });
  }

  secretNames(id: string): string[] {
    this.entry(id);
    return this.options.secrets.names({ type: "module", id });
  }

  patchSecrets(id: string, patch: unknown): Promise<string[]> {
    return this.mutex.run(id, async () => {
      const entry = this.entry(id);
      const owner = { type: "module" as const, id };
      const previous = this.options.secrets.read(owner);
      const next = applyPatch(previous, patch, { forbidden: ["test"] });
      this.requireValid(entry, "secretsSchema", next, "secrets");
      this.options.secrets.replace(owner, next);
      await this.restartAfterChange(entry, () => this.options.secrets.replace(owner, previous));
      return this.secretNames(id);
    });
  }

  /** An active module is restarted with its new config; if that fails the old values come back. */
  private async restartAfterChange(entry: Entry, restore: () => void): Promise<void> {
    if (!entry.active) return;
    if (entry.manifest?.type === "environment") await this.options.hooks.cancelEnvironment(entry.id);
    await this.deactivate(entry);
    if (await this.activate(entry)) return;
    const failure = entry.activationError;
    restore();
    await this.activate(entry);
    throw new CyrnelError("adapter_error", `module "${entry.id}" rejected the change: ${failure}`);
  }

  // ---- reload, replace, remove --------------------------------------------------

  /** Rescans the modules folder: new modules appear (disabled), changed ones are reloaded, vanished ones are missing. */
  reload(): Promise<ModuleRecord[]> {
    return this.mutex.run("reload", async () => {
      const onDisk = new Set(listModuleFolders(this.options.modulesDir));
      for (const id of onDisk) {
        const entry = this.entries.get(id);
        if (!entry || entry.missing) await this.mutex.run(id, () => this.discover(id));
        else if (!entry.builtin && entry.fingerprint !== moduleFingerprint(this.folder(id))) {
          await this.mutex.run(id, () => this.replace(id).catch(() => undefined));
        }
      }
      for (const entry of this.entries.values()) {
        if (entry.builtin || entry.missing || onDisk.has(entry.id)) continue;
        await this.mutex.run(entry.id, async () => {
          if (entry.active) await this.disableForRemoval(entry);
          Object.assign(entry, this.missingEntry(entry.id), { manifest: entry.manifest });
        });
      }
      return this.list();
    });
  }

  /**
   * Loads the module's current files in place of its running code. Returns
   * normally on success; on a load failure the previous code keeps running
   * and the error is thrown (callers restore files and call again).
   *
   * An adapter's services are regenerated by the new code once it has
   * started (or at once when the module is disabled: generateDefinition is
   * pure). If it fails to start they are left as they are until it does, so
   * an update that is rolled back cannot have replaced their tools and lost
   * the tools' enabled flags on the way.
   */
  async replace(id: string): Promise<void> {
    const entry = this.entry(id);
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
    const wasActive = entry.active;
    if (wasActive) await this.deactivate(entry, { keepEnvironment: true });
    Object.assign(entry, {
      manifest: loaded.manifest,
      instance: loaded.instance,
      loadError: null,
      missing: false,
      quarantined: false,
      fingerprint,
      regenerate: loaded.manifest.type === "adapter",
    });
    this.upsertRow(loaded.manifest, false);
    if (this.row(id)?.enabled) await this.activate(entry);
    else await this.regenerateServices(entry);
  }

  /**
   * Runs `operation` while holding the module's lock and the rescan lock (module updates from archives), so
   * `reload()` never sees the module's folder half-way through a swap.
   */
  exclusive<T>(id: string, operation: () => Promise<T>): Promise<T> {
    return this.mutex.run("reload", () => this.mutex.run(id, operation));
  }

  /**
   * Registers a module whose folder `place()` puts into the modules folder (installs from archives). Runs under
   * the same locks as `reload()`. A module that fails to load is refused: its folder is removed again and nothing
   * is registered. Starts disabled.
   */
  add(id: string, place: () => void): Promise<ModuleDetail> {
    return this.exclusive(id, async () => {
      if (this.entries.has(id)) throw new CyrnelError("conflict", `module "${id}" already exists`);
      place();
      const folder = this.folder(id);
      const fingerprint = moduleFingerprint(folder);
      let loaded: LoadedModuleCode;
      try {
        loaded = await this.loadCode(id, fingerprint);
      } catch (error) {
        rmSync(folder, { recursive: true, force: true });
        this.quarantine.settled(id);
        throw new CyrnelError("bad_request", `module "${id}" failed to load: ${messageOf(error)}`);
      }
      const entry: Entry = {
        ...this.blankEntry(id),
        manifest: loaded.manifest,
        instance: loaded.instance,
        fingerprint,
      };
      this.entries.set(id, entry);
      this.upsertRow(loaded.manifest, false);
      this.options.logger.info("custom module added", { module: id, version: loaded.manifest.version });
      return this.get(id);
    });
  }

  remove(id: string): Promise<void> {
    const entry = this.entry(id);
    if (entry.builtin) throw new CyrnelError("bad_request", `module "${id}" is built in and cannot be deleted`);
    return this.mutex.run(id, async () => {
      await this.disableForRemoval(entry);
      if (entry.manifest?.type !== "environment") await this.options.hooks.adapterRemoving(id);
      rmSync(this.folder(id), { recursive: true, force: true });
      rmSync(this.backupFolder(id), { recursive: true, force: true });
      this.quarantine.settled(id);
      this.options.db.transaction(() => {
        this.options.db.delete(modules).where(eq(modules.id, id)).run();
        this.options.secrets.remove({ type: "module", id });
      });
      this.entries.delete(id);
    });
  }

  /** Sets the registry descriptor URL a module was installed from. */
  setSource(id: string, source: string | null): void {
    this.options.db.update(modules).set({ source }).where(eq(modules.id, id)).run();
  }

  folder(id: string): string {
    return join(this.options.modulesDir, id);
  }

  /** Where an update keeps the version it replaced (see ModuleInstaller); deleted with the module. */
  backupFolder(id: string): string {
    return join(this.options.modulesDir, ".backup", id);
  }

  // ---- internals ------------------------------------------------------------------

  private registerBuiltin(factory: ModuleFactory): void {
    const manifest = validateManifest(factory.manifest, this.options.validator, {
      requireMain: false,
      hostVersion: this.options.hostVersion,
    });
    const entry: Entry = { ...this.blankEntry(manifest.id), builtin: true, manifest };
    try {
      const instance = factory.instantiate();
      if (instance instanceof Promise) throw new Error("built-in modules must instantiate synchronously");
      checkInstance(instance, manifest.type);
      entry.instance = instance;
    } catch (error) {
      entry.loadError = messageOf(error);
    }
    this.entries.set(manifest.id, entry);
    this.upsertRow(manifest, true);
  }

  /**
   * Loads a custom module found on disk; failures are recorded on its entry, never thrown. A quarantined module
   * (see module-quarantine.ts) is listed from its manifest without running any of its code.
   */
  private async discover(id: string): Promise<void> {
    const folder = this.folder(id);
    const entry: Entry = { ...this.blankEntry(id), fingerprint: moduleFingerprint(folder) };
    const held = this.quarantine.reason(id, entry.fingerprint);
    if (held !== null) {
      Object.assign(entry, this.failedLoad(entry, null, held));
      this.options.logger.error("custom module quarantined; its code was not loaded", {
        module: id,
        reason: held,
      });
    } else {
      try {
        const loaded = await this.loadCode(id, entry.fingerprint);
        entry.manifest = loaded.manifest;
        entry.instance = loaded.instance;
      } catch (error) {
        Object.assign(entry, this.failedLoad(entry, error));
        this.options.logger.error("custom module failed to load", { module: id, error: entry.loadError });
      }
    }
    this.entries.set(id, entry);
    if (entry.manifest) this.upsertRow(entry.manifest, false);
  }

  /**
   * Imports and instantiates a custom module's code under a crash marker, bounded by the load timeout. Code that
   * never finishes loading is quarantined: it keeps running in the background and would hold up every later start.
   */
  private async loadCode(id: string, fingerprint: string | null): Promise<LoadedModuleCode> {
    this.options.logger.debug("loading custom module", { module: id });
    this.quarantine.running(id, fingerprint);
    try {
      const loaded = await loadCustomModule(
        this.folder(id),
        this.options.validator,
        this.options.hostVersion,
        ++this.generation,
        this.options.lifecycleTimeoutMs,
      );
      this.quarantine.settled(id);
      return loaded;
    } catch (error) {
      if (error instanceof TimeoutError) this.quarantine.hold(id, fingerprint, error.message);
      else this.quarantine.settled(id);
      throw error;
    }
  }

  /** The entry fields of a module whose code is not loaded: why, and its manifest when module.json is readable. */
  private failedLoad(entry: Entry, error: unknown, quarantinedFor: string | null = null): Partial<Entry> {
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

  private async activate(entry: Entry): Promise<boolean> {
    if (!entry.instance || !entry.manifest) {
      entry.activationError = entry.loadError ?? "module is not loaded";
      return false;
    }
    const { manifest } = entry;
    const logger = this.options.logger.child({ module: entry.id });
    try {
      const config = this.validated(entry, "configSchema", this.row(entry.id)?.config ?? {});
      if (!config.valid) throw new Error(summariseIssues("invalid module config", config.errors));
      const secrets = this.validated(
        entry,
        "secretsSchema",
        this.options.secrets.read({ type: "module", id: entry.id }),
      );
      if (!secrets.valid) throw new Error(summariseIssues("invalid module secrets", secrets.errors));
      const context: ModuleSetupContext = { config: config.value, secrets: secrets.value, logger };
      const withBindings = manifest.type === "environment" ? { ...context, bindings: this.options.bindings } : context;
      const instance = entry.instance;
      // A custom module that takes the host down in setup() is quarantined at the next start (module-quarantine.ts).
      if (!entry.builtin) this.quarantine.running(entry.id, entry.fingerprint);
      const setup = Promise.resolve().then(() => (instance as EnvironmentModule).setup(withBindings as never));
      try {
        await withTimeout(`setup of module "${entry.id}"`, this.options.lifecycleTimeoutMs, () => setup);
      } catch (error) {
        if (error instanceof TimeoutError) this.undoLateSetup(entry, instance, setup);
        throw error;
      } finally {
        if (!entry.builtin) this.quarantine.settled(entry.id);
      }
    } catch (error) {
      entry.active = false;
      entry.activationError = messageOf(error);
      logger.error("module setup failed", { error: entry.activationError });
      return false;
    }
    entry.active = true;
    entry.activationError = null;
    logger.info("module active", { version: manifest.version });
    if (manifest.type === "environment") this.environmentId = entry.id;
    if (manifest.type === "adapter") {
      await this.regenerateServices(entry);
      await this.options.hooks.adapterActivated(entry.id);
    }
    return true;
  }

  /**
   * A setup that timed out keeps running; if it finishes after all, whatever it started (a sandbox process, a
   * timer, a connection) would have no owner and could keep the host from ever exiting. Tear it down then, unless
   * the module has been activated again in the meantime (that later setup owns the instance now).
   */
  private undoLateSetup(entry: Entry, instance: AdapterModule | EnvironmentModule, setup: Promise<unknown>): void {
    setup.then(
      async () => {
        if (entry.active && entry.instance === instance) return;
        this.options.logger.warn("a setup that timed out finished late; tearing it down", { module: entry.id });
        await withTimeout(`teardown of module "${entry.id}"`, this.options.lifecycleTimeoutMs, () =>
          instance.teardown(),
        ).catch((error) =>
          this.options.logger.error("module teardown failed", { module: entry.id, error: messageOf(error) }),
        );
      },
      () => undefined,
    );
  }

  private async regenerateServices(entry: Entry): Promise<void> {
    if (!entry.regenerate) return;
    entry.regenerate = false;
    await this.options.hooks.adapterReplaced(entry.id);
  }

  private async deactivate(entry: Entry, options: { keepEnvironment?: boolean } = {}): Promise<void> {
    if (!entry.active || !entry.instance) return;
    entry.active = false;
    if (this.environmentId === entry.id && !options.keepEnvironment) this.environmentId = null;
    const instance = entry.instance;
    try {
      await withTimeout(`teardown of module "${entry.id}"`, this.options.lifecycleTimeoutMs, () => instance.teardown());
    } catch (error) {
      this.options.logger.error("module teardown failed", { module: entry.id, error: messageOf(error) });
    }
  }

  private async disableForRemoval(entry: Entry): Promise<void> {
    if (entry.manifest?.type === "environment" && entry.active) {
      if (this.environmentId === entry.id) this.environmentId = null;
      await this.options.hooks.cancelEnvironment(entry.id);
    }
    await this.deactivate(entry);
  }

  private validated(entry: Entry, key: "configSchema" | "secretsSchema", value: Record<string, unknown>) {
    const result = this.options.validator.validate(entry.manifest?.[key] ?? EMPTY_SCHEMA, value);
    return { valid: result.valid, errors: result.errors, value: result.value as Record<string, unknown> };
  }

  private requireValid(
    entry: Entry,
    key: "configSchema" | "secretsSchema",
    value: Record<string, unknown>,
    what: string,
  ) {
    const result = this.validated(entry, key, value);
    if (!result.valid) {
      throw new CyrnelError(
        "validation_failed",
        summariseIssues(`invalid module ${what}`, result.errors),
        result.errors,
      );
    }
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) throw notFound(`module "${id}"`);
    return entry;
  }

  /** An entry for a module not loaded yet; the manifest comes from the database row when there is one. */
  private blankEntry(id: string): Entry {
    const row = this.row(id);
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

  private missingEntry(id: string): Entry {
    return { ...this.blankEntry(id), missing: true, loadError: "the module's folder is missing" };
  }

  private whyInactive(entry: Entry): string {
    if (entry.missing) return "missing from the modules folder";
    if (entry.loadError) return `broken: ${entry.loadError}`;
    if (this.row(entry.id)?.enabled) return `enabled but failed to start: ${entry.activationError}`;
    return "disabled";
  }

  private record(id: string): ModuleRecord {
    const entry = this.entry(id);
    const row = this.row(id);
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

  private rows() {
    return this.options.db.select().from(modules).orderBy(modules.id).all();
  }

  private row(id: string) {
    return this.options.db.select().from(modules).where(eq(modules.id, id)).get();
  }

  private upsertRow(manifest: ValidManifest, builtin: boolean): void {
    const now = new Date().toISOString();
    const meta = {
      type: manifest.type,
      name: manifest.name,
      description: manifest.description,
      version: manifest.version,
      builtin,
      updatedAt: now,
    };
    this.options.db
      .insert(modules)
      .values({ id: manifest.id, ...meta, enabled: builtin, config: {}, createdAt: now })
      .onConflictDoUpdate({ target: modules.id, set: meta })
      .run();
  }

  private setEnabledFlag(id: string, enabled: boolean): void {
    this.options.db
      .update(modules)
      .set({ enabled, updatedAt: new Date().toISOString() })
      .where(eq(modules.id, id))
      .run();
  }

  private writeConfig(id: string, config: Record<string, unknown>): void {
    this.options.db
      .update(modules)
      .set({ config, updatedAt: new Date().toISOString() })
      .where(eq(modules.id, id))
      .run();
  }
}
