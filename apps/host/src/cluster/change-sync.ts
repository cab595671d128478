/**
 * Changes reach every host: the composition that makes hosts sharing one
 * PostgreSQL database (`CYRNEL_DATABASE_URL`) hold the same state. A change
 * made through any host (a service installed, updated, enabled, deleted, its
 * config or secrets patched, tools switched, a policy set, a module
 * installed, updated, enabled, configured or deleted, a key created or
 * revoked, a registry added or removed) takes effect on every other host
 * within moments:
 *
 * - **Publishing.** The PostgreSQL stores send each write's change inside
 *   the write's own transaction (db/changes-pg.ts), once `publishAs` names
 *   this host; the archive of a custom module goes into the database with
 *   its change in one transaction (module-archive-store.ts,
 *   domain/modules/module-files.ts).
 * - **Receiving** (change-feed.ts, on this host's one LISTEN connection:
 *   notification-listener.ts). What is only a cache is dropped at once, so
 *   the next request reads the database: the revisions that key the service
 *   catalog, the tool gate's lookups and the environment's tool docs
 *   (`tools`, `service`), compiled policies (`policy`, `service`), the masks
 *   of service secrets (`service`). What is state is brought to the
 *   database's, one change at a time in the order they came: a service's
 *   adapter hydration (`ServiceLifecycle.resync`), a module's row, files,
 *   code and activation (`ModuleSync.resync`). Keys and registries are read
 *   from the database on every request: nothing to do.
 * - **Missed changes.** PostgreSQL keeps no notification for a connection
 *   that is down. After the listening connection comes back, every cache is
 *   dropped and every module and service brought to the database's state.
 * - **Locks.** The per-service and per-module locks are `ClusterMutex`es
 *   (session advisory locks), so two hosts never interleave an install, an
 *   update or a settings patch of one service or module, and a resync waits
 *   for the change in flight on the other host before it reads.
 *
 * With SQLite (one host) nothing of this runs: the locks are the host's
 * own `KeyedMutex`es and no change is sent or followed.
 */
import { join } from "node:path";
import pg from "pg";
import type { HostConfig } from "../config.js";
import { guardConnections } from "../db/client-pg.js";
import type { SharedDatabase, Store } from "../db/store.js";
import type { Policies } from "../domain/governance/policies.js";
import type { ModuleEntries } from "../domain/modules/module-entries.js";
import { ModuleFiles } from "../domain/modules/module-files.js";
import type { ModuleLoader } from "../domain/modules/module-loader.js";
import type { ModuleRegistry } from "../domain/modules/module-registry.js";
import type { ModuleRows } from "../domain/modules/module-rows.js";
import { ModuleSync } from "../domain/modules/module-sync.js";
import type { SecretStore } from "../domain/secrets/secret-store.js";
import type { ServiceLifecycle } from "../domain/services/service-lifecycle.js";
import type { ServiceStore } from "../domain/services/service-store.js";
import { KeyedMutex, type Locks } from "../lib/keyed-mutex.js";
import type { HostLogger } from "../log.js";
import { ChangeFeed, type ChangeSubscription, type ReceivedChange } from "./change-feed.js";
import { ClusterMutex } from "./cluster-mutex.js";
import { ModuleArchiveStore } from "./module-archive-store.js";
import type { NotificationListener } from "./notification-listener.js";
import { inTransaction, messageOf } from "./sql.js";

/**
 * Connections for the cross-host locks, apart from the stores' pool: a lock holds its connection for the whole
 * operation, which itself queries through the stores' pool, so holders can never starve the queries they wait on.
 * A resync nests at most four (rescan, environment, module, service); admin operations are rare.
 */
const LOCK_CONNECTIONS = 16;

export interface ChangeSyncOptions {
  store: Store;
  config: Pick<HostConfig, "databaseUrl" | "dataDir" | "definitionLimitBytes" | "secretsKey">;
  logger: HostLogger;
  /**
   * On PostgreSQL, what the host shares with its process cluster: its id (in every change it sends) and its one
   * listening connection (the host's to stop). Without it, one host on its own: local locks, nothing followed.
   */
  cluster?: { hostId: string; listener: NotificationListener };
}

/** What follows other hosts' changes once the host is built. */
export interface FollowedState {
  serviceStore: ServiceStore;
  services: ServiceLifecycle;
  policies: Policies;
  secrets: SecretStore;
  moduleRows: ModuleRows;
  moduleEntries: ModuleEntries;
  moduleRegistry: ModuleRegistry;
  moduleLoader: ModuleLoader;
}

