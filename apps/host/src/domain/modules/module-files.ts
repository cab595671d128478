/**
 * Custom module files on every host sharing a database. A custom module's
 * files live in each host's `modules/<id>/`; with one PostgreSQL database
 * behind several hosts, the database also keeps each custom module's
 * archive (cluster/module-archive-store.ts), and that is the version every
 * host runs:
 *
 * - the host that installs or updates a module from an archive stores the
 *   archive (`share`), under the module's lock, once the files loaded;
 * - `POST /modules/reload` packs each folder changed by hand (`prepareRescan`)
 *   and stores it, so a module dropped into one host's folder reaches every
 *   host; a folder removed by hand comes back from the database (deleting a
 *   module is `DELETE /modules/{id}`);
 * - deleting a module deletes its archive (`unshare`);
 * - every other host, when it hears of the change, and every host at start,
 *   unpacks the stored archive into its own `modules/<id>/` when its folder's
 *   `folderDigest` differs (`restore`), and drops the folder of a module
 *   deleted meanwhile.
 *
 * A marker file per module (`modules/.shared/<id>`) says the folder came
 * from, or went to, the database: a folder with a marker and nothing stored
 * any more is a module deleted on another host, while a folder without one
 * is an operator's own (dropped in by hand, not shared yet), never deleted.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import { listModuleFolders } from "./custom-modules.js";
import { MODULE_ID } from "./manifest.js";
import {
  type ArchiveLimits,
  DEFAULT_ARCHIVE_LIMITS,
  folderDigest,
  packModuleFolder,
  unpackModuleArchive,
} from "./module-archives.js";

/** Where the archives are kept (the database, on PostgreSQL). */
export interface StoredModuleFiles {
  /** The stored version and folder digest of a module, without the bytes; null when none is stored. */
  describe(moduleId: string): Promise<{ version: string; folderDigest: string } | null>;
  /** Every stored module, without the bytes. */
  list(): Promise<{ moduleId: string; folderDigest: string }[]>;
  /** The archive's bytes (checked against their digest), or null. */
  archive(moduleId: string): Promise<Buffer | null>;
  /** Stores (or replaces) a module's archive and tells every host, in one transaction. */
  put(archive: { moduleId: string; version: string; body: Buffer; folderDigest: string }): Promise<void>;
  /** Deletes it and tells every host, in one transaction. */
  delete(moduleId: string): Promise<void>;
}

export interface ModuleFilesOptions {
  modulesDir: string;
  store: StoredModuleFiles;
  logger: HostLogger;
  /** The largest archive a rescan may store (the download cap, CYRNEL_DEFINITION_LIMIT_BYTES). */
  maxArchiveBytes: number;
  limits?: ArchiveLimits;
}

/** What `restore` did to `modules/<id>/`. */
export type Restored = "placed" | "same" | "none";

export class ModuleFiles {
  constructor(private readonly options: ModuleFilesOptions) {}

  // ---- the host that installs, updates, rescans or deletes ------------------------

  /** An install or update put `archive`'s files in `modules/<id>/` and loaded them: every host gets them. */
  async share(id: string, version: string, archive: Buffer): Promise<void> {
    const digest = folderDigest(this.folder(id));
    await this.options.store.put({ moduleId: id, version, body: archive, folderDigest: digest });
    this.mark(id, digest);
  }

  /** The module is being deleted: every host drops its files. */
  async unshare(id: string): Promise<void> {
    await this.options.store.delete(id);
    rmSync(this.marker(id), { force: true });
  }

  /**
   * Before a rescan of the modules folder: folders of `known` custom modules
   * that were removed by hand come back from the database; every custom
   * folder whose files differ from what is stored is packed and checked
   * (a 400 naming the first that cannot be shared, before anything
   * changed). Resolves to what stores the packed ones once the rescan has
   * loaded them.
   */
  async prepareRescan(known: readonly string[], builtins: ReadonlySet<string>): Promise<() => Promise<void>> {
    const onDisk = new Set(listModuleFolders(this.options.modulesDir));
    for (const id of known) if (!onDisk.has(id)) await this.restore(id);
    const packed: { moduleId: string; version: string; body: Buffer; folderDigest: string }[] = [];
    for (const id of listModuleFolders(this.options.modulesDir)) {
      if (builtins.has(id)) continue;
      const stored = await this.options.store.describe(id);
      const folder = this.folder(id);
      if (stored !== null && stored.folderDigest === folderDigest(folder)) {
        this.mark(id, stored.folderDigest);
        continue;
      }
      const { body, folderDigest: digest } = await packModuleFolder(
        folder,
        this.workDir(),
        this.options.maxArchiveBytes,
        this.options.limits ?? DEFAULT_ARCHIVE_LIMITS,
      );
      packed.push({ moduleId: id, version: manifestVersion(folder), body, folderDigest: digest });
    }
    return async () => {
      for (const archive of packed) {
        await this.options.store.put(archive);
        this.mark(archive.moduleId, archive.folderDigest);
        this.options.logger.info("module files shared with every host", {
          module: archive.moduleId,
          version: archive.version,
        });
      }
    };
  }

