/**
 * Installs and updates custom modules from archives: from
 * a registry descriptor (`install`, `updateFromRegistry`) or a direct
 * `.tgz` URL (`updateFromUrl`).
 *
 * Archives are unpacked and fully validated in `modules/.staging/` before
 * anything under `modules/<id>/` changes. An update moves the running
 * version to `modules/.backup/<id>/<version>/` (one backup per module, the
 * version that was replaced), swaps the new folder in and reloads it in
 * place; if the new version fails to load or, for an active module, to
 * start, the backup is moved back and loaded again, and the caller gets a
 * 400 naming the error while the previous version keeps serving. Dot-folders
 * are never taken for modules (`listModuleFolders`).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ModuleDetail, ModuleUpdateResult } from "../../contract/modules.js";
import { CyrnelError, messageOf } from "../../errors.js";
import type { SchemaValidator } from "../../lib/json-schema.js";
import type { HostLogger } from "../../log.js";
import { readModuleManifest } from "./custom-modules.js";
import { MODULE_ID, type ValidManifest } from "./manifest.js";
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS, folderDigest, unpackModuleArchive } from "./module-archives.js";
import type { ModuleEntries } from "./module-entries.js";
import type { ModuleFiles } from "./module-files.js";
import type { ModuleLoader } from "./module-loader.js";
import type { ModuleRows } from "./module-rows.js";

/** A module archive downloaded for a registry version (already checked against the descriptor's SHA-256). */
export interface ModuleRelease {
  version: string;
  body: Buffer;
}

export interface ModuleInstallerOptions {
  loader: ModuleLoader;
  entries: ModuleEntries;
  store: ModuleRows;
  validator: SchemaValidator;
  logger: HostLogger;
  hostVersion: string;
  modulesDir: string;
  /** Resolves a version of the descriptor at `source`, downloads and hash-checks its archive. */
  fetchRelease(source: string, version: string | undefined): Promise<ModuleRelease>;
  /** Downloads a direct archive URL (http/https, capped, with timeout). */
  downloadArchive(url: string): Promise<Buffer>;
  limits?: ArchiveLimits;
  /** Hosts sharing a database: an installed or updated archive is stored for every host (module-files.ts). */
  files?: Pick<ModuleFiles, "share">;
}

interface Staged {
  /** `.staging/<nonce>/<id>`: named after the module so the manifest check (id = folder) applies unchanged. */
  folder: string;
  manifest: ValidManifest;
  cleanup(): void;
}

export class ModuleInstaller {
  private readonly stagingDir: string;

  constructor(private readonly options: ModuleInstallerOptions) {
    this.stagingDir = join(options.modulesDir, ".staging");
    // Left over from a crash mid-install; nothing in it is referenced.
    rmSync(this.stagingDir, { recursive: true, force: true });
  }

  /** Installs a new module from a registry descriptor; it starts disabled. */
  async install(source: string, version: string | undefined): Promise<ModuleDetail> {
    const release = await this.options.fetchRelease(source, version);
    const staged = await this.stage(release.body);
    try {
      const { id } = staged.manifest;
      this.requireVersion(staged.manifest, release.version);
      const { loader, store, entries, logger, files } = this.options;
      await loader.add(
        id,
        () => renameSync(staged.folder, loader.folder(id)),
        async () => {
          await store.setSource(id, source);
          await files?.share(id, staged.manifest.version, release.body);
        },
      );
      logger.info("module installed", { module: id, version: staged.manifest.version, source });
      return entries.get(id);
    } finally {
      staged.cleanup();
    }
  }

  /** Updates a registry-installed module from its stored descriptor. */
  async updateFromRegistry(id: string, version: string | undefined): Promise<ModuleUpdateResult> {
    const current = this.updatable(id);
    if (current.source === null) {
      throw new CyrnelError(
        "conflict",
        `module "${id}" was not installed from a registry; update it with PATCH /modules/${id} and an archive URL`,
      );
    }
    const source = current.source;
    const release = await this.options.fetchRelease(source, version);
    return this.update(id, release.body, (manifest) => this.requireVersion(manifest, release.version));
  }

  /** Updates a custom module from a direct `.tgz` URL. Its registry source, if any, is kept. */
  async updateFromUrl(id: string, url: string): Promise<ModuleUpdateResult> {
    this.updatable(id);
    return this.update(id, await this.options.downloadArchive(url));
  }

  private updatable(id: string): ModuleDetail {
    const current = this.options.entries.get(id);
    if (current.builtin) {
      throw new CyrnelError(
        "bad_request",
        `module "${id}" is built in; it is updated with the host, not from archives`,
      );
    }
    return current;
  }