export interface ChangeSync {
  /** This host's id in the changes it sends; null on SQLite. */
  readonly hostId: string | null;
  /** What sends changes (for changes that do not come from a store write); null on SQLite. */
  readonly publisher: ChangeFeed | null;
  /** The per-service lock (ServiceLifecycle). */
  readonly serviceLocks: Locks;
  /** The per-module locks (ModuleRegistry, ModuleLoader, module settings). */
  readonly moduleLocks: Locks;
  /** Custom module files kept in the database for every host; undefined on SQLite. */
  readonly moduleFiles: ModuleFiles | undefined;
  /** Before modules are loaded: each module's folder brought to its stored files. */
  restoreModules(rows: ModuleRows): Promise<void>;
  /** Once modules have started: other hosts' changes are followed (those that came meanwhile included). */
  follow(state: FollowedState): Promise<void>;
  /** Stops following (a resync under way finishes first) and closes the lock connections. */
  stop(): Promise<void>;
}

export async function startChangeSync(options: ChangeSyncOptions): Promise<ChangeSync> {
  const { cluster } = options;
  const shared = options.store.shared;
  if (shared === null || options.config.databaseUrl === null || cluster === undefined) {
    return {
      hostId: null,
      publisher: null,
      serviceLocks: new KeyedMutex(),
      moduleLocks: new KeyedMutex(),
      moduleFiles: undefined,
      restoreModules: async () => undefined,
      follow: async () => undefined,
      stop: async () => undefined,
    };
  }
  return PgChangeSync.start(shared, options.config.databaseUrl, cluster, options);
}

/** A lock per key of one kind: the prefix keeps a service and a module of the same name apart. */
function prefixed(locks: Locks, prefix: string): Locks {
  return { run: (key, operation) => locks.run(`${prefix}${key}`, operation) };
}

class PgChangeSync implements ChangeSync {
  readonly serviceLocks: Locks;
  readonly moduleLocks: Locks;
  readonly moduleFiles: ModuleFiles;
  private state: (FollowedState & { modules: ModuleSync }) | null = null;
  /** Changes that came before `follow`: applied then, in order. */
  private early: (ReceivedChange | "missed")[] = [];
  /** Resyncs waiting, by key, in the order they were asked for; a key asked for again while waiting runs once. */
  private readonly pending = new Map<string, () => Promise<void>>();
  private draining: Promise<void> | null = null;
  private subscription: ChangeSubscription | null = null;
  private stopped = false;

  private constructor(
    readonly hostId: string,
    readonly publisher: ChangeFeed,
    private readonly lockPool: pg.Pool,
    private readonly logger: HostLogger,
    moduleFiles: ModuleFiles,
  ) {
    const locks = new ClusterMutex(lockPool);
    this.serviceLocks = prefixed(locks, "service:");
    this.moduleLocks = prefixed(locks, "module:");
    this.moduleFiles = moduleFiles;
  }

  static async start(
    shared: SharedDatabase,
    url: string,
    { hostId, listener }: NonNullable<ChangeSyncOptions["cluster"]>,
    options: ChangeSyncOptions,
  ): Promise<PgChangeSync> {
    const { config, logger } = options;
    const pool = shared.db.$client;
    if (config.secretsKey === null) {
      logger.warn(
        "CYRNEL_SECRETS_KEY is not set: this host seals secrets with its data directory's secrets.key, which other " +
          "hosts sharing the database cannot open; give every host the same CYRNEL_SECRETS_KEY",
      );
    }
    const lockPool = new pg.Pool({
      connectionString: url,
      max: LOCK_CONNECTIONS,
      application_name: `cyrnel locks ${hostId}`,
    });
    // A connection that dies holding a lock releases it; the pool replaces it. It must not take the host down.
    guardConnections(lockPool, (error) => logger.warn("a lock connection failed", { error: messageOf(error) }));
    const feed = new ChangeFeed({ pool, listener, hostId, logger });
    const archives = new ModuleArchiveStore(pool);
    const moduleFiles = new ModuleFiles({
      modulesDir: join(config.dataDir, "modules"),
      logger,
      maxArchiveBytes: config.definitionLimitBytes,
      store: {
        describe: (id) => archives.describe(id),
        list: () => archives.list(),
        archive: async (id) => (await archives.archive(id))?.body ?? null,
        // The archive and its change commit together: a host that hears of it can read it.
        put: (archive) =>
          inTransaction(pool, async (tx) => {
            await archives.put({ ...archive, hostId }, tx);
            await feed.publish({ kind: "module", id: archive.moduleId, action: "updated" }, tx);
          }),
        delete: (id) =>
          inTransaction(pool, async (tx) => {
            await archives.delete(id, tx);
            await feed.publish({ kind: "module", id, action: "deleted" }, tx);
          }),
      },
    });
    const sync = new PgChangeSync(hostId, feed, lockPool, logger, moduleFiles);
    try {
      // Listening before the host reads anything: a change committed while it loads is queued, not lost.
      sync.subscription = await feed.subscribe((change) => sync.received(change), {
        onMissed: () => sync.received("missed"),
      });
    } catch (error) {
      await sync.stop();
      throw error;
    }
    shared.changes.publishAs(hostId);
    logger.info("following changes from other hosts sharing the database", { hostId });
    return sync;
  }

