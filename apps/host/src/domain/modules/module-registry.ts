/**
 * Activation of modules: `setup` and `teardown`, the operator's enabled
 * flag, and the rule that exactly one environment is active. What activation
 * means for services and processes is published as {@link ModuleEvents} and
 * awaited. Module config and secrets are a {@link Settings} whose changes
 * restart an active module; code comes from the module loader.
 */
import { createHash } from "node:crypto";
import type { AdapterModule, EnvironmentBindings, EnvironmentModule, ModuleSetupContext } from "@cyrnel/sdk";
import type { ModuleDetail } from "../../contract/modules.js";
import { CyrnelError, messageOf } from "../../errors.js";
import { type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import type { Locks } from "../../lib/keyed-mutex.js";
import { TimeoutError, withTimeout } from "../../lib/with-timeout.js";
import type { HostLogger } from "../../log.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { Settings, type SettingsKind } from "../settings/settings.js";
import type { LoadedModuleCode } from "./custom-modules.js";
import { EMPTY_SCHEMA, type ModuleEntries, type ModuleEntry } from "./module-entries.js";
import type { ModuleEvents } from "./module-events.js";
import type { ModuleQuarantine } from "./module-quarantine.js";
import type { ModuleRows } from "./module-rows.js";

export interface ModuleRegistryOptions {
  entries: ModuleEntries;
  store: ModuleRows;
  events: ModuleEvents;
  /** One lock per module id (and `environment` for switches), shared with the loader and module settings. */
  locks: Locks;
  /** Marks custom module code as running while its `setup()` runs (module-quarantine.ts). */
  quarantine: ModuleQuarantine;
  secrets: SecretStore;
  validator: SchemaValidator;
  logger: HostLogger;
  /** Handed to environment modules at setup: how they report runs and call tools. */
  bindings: EnvironmentBindings;
  /**
   * Bound on each call that starts or stops module code: `setup()`, `teardown()`. Separate from the (usually much
   * shorter) bound on tool calls: starting an environment may spawn processes, and a short invoke timeout must not
   * make that fail on a busy machine.
   */
  lifecycleTimeoutMs: number;
}

/**
 * The lock key of environment switches (they touch two modules). Not a valid module id (module ids never hold
 * `:`), so it never collides with a module's own key when both are held.
 */
export const ENVIRONMENT_LOCK = ":environment";

export class ModuleRegistry {
  /** Module config and secrets; a change restarts an active module, and is rolled back if it fails to start. */
  readonly settings: Settings<ModuleEntry>;
  /**
   * Per active module, a digest of the config and secrets its `setup()` was given: `resync` compares it with what
   * the database holds now to tell whether another host changed them (never the values: only their hash is kept).
   */
  private readonly applied = new Map<string, string>();
  /** Environments that were replaced by another and finish their runs before they stop. */
  private readonly draining = new Set<string>();

  constructor(private readonly options: ModuleRegistryOptions) {
    this.settings = new Settings(
      {
        type: "module",
        locks: options.locks,
        find: async (id) => options.entries.require(id),
        schema: moduleSchema,
        invalid: (_entry, kind) => `invalid module ${kind}`,
        storedConfig: (entry) => this.storedConfig(entry),
        writeConfig: (id, config) => options.store.setConfig(id, config),
        apply: (entry) => this.restart(entry),
        reapply: async (entry) => {
          if (!entry.active) await this.activate(entry);
        },
      },
      options.secrets,
      options.validator,
    );
  }

  // ---- start and stop ----------------------------------------------------

  /** Activates the enabled modules the loader found: adapters first, then at most one environment. */
  async start(): Promise<void> {
    const { entries, store, logger } = this.options;
    const enabled = (await store.all()).filter((row) => row.enabled);
    for (const row of enabled.filter((r) => r.type === "adapter")) {
      const entry = entries.find(row.id);
      if (entry) await this.activate(entry);
    }
    let environment: string | null = null;
    for (const row of enabled.filter((r) => r.type === "environment")) {
      const entry = entries.find(row.id);
      if (environment === null) {
        // A failing environment keeps its enabled flag (operator intent); its record shows the error.
        if (entry && (await this.activate(entry))) environment = row.id;
      } else {
        logger.warn("only one environment can be active; disabling another enabled one", { module: row.id });
        await store.setEnabled(row.id, false);
      }
    }
  }

  async stop(): Promise<void> {
    const active = this.options.entries.all().filter((entry) => entry.active);
    // Environment first: it may be calling into adapters.
    active.sort((a, b) => (isEnvironment(a) ? -1 : 0) - (isEnvironment(b) ? -1 : 0));
    for (const entry of active) await this.deactivate(entry);
  }

  // ---- enable / disable -------------------------------------------------------

  setEnabled(id: string, enabled: boolean): Promise<ModuleDetail> {
    const { entries, locks } = this.options;
    // Environment switches touch two modules: serialise them on one key.
    const key = isEnvironment(entries.require(id)) ? ENVIRONMENT_LOCK : id;
    return locks.run(key, async () => {
      const entry = entries.require(id);
      if (enabled) await this.enable(entry);
      else await this.disable(entry);
      return entries.get(id);
    });
  }

  private async enable(entry: ModuleEntry): Promise<void> {
    const { entries, store } = this.options;
    if (entry.missing) throw new CyrnelError("conflict", `module "${entry.id}" is missing from the modules folder`);
    if (!entry.instance || !entry.manifest) {
      throw new CyrnelError("conflict", `module "${entry.id}" failed to load: ${entry.loadError}`);
    }
    if (entry.active) {
      await store.setEnabled(entry.id, true);
      return;
    }
    const previousEnvironment = entries.environmentId;
    if (!(await this.activate(entry))) {
      throw new CyrnelError("adapter_error", `module "${entry.id}" failed to start: ${entry.activationError}`);
    }
    await store.setEnabled(entry.id, true);
    const previous = isEnvironment(entry) && previousEnvironment !== entry.id ? previousEnvironment : null;
    if (previous === null) return;
    await store.setEnabled(previous, false);
    this.drain(previous);
  }

  /** The previous environment finishes what it is running, then stops; whoever switched does not wait for that. */
  private drain(previous: string): void {
    const { entries, events, logger } = this.options;
    this.draining.add(previous);
    void events
      .emit("environmentDraining", { environmentId: previous })
      .then(async () => {
        const retired = entries.find(previous);
        if (retired) await this.deactivate(retired);
      })
      .catch((error) => logger.error("stopping the previous environment failed", { module: previous, error }))
      .finally(() => this.draining.delete(previous));
  }

  private async disable(entry: ModuleEntry): Promise<void> {
    await this.options.store.setEnabled(entry.id, false);
    await this.retire(entry);
  }

  // ---- for the loader -------------------------------------------------------------

  /**
   * Puts newly loaded code in place of the module's running code: tears the old code down, starts the new one when
   * the module is enabled, and only then has an adapter's services regenerated (at once when it is disabled:
   * generateDefinition is pure). If the new code fails to start, services are left as they are until it does, so an
   * update that is rolled back cannot have replaced their tools and lost the tools' enabled flags on the way.
   */
  async replaceCode(
    entry: ModuleEntry,
    code: LoadedModuleCode,
    fingerprint: string,
    options: { fromElsewhere?: boolean } = {},
  ): Promise<void> {
    // The environment slot stays with the module across the swap: it is still the active environment afterwards.
    if (entry.active) await this.deactivate(entry, { keepEnvironment: true });
    Object.assign(entry, {
      manifest: code.manifest,
      instance: code.instance,
      loadError: null,
      missing: false,
      quarantined: false,
      fingerprint,
      // Code another host installed: that host recorded the module and regenerated the services with it already
      // (under the module's lock, before this host could take it); doing it again would only write the same rows.
      regenerate: code.manifest.type === "adapter" && !options.fromElsewhere,
    });
    if (!options.fromElsewhere) await this.options.store.upsert(code.manifest, false);
    if (this.options.store.peek(entry.id)?.enabled) await this.activate(entry);
    else await this.regenerateServices(entry);
  }

  /**
   * Brings the module's activation to what its row says now, after another host changed it: enabled or not,
   * with the config and secrets stored now, and which environment is the active one. Writes nothing (the host that
   * made the change wrote it). The caller holds the module's locks; the row was re-read (ModuleRows.refresh).
   */
  async resync(id: string): Promise<void> {
    const { entries, store, logger } = this.options;
    const entry = entries.find(id);
    if (!entry) return;
    const enabled = store.peek(id)?.enabled ?? false;
    if (!enabled) {
      if (!entry.active || this.draining.has(id)) return;
      // Replaced by another environment (enabled elsewhere): it finishes its runs first, as on the host that
      // switched. Disabled outright: its runs are canceled, as on the host that disabled it.
      if (isEnvironment(entry) && entries.environmentId !== id) this.drain(id);
      else await this.retire(entry);
      return;
    }
    if (!entry.active) {
      // Not loaded here (missing, broken, quarantined): its record says why, as on any host.
      if (!entry.instance) return;
      const previousEnvironment = entries.environmentId;
      if (!(await this.activate(entry))) return;
      if (isEnvironment(entry) && previousEnvironment !== null && previousEnvironment !== id) {
        if (!this.draining.has(previousEnvironment)) this.drain(previousEnvironment);
      }
      return;
    }
    const now = await this.setupDigest(entry).catch(() => null);
    if (now !== null && now === this.applied.get(id)) return;
    try {
      await this.restart(entry);
    } catch (error) {
      // As on the host that made the change, except that there is nothing to roll back here: its record says why.
      logger.error("module could not restart with the config or secrets changed on another host", {
        module: id,
        error: messageOf(error),
      });
    }
  }

  /** Stops a module that is going away or being disabled: an environment's processes are canceled first. */
  async retire(entry: ModuleEntry): Promise<void> {
    if (!entry.active) return;
    if (isEnvironment(entry)) await this.stopEnvironment(entry);
    await this.deactivate(entry);
  }

  /** Before a custom module's files and row are deleted: it stops, and an adapter's services are deleted. */
  async removing(entry: ModuleEntry): Promise<void> {
    await this.retire(entry);
    if (!isEnvironment(entry)) await this.options.events.emit("adapterRemoving", { adapterId: entry.id });
  }

  // ---- internals ------------------------------------------------------------------

  /** An active module is restarted with its changed config or secrets; it failing to start rolls them back. */
  private async restart(entry: ModuleEntry): Promise<void> {
    if (!entry.active) return;
    // Its processes are canceled first; it stays the active environment until its teardown.
    if (isEnvironment(entry)) await this.options.events.emit("environmentStopping", { environmentId: entry.id });
    await this.deactivate(entry);
    if (await this.activate(entry)) return;
    throw new CyrnelError("adapter_error", `module "${entry.id}" rejected the change: ${entry.activationError}`);
  }

  private async activate(entry: ModuleEntry): Promise<boolean> {
    if (!entry.instance || !entry.manifest) {
      entry.activationError = entry.loadError ?? "module is not loaded";
      return false;
    }
    const { manifest } = entry;
    const { quarantine, lifecycleTimeoutMs } = this.options;
    const logger = this.options.logger.child({ module: entry.id });
    let digest: string;
    try {
      const values = await this.setupValues(entry);
      digest = digestOf(values);
      const context: ModuleSetupContext = { ...values, logger };
      if (!isEnvironment(entry)) {
        context.reportStale = (serviceId, reason) => {
          void this.options.events.emit("serviceStale", {
            adapterId: entry.id,
            serviceId: String(serviceId),
            reason: String(reason).slice(0, 2048),
          });
        };
      }
      const withBindings = isEnvironment(entry) ? { ...context, bindings: this.options.bindings } : context;
      const instance = entry.instance;
      // A custom module that takes the host down in setup() is quarantined at the next start (module-quarantine.ts).
      if (!entry.builtin) quarantine.running(entry.id, entry.fingerprint);
      const setup = Promise.resolve().then(() => (instance as EnvironmentModule).setup(withBindings as never));
      try {
        await withTimeout(`setup of module "${entry.id}"`, lifecycleTimeoutMs, () => setup);
      } catch (error) {
        if (error instanceof TimeoutError) this.undoLateSetup(entry, instance, setup);
        throw error;
      } finally {
        if (!entry.builtin) quarantine.settled(entry.id);
      }
    } catch (error) {
      entry.active = false;
      entry.activationError = messageOf(error);
      logger.error("module setup failed", { error: entry.activationError });
      return false;
    }
    entry.active = true;
    entry.activationError = null;
    this.applied.set(entry.id, digest);
    logger.info("module active", { version: manifest.version });
    if (manifest.type === "environment") {
      this.options.entries.environmentId = entry.id;
      await this.options.events.emit("environmentActivated", { environmentId: entry.id });
    }
    if (manifest.type === "adapter") {
      await this.regenerateServices(entry);
      await this.options.events.emit("adapterActivated", { adapterId: entry.id });
    }
    return true;
  }

  /** The digest of the values a setup would be given now (throws as setupValues does). */
  private async setupDigest(entry: ModuleEntry): Promise<string> {
    return digestOf(await this.setupValues(entry));
  }

  /** Config and secrets validated against the manifest's schemas, defaults applied; a problem fails the setup. */
  private async setupValues(
    entry: ModuleEntry,
  ): Promise<{ config: Record<string, unknown>; secrets: Record<string, unknown> }> {
    const { validator, secrets } = this.options;
    const config = validator.validate(moduleSchema(entry, "config"), this.storedConfig(entry));
    if (!config.valid) throw new Error(summariseIssues("invalid module config", config.errors));
    const stored = await secrets.read({ type: "module", id: entry.id });
    const values = validator.validate(moduleSchema(entry, "secrets"), stored);
    if (!values.valid) throw new Error(summariseIssues("invalid module secrets", values.errors));
    return { config: config.value as Record<string, unknown>, secrets: values.value as Record<string, unknown> };
  }

  /**
   * A setup that timed out keeps running; if it finishes after all, whatever it started (a sandbox process, a
   * timer, a connection) would have no owner and could keep the host from ever exiting. Tear it down then, unless
   * the module has been activated again in the meantime (that later setup owns the instance now).
   */
  private undoLateSetup(
    entry: ModuleEntry,
    instance: AdapterModule | EnvironmentModule,
    setup: Promise<unknown>,
  ): void {
    const { logger, lifecycleTimeoutMs } = this.options;
    setup.then(
      async () => {
        if (entry.active && entry.instance === instance) return;
        logger.warn("a setup that timed out finished late; tearing it down", { module: entry.id });
        await withTimeout(`teardown of module "${entry.id}"`, lifecycleTimeoutMs, () => instance.teardown()).catch(
          (error) => logger.error("module teardown failed", { module: entry.id, error: messageOf(error) }),
        );
      },
      () => undefined,
    );
  }

  private async regenerateServices(entry: ModuleEntry): Promise<void> {
    if (!entry.regenerate) return;
    entry.regenerate = false;
    await this.options.events.emit("adapterReplaced", { adapterId: entry.id });
  }

  private async stopEnvironment(entry: ModuleEntry): Promise<void> {
    const { entries, events } = this.options;
    if (entries.environmentId === entry.id) entries.environmentId = null;
    await events.emit("environmentStopping", { environmentId: entry.id });
  }

  private async deactivate(entry: ModuleEntry, options: { keepEnvironment?: boolean } = {}): Promise<void> {
    if (!entry.active || !entry.instance) return;
    const { entries, logger, lifecycleTimeoutMs } = this.options;
    entry.active = false;
    this.applied.delete(entry.id);
    if (entries.environmentId === entry.id && !options.keepEnvironment) entries.environmentId = null;
    const instance = entry.instance;
    try {
      await withTimeout(`teardown of module "${entry.id}"`, lifecycleTimeoutMs, () => instance.teardown());
    } catch (error) {
      logger.error("module teardown failed", { module: entry.id, error: messageOf(error) });
    }
  }

  private storedConfig(entry: ModuleEntry): Record<string, unknown> {
    return this.options.store.peek(entry.id)?.config ?? {};
  }
}

function moduleSchema(entry: ModuleEntry, kind: SettingsKind): Record<string, unknown> {
  return (kind === "config" ? entry.manifest?.configSchema : entry.manifest?.secretsSchema) ?? EMPTY_SCHEMA;
}

/** A digest of setup values, the same whatever order their keys were read in (secret rows come in no set order). */
function digestOf(values: { config: Record<string, unknown>; secrets: Record<string, unknown> }): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([key, item]) => [key, sorted(item)]),
          )
        : value;
  return createHash("sha256")
    .update(JSON.stringify(sorted(values)))
    .digest("hex");
}

function isEnvironment(entry: ModuleEntry): boolean {
  return entry.manifest?.type === "environment";
}