  // ---- every other host -----------------------------------------------------------

  /**
   * Brings `modules/<id>/` to the stored files: `placed` (unpacked and put
   * in place of whatever was there), `same` (already those files) or
   * `none` (nothing is stored: the folder is left as it is).
   */
  async restore(id: string): Promise<Restored> {
    const stored = await this.options.store.describe(id);
    if (stored === null) return "none";
    const live = this.folder(id);
    if (existsSync(live) && folderDigest(live) === stored.folderDigest) {
      this.mark(id, stored.folderDigest);
      return "same";
    }
    const body = await this.options.store.archive(id);
    if (body === null) return "none";
    const work = mkdtempSync(join(this.workDir(), "restore-"));
    try {
      const root = await unpackModuleArchive(body, join(work, ".unpacked"), this.options.limits);
      if (manifestId(root) !== id) throw new Error(`the stored archive of module "${id}" holds another module`);
      // The folder is swapped in one rename, so a reader never sees it half-written; the previous one goes.
      if (existsSync(live)) renameSync(live, join(work, "previous"));
      renameSync(root, live);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    if (folderDigest(live) !== stored.folderDigest) {
      this.options.logger.warn("module files unpacked from the database differ from the stored digest", {
        module: id,
      });
    }
    this.mark(id, stored.folderDigest);
    this.options.logger.info("module files brought from the database", { module: id, version: stored.version });
    return "placed";
  }

  /** Whether `modules/<id>/` came from, or went to, the database (see the file's comment). */
  isShared(id: string): boolean {
    return existsSync(this.marker(id));
  }

  /** Modules whose folder came from, or went to, the database. */
  sharedIds(): string[] {
    const dir = this.markers();
    return existsSync(dir) ? readdirSync(dir).filter((name) => MODULE_ID.test(name)) : [];
  }

  /** A module deleted on another host: its folder, its backup and its marker go. */
  drop(id: string): void {
    rmSync(this.folder(id), { recursive: true, force: true });
    rmSync(join(this.options.modulesDir, ".backup", id), { recursive: true, force: true });
    rmSync(this.marker(id), { force: true });
  }

  /**
   * At start, before any module is loaded: every stored module's folder is
   * brought to its stored files, and the folder of a shared module that was
   * deleted while this host was down (no archive, no row) goes. A module
   * that cannot be restored is logged and loads from whatever its folder holds.
   */
  async restoreAll(rowIds: ReadonlySet<string>): Promise<void> {
    const stored = await this.options.store.list();
    for (const { moduleId } of stored) {
      try {
        await this.restore(moduleId);
      } catch (error) {
        this.options.logger.error("module files could not be brought from the database", {
          module: moduleId,
          error: messageOf(error),
        });
      }
    }
    const kept = new Set(stored.map((archive) => archive.moduleId));
    for (const id of this.sharedIds()) {
      if (!kept.has(id) && !rowIds.has(id)) this.drop(id);
    }
  }

  // ---- internals ------------------------------------------------------------------

  private folder(id: string): string {
    return join(this.options.modulesDir, id);
  }

  private markers(): string {
    return join(this.options.modulesDir, ".shared");
  }

  private marker(id: string): string {
    return join(this.markers(), id);
  }

  private mark(id: string, digest: string): void {
    mkdirSync(this.markers(), { recursive: true });
    writeFileSync(this.marker(id), `${digest}\n`);
  }

  /** Under `.staging/` (a dot-folder is never a module; the installer empties it at start). */
  private workDir(): string {
    const dir = join(this.options.modulesDir, ".staging");
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}

function readManifest(folder: string): Record<string, unknown> {
  try {
    const raw = JSON.parse(readFileSync(join(folder, "module.json"), "utf8")) as unknown;
    return raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function manifestId(folder: string): unknown {
  return readManifest(folder).id;
}

/** module.json's version as written (the row's `version` column needs one; the loader validates it). */
function manifestVersion(folder: string): string {
  const version = readManifest(folder).version;
  return typeof version === "string" && version !== "" ? version : "unknown";
}