  private async update(
    id: string,
    archive: Buffer,
    check: (manifest: ValidManifest) => void = () => undefined,
  ): Promise<ModuleUpdateResult> {
    const staged = await this.stage(archive);
    try {
      const { manifest } = staged;
      if (manifest.id !== id) {
        throw new CyrnelError("bad_request", `the archive holds module "${manifest.id}", not "${id}"`);
      }
      check(manifest);
      return await this.options.loader.exclusive(id, () => this.swap(id, staged, archive));
    } finally {
      staged.cleanup();
    }
  }

  /** Runs under the module's lock: backup, swap, reload; roll back on failure. */
  private async swap(id: string, staged: Staged, archive: Buffer): Promise<ModuleUpdateResult> {
    const { loader, entries, logger } = this.options;
    const before = entries.get(id);
    const fromVersion = before.version;
    const toVersion = staged.manifest.version;
    if (before.type !== null && staged.manifest.type !== before.type) {
      throw new CyrnelError(
        "bad_request",
        `module "${id}" is an ${before.type}; the archive holds an ${staged.manifest.type}`,
      );
    }
    const live = loader.folder(id);
    if (existsSync(live) && folderDigest(live) === folderDigest(staged.folder)) {
      return { id, updated: false, fromVersion, toVersion: fromVersion };
    }

    const backupRoot = loader.backupFolder(id);
    const backup = join(backupRoot, fromVersion ?? "unknown");
    rmSync(backupRoot, { recursive: true, force: true });
    mkdirSync(backupRoot, { recursive: true });
    const hadFolder = existsSync(live);
    if (hadFolder) renameSync(live, backup);
    renameSync(staged.folder, live);

    let failure: string | null = null;
    try {
      await loader.replace(id);
      const after = entries.get(id);
      if (before.active && !after.active) failure = `it failed to start: ${after.error}`;
    } catch (error) {
      failure = `it failed to load: ${messageOf(error)}`;
    }
    if (failure === null) {
      // Still under the module's locks, so another host never finds the new row without the files that go with it.
      await this.options.files?.share(id, toVersion, archive);
      logger.info("module updated", { module: id, fromVersion, toVersion });
      return { id, updated: true, fromVersion, toVersion };
    }

    // Put the previous version back and load it again, so what runs matches what is on disk.
    rmSync(live, { recursive: true, force: true });
    if (hadFolder) renameSync(backup, live);
    try {
      if (hadFolder) await loader.replace(id);
    } catch (error) {
      logger.error("reloading the restored module failed", { module: id, error: messageOf(error) });
    }
    logger.warn("module update rolled back", { module: id, fromVersion, toVersion, error: failure });
    throw new CyrnelError(
      "bad_request",
      `module "${id}" ${toVersion} was not installed because ${failure}; ` +
        (hadFolder ? `version ${fromVersion} was restored and keeps running` : "the module stays as it was"),
    );
  }

  /** Unpacks and validates an archive under `.staging/`, in a folder named after the module's id. */
  private async stage(archive: Buffer): Promise<Staged> {
    const work = join(this.stagingDir, randomUUID());
    const cleanup = () => rmSync(work, { recursive: true, force: true });
    try {
      // A dot-name can never be a module id, so the rename below cannot collide with it.
      const root = await unpackModuleArchive(
        archive,
        join(work, ".unpacked"),
        this.options.limits ?? DEFAULT_ARCHIVE_LIMITS,
      );
      const id = readManifestId(root);
      const folder = join(work, id);
      renameSync(root, folder);
      let manifest: ValidManifest;
      try {
        manifest = readModuleManifest(folder, this.options.validator, this.options.hostVersion);
      } catch (error) {
        throw new CyrnelError("bad_request", `the module archive was refused: ${messageOf(error)}`);
      }
      return { folder, manifest, cleanup };
    } catch (error) {
      cleanup();
      throw error;
    }
  }

  private requireVersion(manifest: ValidManifest, version: string): void {
    if (manifest.version !== version) {
      throw new CyrnelError(
        "bad_request",
        `the registry's archive for version ${version} holds module.json version ${manifest.version}`,
      );
    }
  }
}

/** The id from module.json, read just far enough to name the staging folder (full validation follows). */
function readManifestId(root: string): string {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(root, "module.json"), "utf8"));
  } catch (error) {
    throw new CyrnelError(
      "bad_request",
      `the module archive was refused: module.json is not valid JSON: ${messageOf(error)}`,
    );
  }
  const id = (raw as { id?: unknown } | null)?.id;
  if (typeof id !== "string" || !MODULE_ID.test(id)) {
    throw new CyrnelError(
      "bad_request",
      `the module archive was refused: module.json "id" must be 1–64 lowercase letters, digits, ".", "_" or "-"`,
    );
  }
  return id;
}
