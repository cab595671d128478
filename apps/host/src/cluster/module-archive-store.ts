/**
 * Custom module archives in the database (`cluster_module_archives`), so
 * every host runs the same version of a module: a host that installs,
 * updates or rescans a module stores its archive here, in one transaction
 * with the `module` change it publishes (change-sync.ts); every other host
 * then compares the stored `folderDigest` with its own copy under
 * `modules/<id>/` (`folderDigest` from domain/modules/module-archives.ts, the
 * digest the installer uses to tell an update from a no-op) and, when they
 * differ, unpacks the stored archive and swaps it in
 * (domain/modules/module-files.ts) and reloads the module. A host that
 * starts does the same for every stored module before loading modules, so
 * a new or restarted host never runs stale files.
 *
 * Archives are bounded by the download cap (`CYRNEL_DEFINITION_LIMIT_BYTES`)
 * before they get here, so one `bytea` per module is enough; the digest
 * columns let hosts check for changes without reading the bytes.
 */
import { createHash } from "node:crypto";
import type { Queryable } from "./sql.js";

export interface StoredModuleArchive {
  moduleId: string;
  version: string;
  /** SHA-256 of the archive bytes (hex). */
  archiveSha256: string;
  /** `folderDigest` of the module's folder once unpacked: what hosts compare their own copy with. */
  folderDigest: string;
  updatedAt: Date;
  /** The host that stored it. */
  updatedBy: string | null;
}

const COLUMNS = `module_id AS "moduleId", version, archive_sha256 AS "archiveSha256", folder_digest AS "folderDigest",
  updated_at AS "updatedAt", updated_by AS "updatedBy"`;

export class ModuleArchiveStore {
  constructor(private readonly db: Queryable) {}

  /** Stores (or replaces) a module's archive; pass the transaction that publishes its change. */
  async put(
    archive: { moduleId: string; version: string; body: Buffer; folderDigest: string; hostId: string },
    tx?: Queryable,
  ): Promise<StoredModuleArchive> {
    const sha256 = createHash("sha256").update(archive.body).digest("hex");
    const { rows } = await (tx ?? this.db).query(
      `INSERT INTO cluster_module_archives (module_id, version, archive, archive_sha256, folder_digest, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (module_id) DO UPDATE SET version = excluded.version, archive = excluded.archive,
         archive_sha256 = excluded.archive_sha256, folder_digest = excluded.folder_digest, updated_at = now(),
         updated_by = excluded.updated_by
       RETURNING ${COLUMNS}`,
      [archive.moduleId, archive.version, archive.body, sha256, archive.folderDigest, archive.hostId],
    );
    return rows[0];
  }

  /** What is stored for a module, without the bytes (cheap: hosts ask on every `module` change). */
  async describe(moduleId: string): Promise<StoredModuleArchive | null> {
    const { rows } = await this.db.query(`SELECT ${COLUMNS} FROM cluster_module_archives WHERE module_id = $1`, [
      moduleId,
    ]);
    return rows[0] ?? null;
  }

  /** Every stored module, without the bytes (a starting host syncs its modules folder from this). */
  async list(): Promise<StoredModuleArchive[]> {
    const { rows } = await this.db.query(`SELECT ${COLUMNS} FROM cluster_module_archives ORDER BY module_id`);
    return rows;
  }

  /** The archive's bytes, checked against their stored SHA-256 (a corrupted row is refused, not unpacked). */
  async archive(moduleId: string): Promise<{ meta: StoredModuleArchive; body: Buffer } | null> {
    const { rows } = await this.db.query(
      `SELECT ${COLUMNS}, archive FROM cluster_module_archives WHERE module_id = $1`,
      [moduleId],
    );
    const row = rows[0] as (StoredModuleArchive & { archive: Buffer }) | undefined;
    if (!row) return null;
    const { archive: body, ...meta } = row;
    const sha256 = createHash("sha256").update(body).digest("hex");
    if (sha256 !== meta.archiveSha256) {
      throw new Error(`the stored archive of module "${moduleId}" does not match its SHA-256; install it again`);
    }
    return { meta, body };
  }

  /** Removes a module's archive (the module was deleted); pass the transaction that publishes its change. */
  async delete(moduleId: string, tx?: Queryable): Promise<boolean> {
    const { rowCount } = await (tx ?? this.db).query("DELETE FROM cluster_module_archives WHERE module_id = $1", [
      moduleId,
    ]);
    return rowCount === 1;
  }
}
