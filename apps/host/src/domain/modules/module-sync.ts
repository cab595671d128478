/**
 * Brings this host's modules to what the shared database says after
 * another host changed one: its row (enabled flag, config, source), its
 * files (from the stored archive: module-files.ts), its code (loaded again
 * when the files changed) and its activation (ModuleRegistry.resync: set up,
 * torn down or restarted with the stored config and secrets, and which
 * environment is the active one). Writes nothing: the host that made the
 * change wrote it; this one only follows.
 *
 * Each resync holds the locks a local change of the module holds, in the
 * same order (rescan, environment switch, module), so it waits for an
 * install, update, enable or settings patch of that module in flight here
 * or — with the cluster-wide locks — on another host, and then reads the
 * result rather than a state half-way through.
 */
import { existsSync } from "node:fs";
import { messageOf } from "../../errors.js";
import type { Locks } from "../../lib/keyed-mutex.js";
import type { HostLogger } from "../../log.js";
import { moduleFingerprint } from "./custom-modules.js";
import type { ModuleEntries } from "./module-entries.js";
import type { ModuleFiles } from "./module-files.js";
import { type ModuleLoader, RESCAN_LOCK } from "./module-loader.js";
import { ENVIRONMENT_LOCK, type ModuleRegistry } from "./module-registry.js";
import type { ModuleRows } from "./module-rows.js";

export interface ModuleSyncOptions {
  rows: ModuleRows;
  entries: ModuleEntries;
  loader: ModuleLoader;
  registry: ModuleRegistry;
  files: ModuleFiles;
  /** The module locks the registry, the loader and module settings use. */
  locks: Locks;
  logger: HostLogger;
}

export class ModuleSync {
  constructor(private readonly options: ModuleSyncOptions) {}

  /** One module changed on another host. */
  resync(id: string): Promise<void> {
    const { locks } = this.options;
    return locks.run(RESCAN_LOCK, () => locks.run(ENVIRONMENT_LOCK, () => locks.run(id, () => this.follow(id))));
  }

  /**
   * Changes may have been missed (the listening connection dropped): every
   * module this host or the database knows is brought to the database's
   * state, adapters first (their services hydrate as they start), then
   * environments, the enabled one before the others.
   */
  async resyncAll(): Promise<void> {
    const { rows, entries, files } = this.options;
    const ids = new Set([
      ...(await rows.idsInDatabase()),
      ...(await rows.all()).map((row) => row.id),
      ...entries.all().map((entry) => entry.id),
      ...files.sharedIds(),
    ]);
    const rank = (id: string) => {
      const row = rows.peek(id);
      const type = row?.type ?? entries.find(id)?.manifest?.type;
      return type === "adapter" ? 0 : row?.enabled ? 1 : 2;
    };
    for (const id of [...ids].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))) {
      try {
        await this.resync(id);
      } catch (error) {
        this.options.logger.error("a module could not be brought to the database's state", {
          module: id,
          error: messageOf(error),
        });
      }
    }
  }

  private async follow(id: string): Promise<void> {
    const { rows, entries, loader, registry, files, logger } = this.options;
    const hadRow = rows.peek(id) !== undefined;
    await rows.refresh(id);
    const row = rows.peek(id);
    const entry = entries.find(id);
    if (entry?.builtin) {
      // Built-ins come with the host: only their row (enabled, config) and secrets can change.
      await registry.resync(id);
      return;
    }
    if (!row) {
      // Deleted on another host (its files went from the database with it). A folder this host found by itself
      // and never shared (a module.json that does not load, so no row was ever written) is the operator's: kept.
      if (hadRow || files.isShared(id)) {
        await loader.forget(id);
        files.drop(id);
        logger.info("module deleted on another host", { module: id });
      }
      return;
    }
    await files.restore(id);
    const folder = loader.folder(id);
    if (!existsSync(folder)) {
      // Nothing stored and no folder: missing here, as at start.
      if (!entry) entries.set(entries.missing(id));
      else if (!entry.missing) await loader.lose(entry);
    } else if (!entry || entry.missing) {
      await loader.adopt(id);
    } else if (entry.fingerprint !== moduleFingerprint(folder)) {
      try {
        await loader.replace(id, { fromElsewhere: true });
      } catch (error) {
        // It loaded on the host that installed it: the previous code keeps running here, and the log says why.
        logger.error("module files from another host failed to load here; the previous code keeps running", {
          module: id,
          error: messageOf(error),
        });
      }
    }
    await registry.resync(id);
  }
}