  async restoreModules(rows: ModuleRows): Promise<void> {
    await this.moduleFiles.restoreAll(new Set((await rows.all()).map((row) => row.id)));
  }

  async follow(state: FollowedState): Promise<void> {
    const modules = new ModuleSync({
      rows: state.moduleRows,
      entries: state.moduleEntries,
      loader: state.moduleLoader,
      registry: state.moduleRegistry,
      files: this.moduleFiles,
      locks: this.moduleLocks,
      logger: this.logger,
    });
    this.state = { ...state, modules };
    const early = this.early;
    this.early = [];
    for (const change of early) this.received(change);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.clear();
    await this.subscription?.close().catch(() => undefined);
    await this.draining;
    await this.lockPool.end();
  }

  // ---- receiving ------------------------------------------------------------------

  private received(change: ReceivedChange | "missed"): void {
    if (this.stopped) return;
    const state = this.state;
    if (state === null) {
      this.early.push(change);
      return;
    }
    if (change === "missed") {
      this.logger.warn("changes from other hosts may have been missed; reloading everything from the database");
      state.serviceStore.changedElsewhere(null);
      state.policies.changedElsewhere();
      state.secrets.changedElsewhere();
      // Everything is resynced: whatever waited is part of it.
      this.pending.clear();
      this.enqueue("*", () => this.resyncEverything(state));
      return;
    }
    this.logger.debug("change from another host", { kind: change.kind, id: change.id, origin: change.origin });
    switch (change.kind) {
      case "service":
        // Its tools, its policy (deleted with it) and its secrets may have changed with it.
        state.serviceStore.changedElsewhere(change.id);
        state.policies.changedElsewhere();
        state.secrets.changedElsewhere();
        this.enqueue(`service:${change.id}`, () => state.services.resync(change.id));
        break;
      case "tools":
        state.serviceStore.changedElsewhere(change.id);
        break;
      case "policy":
        state.policies.changedElsewhere();
        break;
      case "module":
        this.enqueue(`module:${change.id}`, () => state.modules.resync(change.id));
        break;
      case "key":
      case "registry":
      case "settings":
        // Read from the database on every request: nothing is kept here to refresh.
        break;
    }
  }

  private enqueue(key: string, resync: () => Promise<void>): void {
    this.pending.set(key, resync);
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  /**
   * One resync at a time, in the order changes came: a module's resync may start adapters whose services then
   * hydrate, and each holds locks that a local change of the same service or module holds too.
   */
  private async drain(): Promise<void> {
    for (;;) {
      const next = this.pending.entries().next();
      if (next.done || this.stopped) return;
      const [key, resync] = next.value;
      this.pending.delete(key);
      try {
        await resync();
      } catch (error) {
        this.logger.error("a change from another host could not be applied here", {
          change: key,
          error: messageOf(error),
        });
      }
    }
  }

  private async resyncEverything(state: FollowedState & { modules: ModuleSync }): Promise<void> {
    await state.modules.resyncAll();
    const ids = new Set([...(await state.serviceStore.serviceIds()), ...state.services.hydratedIds()]);
    for (const id of ids) {
      try {
        await state.services.resync(id);
      } catch (error) {
        this.logger.error("a service could not be brought to the database's state", {
          service: id,
          error: messageOf(error),
        });
      }
    }
  }
}
