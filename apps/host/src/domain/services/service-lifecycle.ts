/**
 * The service lifecycle, and the adapter hooks each step calls: install
 * (generateDefinition), enable (hydrateService), config/secrets patch
 * (hydrate again, restore on failure), update (generateDefinition,
 * dehydrateService, new tools, hydrate), disable and delete
 * (dehydrateService). Operations on one service are serialised. Adapter
 * module events (module-events.ts) hydrate, regenerate and delete an
 * adapter's services.
 */
import { createHash } from "node:crypto";
import {
  type AdapterModule,
  isValidIdentifier,
  MAX_IDENTIFIER_CHARS,
  type ServiceDefinition,
  type ServiceState,
} from "@cyrnel/sdk";
import type { EnableFailure, InstalledService, ServiceDetail, UpdateResult } from "../../contract/services.js";
import { CyrnelError, messageOf } from "../../errors.js";
import { downloadText } from "../../lib/download.js";
import { type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import { KeyedMutex, type Locks } from "../../lib/keyed-mutex.js";
import { isUniqueViolation } from "../../lib/unique-violation.js";
import { TimeoutError, withTimeout } from "../../lib/with-timeout.js";
import type { HostLogger } from "../../log.js";
import { EVERY_SERVICE, seesService, type Viewer } from "../governance/caller.js";
import type { ModuleEntries } from "../modules/module-entries.js";
import type { ModuleEventMap, ModuleEvents } from "../modules/module-events.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { Settings, type SettingsKind } from "../settings/settings.js";
import { checkDefinition } from "./definition-check.js";
import { serviceNotFound } from "./not-found.js";
import { serviceDetail } from "./records.js";
import { readReservedSecrets } from "./secret-headers.js";
import { type ServiceRow, type ServiceStore, type ToolRowText, toolRows } from "./service-store.js";
import { type TypesBudgetLimits, typesNote } from "./types-budget.js";

export interface ServiceLifecycleOptions {
  store: ServiceStore;
  /** Adapter code, active or not. */
  modules: Pick<ModuleEntries, "adapter" | "activeAdapter" | "adapterCode">;
  /** Subscribed to at construction: adapters activated, replaced and removed. */
  events: ModuleEvents;
  secrets: SecretStore;
  validator: SchemaValidator;
  logger: HostLogger;
  /** Bound on each adapter hook call. */
  hookTimeoutMs: number;
  definitionLimitBytes: number;
  /** The idle timeout and the bound on the whole transfer of a definition URL (lib/download.ts). */
  downloadTimeoutMs: number;
  downloadTotalTimeoutMs?: number;
  /** Refuse definition URLs on non-public addresses (CYRNEL_DOWNLOAD_DENY_PRIVATE). */
  denyPrivateDownloads?: boolean;
  /**
   * The per-service lock every operation on one service holds (and `resync`); one host's own by default. Hosts
   * sharing a PostgreSQL database pass one that holds across them, so two hosts never interleave an install, an
   * update or a config patch of the same service.
   */
  locks?: Locks;
  /** Called after a service (definition, tools) was deleted, so the database can give the space back. */
  spaceFreed?: () => void;
  /**
   * A callable service whose types exceed the budget, as `typesNote` says it (undefined when they fit or the service
   * is not callable): its record says so for as long as it is true, not only the install's answer.
   */
  typesNoteOf?: (serviceId: string) => Promise<string | undefined>;
  /** What the types of a service may cost: an install or update whose tools exceed it says so (`typesNote`). */
  typesBudget?: TypesBudgetLimits;
}

export interface InstallInput {
  id: string;
  adapter: string;
  definition?: string;
  url?: string;
  enabled?: boolean;
  /** Registry installs record where the definition came from. */
  source?: string | null;
  version?: string | null;
}

export class ServiceLifecycle {
  private readonly mutex: Locks;
  /** Services handed to their adapter (`hydrateService`) and not taken back since, with that adapter's id. */
  private readonly hydrated = new Map<string, string>();
  /**
   * Enabled services that could not be brought up (hydrated) when their adapter started, and why: e.g. a start
   * with the wrong CYRNEL_SECRETS_KEY. `enabled` is the operator's choice and stays as it is; the next start (or
   * enable, or config/secrets patch) that hydrates the service clears the entry.
   */
  private readonly unavailable = new Map<string, string>();

  /**
   * Service config and secrets. A disabled service may be filled in one field at a time (top-level `required` is
   * checked when it is enabled); an enabled one is re-hydrated with the new values, and gets the old ones back if
   * that fails.
   */
  readonly settings: Settings<ServiceRow>;

  constructor(private readonly options: ServiceLifecycleOptions) {
    this.mutex = options.locks ?? new KeyedMutex();
    const { events } = options;
    events.on("adapterActivated", ({ adapterId }) => this.hydrateAdapter(adapterId));
    events.on("adapterReplaced", ({ adapterId }) => this.regenerateAdapter(adapterId));
    events.on("adapterRemoving", ({ adapterId }) => this.removeAdapterServices(adapterId));
    events.on("serviceStale", (report) => this.markStale(report));
    this.settings = new Settings(
      {
        type: "service",
        locks: this.mutex,
        find: (id) => this.row(id),
        schema: serviceSchema,
        patchSchema: (row, kind) =>
          row.enabled ? serviceSchema(row, kind) : withoutRequired(serviceSchema(row, kind)),
        reservedSecrets: readReservedSecrets,
        invalid: (row, kind) => `invalid ${kind} for service "${row.id}"`,
        storedConfig: (row) => row.config,
        writeConfig: (id, config) => options.store.update(id, { config }),
        // Values of a service whose adapter is stopped are stored and put to use when the adapter starts.
        apply: async (before) => {
          if (before.enabled && !before.stale && this.options.modules.activeAdapter(before.adapter)) {
            await this.hydrate(await this.row(before.id));
          }
        },
        reapply: (before) => this.rehydrateOrMarkUnavailable(before.id),
      },
      options.secrets,
      options.validator,
    );
  }

  // ---- install, update, delete ---------------------------------------------

  async install(input: InstallInput): Promise<InstalledService> {
    const { store } = this.options;
    if (!isValidIdentifier(input.id)) {
      throw new CyrnelError(
        "bad_request",
        `service id "${input.id}" is not a valid TypeScript identifier of at most ${MAX_IDENTIFIER_CHARS} characters, ` +
          "or is a reserved word",
      );
    }
    if ((input.definition === undefined) === (input.url === undefined)) {
      throw new CyrnelError("bad_request", `exactly one of "definition" and "url" is required`);
    }
    const adapter = this.options.modules.adapter(input.adapter);
    if (await store.get(input.id)) throw new CyrnelError("conflict", `service "${input.id}" already exists`);
    const text = input.definition ?? (await this.fetchDefinition(input.url!, input.adapter));
    const generating = this.generate(input.adapter, adapter, text);
    // Hashed while the adapter works (the openapi adapter in a worker thread): 13 MB take ~20 ms.
    const hash = sha256(text);
    const definition = await generating;
    const tools = await toolRows(definition);
    const note = this.typesNoteOf(tools);

    await this.mutex.run(input.id, async () => {
      try {
        await store.insert({
          id: input.id,
          adapter: input.adapter,
          definition,
          tools,
          text,
          hash,
          source: input.source ?? null,
          version: input.version ?? null,
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new CyrnelError("conflict", `service "${input.id}" already exists`);
        throw error;
      }
    });
    this.options.logger.info("service installed", {
      service: input.id,
      adapter: input.adapter,
      tools: definition.tools.length,
    });
    const noted = note === undefined ? {} : { typesNote: note };
    if (!input.enabled) return { ...(await this.detail(input.id)), ...noted };
    try {
      return { ...(await this.setEnabled(input.id, true)), ...noted };
    } catch (error) {
      return { ...(await this.detail(input.id)), enableError: failureOf(error), ...noted };
    }
  }

  /** The install's or update's word on types that do not fit the budget. */
  private typesNoteOf(tools: readonly ToolRowText[]): string | undefined {
    const limits = this.options.typesBudget;
    return limits === undefined ? undefined : typesNote(tools, limits);
  }

  /**
   * Direct (definition text or URL) or registry update: regenerate unless the text is unchanged — or the service is
   * stale (its adapter no longer accepts the text, or reported that the end service changed): then the same text is
   * generated again, which is how an operator picks up an MCP server's new tools.
   */
  update(
    id: string,
    input: { definition?: string; url?: string; text?: string; source?: string | null; version?: string | null },
  ): Promise<UpdateResult> {
    return this.mutex.run(id, async () => {
      const row = await this.row(id);
      const given = [input.definition, input.url, input.text].filter((value) => value !== undefined).length;
      if (given !== 1) throw new CyrnelError("bad_request", `exactly one of "definition" and "url" is required`);
      const text = input.definition ?? input.text ?? (await this.fetchDefinition(input.url!, row.adapter));
      const hash = sha256(text);
      if (hash === row.hash && !row.stale) return { id, updated: false, enabled: row.enabled };
      const adapter = this.options.modules.adapter(row.adapter);
      const definition = await this.generate(row.adapter, adapter, text);
      const tools = await toolRows(definition);
      await this.dehydrate(row.adapter, id);
      await this.options.store.replaceDefinition(id, {
        definition,
        tools,
        text,
        hash,
        source: input.source,
        version: input.version,
      });
      this.options.logger.info("service updated", { service: id, tools: definition.tools.length });
      const note = this.typesNoteOf(tools);
      const noted = note === undefined ? {} : { typesNote: note };
      if (!row.enabled) return { id, updated: true, enabled: false, ...noted };
      try {
        await this.hydrate(await this.row(id));
        return { id, updated: true, enabled: true, ...noted };
      } catch (error) {
        await this.options.store.update(id, { enabled: false });
        return { id, updated: true, enabled: false, enableError: failureOf(error), ...noted };
      }
    });
  }

  remove(id: string): Promise<void> {
    return this.mutex.run(id, async () => {
      const row = await this.row(id);
      await this.dehydrate(row.adapter, id);
      // Its secrets go with it, in the same transaction.
      await this.options.store.delete(id);
      this.options.secrets.removed();
      this.unavailable.delete(id);
      this.options.spaceFreed?.();
      this.options.logger.info("service deleted", { service: id });
    });
  }

  // ---- enable / disable -------------------------------------------------------

  setEnabled(id: string, enabled: boolean): Promise<ServiceDetail> {
    return this.mutex.run(id, async () => {
      const row = await this.row(id);
      if (!enabled) {
        await this.options.store.update(id, { enabled: false });
        this.unavailable.delete(id);
        await this.dehydrate(row.adapter, id);
        return this.detail(id);
      }
      if (row.stale) {
        throw new CyrnelError("conflict", `service "${id}" is stale (${row.staleReason}); update its definition first`);
      }
      this.options.modules.adapter(row.adapter);
      const state = await this.state(row);
      await this.options.store.update(id, { enabled: true });
      try {
        await this.callHydrate(row.adapter, state);
      } catch (error) {
        // A service that was enabled keeps the operator's choice; a new enable that fails leaves it disabled.
        if (row.enabled) this.unavailable.set(id, messageOf(error));
        else await this.options.store.update(id, { enabled: false });
        throw error;
      }
      return this.detail(id);
    });
  }

  // ---- adapter module events ------------------------------------------------------

  /**
   * The adapter became active: hydrate each of its enabled services. One that fails stays enabled (the operator's
   * choice survives a start with, say, the wrong secrets key) but is not running: its record and every call to
   * its tools say why, until a later start, enable or patch hydrates it.
   */
  private async hydrateAdapter(adapterId: string): Promise<void> {
    for (const id of await this.options.store.idsOfAdapter(adapterId)) {
      await this.mutex.run(id, async () => {
        const row = await this.options.store.get(id);
        if (!row?.enabled || row.stale) return;
        try {
          await this.hydrate(row);
        } catch (error) {
          this.unavailable.set(id, messageOf(error));
          this.options.logger.error("service kept enabled but not running", { service: id, error: messageOf(error) });
        }
      });
    }
  }

  /**
   * Brings this host's adapter state of one service to what the database says, after another host changed it
   * (installed, updated, enabled, disabled, deleted, or patched its config or secrets): an enabled service whose
   * adapter is active here is hydrated again with the stored definition, config and secrets; any other is taken
   * back from its adapter. Writes nothing: the host that made the change wrote it (and, say, rolled back a failed
   * enable). Holds the service's lock, so it waits for an operation in flight on it, here or on another host.
   */
  resync(id: string): Promise<void> {
    return this.mutex.run(id, async () => {
      const row = await this.options.store.get(id);
      if (!row?.enabled || row.stale || !this.options.modules.activeAdapter(row.adapter)) {
        this.unavailable.delete(id);
        const adapterId = row?.adapter ?? this.hydrated.get(id);
        if (adapterId !== undefined) await this.dehydrate(adapterId, id);
        return;
      }
      try {
        await this.hydrate(row);
      } catch (error) {
        // As at start: the operator's choice (enabled) stands, the service is not running here, and says why.
        this.unavailable.set(id, messageOf(error));
        this.options.logger.error("service changed on another host could not be hydrated here", {
          service: id,
          error: messageOf(error),
        });
      }
    });
  }

  /** Services this host handed to an adapter (a deleted one among them is only known here). */
  hydratedIds(): string[] {
    return [...this.hydrated.keys()];
  }

  /** Why an enabled service is not running, or null (it runs, or it is disabled). */
  unavailableReason(id: string): string | null {
    return this.unavailable.get(id) ?? null;
  }

  /** New adapter code: regenerate every service from its stored definition; failures mark it stale. */
  private async regenerateAdapter(adapterId: string): Promise<void> {
    const adapter = this.options.modules.adapterCode(adapterId);
    if (!adapter) return;
    for (const id of await this.options.store.idsOfAdapter(adapterId)) {
      await this.mutex.run(id, async () => {
        const text = await this.options.store.definitionText(id);
        if (text === undefined) return;
        try {
          const definition = await this.generate(adapterId, adapter, text);
          const tools = await toolRows(definition);
          await this.options.store.replaceDefinition(id, { definition, tools, text, hash: sha256(text) });
        } catch (error) {
          const reason = `adapter "${adapterId}" no longer accepts its definition: ${messageOf(error)}`;
          await this.options.store.update(id, { stale: true, staleReason: reason });
          this.options.logger.warn("service marked stale", { service: id, reason });
        }
      });
    }
  }

  /**
   * An adapter says a service of its own no longer matches its end service: it is stale (its tools refused) until
   * an operator updates it, which regenerates it even from the same text. A report about another adapter's service,
   * or one that does not exist, changes nothing.
   */
  private async markStale({ adapterId, serviceId, reason }: ModuleEventMap["serviceStale"]): Promise<void> {
    await this.mutex.run(serviceId, async () => {
      const row = await this.options.store.get(serviceId);
      if (!row || row.adapter !== adapterId || row.stale) return;
      const staleReason = `adapter "${adapterId}" reported: ${reason}`;
      await this.options.store.update(serviceId, { stale: true, staleReason });
      this.options.logger.warn("service marked stale", { service: serviceId, reason: staleReason });
    });
  }

  private async removeAdapterServices(adapterId: string): Promise<void> {
    for (const id of await this.options.store.idsOfAdapter(adapterId)) await this.remove(id);
  }

  // ---- internals -------------------------------------------------------------------

  /** `viewer`: a service outside its allow-list is not found (as one that does not exist). */
  async detail(id: string, viewer: Viewer = EVERY_SERVICE): Promise<ServiceDetail> {
    const detail = serviceDetail(await this.row(id, viewer), this.unavailableReason(id));
    const note = await this.options.typesNoteOf?.(id);
    return note === undefined ? detail : { ...detail, typesNote: note };
  }

  private async row(id: string, viewer: Viewer = EVERY_SERVICE): Promise<ServiceRow> {
    const row = seesService(viewer, id) ? await this.options.store.get(id) : undefined;
    if (!row) throw await serviceNotFound(this.options.store, id, viewer);
    return row;
  }

  private async fetchDefinition(url: string, adapterId: string): Promise<string> {
    return downloadText(url, {
      what: "definition",
      expected: `a document the "${adapterId}" adapter reads`,
      maxBytes: this.options.definitionLimitBytes,
      timeoutMs: this.options.downloadTimeoutMs,
      totalTimeoutMs: this.options.downloadTotalTimeoutMs,
      denyPrivate: this.options.denyPrivateDownloads,
    });
  }

  private async generate(adapterId: string, adapter: AdapterModule, text: string): Promise<ServiceDefinition> {
    let raw: unknown;
    try {
      raw = await withTimeout(`generateDefinition of adapter "${adapterId}"`, this.options.hookTimeoutMs, () =>
        adapter.generateDefinition(text),
      );
    } catch (error) {
      if (error instanceof TimeoutError) throw new CyrnelError("invoke_timeout", error.message);
      throw new CyrnelError("bad_request", `adapter "${adapterId}" rejected the definition: ${messageOf(error)}`);
    }
    return await checkDefinition(raw, adapterId, this.options.validator);
  }

  /**
   * The hydration snapshot: config and secrets validated against the schemas, defaults applied; secret headers and
   * query parameters (`secret-headers.ts`) checked and handed over apart from the other secrets.
   */
  private async state(row: ServiceRow): Promise<ServiceState> {
    const config = this.options.validator.validate(row.configSchema, row.config);
    const reserved = readReservedSecrets(await this.options.secrets.read({ type: "service", id: row.id }));
    const secrets = this.options.validator.validate(row.secretsSchema, reserved.others);
    const issues = [
      ...config.errors.map((issue) => ({ ...issue, message: `config: ${issue.message}` })),
      ...[...reserved.issues, ...secrets.errors].map((issue) => ({ ...issue, message: `secrets: ${issue.message}` })),
    ];
    if (issues.length > 0) {
      throw new CyrnelError(
        "validation_failed",
        summariseIssues(`service "${row.id}" cannot be enabled`, issues),
        issues,
      );
    }
    const tools: ServiceState["tools"] = {};
    for (const tool of await this.options.store.toolDomains(row.id))
      tools[tool.id] = { adapterDomain: tool.adapterDomain };
    return {
      id: row.id,
      adapterDomain: row.adapterDomain,
      tools,
      config: config.value as Record<string, unknown>,
      secrets: secrets.value as Record<string, unknown>,
      ...reserved.state,
    };
  }

  private async hydrate(row: ServiceRow): Promise<void> {
    await this.callHydrate(row.adapter, await this.state(row));
  }

  private async callHydrate(adapterId: string, state: ServiceState): Promise<void> {
    const adapter = this.options.modules.adapter(adapterId);
    try {
      await withTimeout(`hydrateService of adapter "${adapterId}"`, this.options.hookTimeoutMs, () =>
        adapter.hydrateService(state),
      );
      this.hydrated.set(state.id, adapterId);
      this.unavailable.delete(state.id);
    } catch (error) {
      if (error instanceof TimeoutError) throw new CyrnelError("invoke_timeout", error.message);
      throw new CyrnelError(
        "adapter_error",
        `adapter "${adapterId}" could not hydrate service "${state.id}": ${messageOf(error)}`,
      );
    }
  }

  private async dehydrate(adapterId: string, id: string): Promise<void> {
    this.hydrated.delete(id);
    const adapter = this.options.modules.activeAdapter(adapterId);
    if (!adapter) return;
    try {
      await withTimeout(`dehydrateService of adapter "${adapterId}"`, this.options.hookTimeoutMs, () =>
        adapter.dehydrateService(id),
      );
    } catch (error) {
      this.options.logger.error("dehydrateService failed", {
        service: id,
        adapter: adapterId,
        error: messageOf(error),
      });
    }
  }

  /**
   * After a failed settings change, with the previous values restored: hydrate again. If that fails too, the
   * service keeps the operator's choice (enabled) but is not running, like one its adapter could not bring up at
   * start: its record and calls to its tools say why, until a patch or enable hydrates it.
   */
  private async rehydrateOrMarkUnavailable(id: string): Promise<void> {
    try {
      await this.hydrate(await this.row(id));
    } catch (again) {
      this.unavailable.set(id, messageOf(again));
      this.options.logger.error("restoring the previous values failed too; service kept enabled but not running", {
        service: id,
        error: messageOf(again),
      });
    }
  }
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function serviceSchema(row: ServiceRow, kind: SettingsKind): Record<string, unknown> {
  return kind === "config" ? row.configSchema : row.secretsSchema;
}

/** A disabled service may be configured one field at a time: top-level `required` is checked when it is enabled. */
function withoutRequired(schema: Record<string, unknown>): Record<string, unknown> {
  const { required: _required, ...rest } = schema;
  return rest;
}

export function failureOf(error: unknown): EnableFailure {
  return error instanceof CyrnelError
    ? { code: error.code, error: error.message }
    : { code: "internal", error: messageOf(error) };
}
