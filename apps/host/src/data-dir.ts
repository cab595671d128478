/**
 * The data directory holds the database (with every service definition and
 * process output), the sealed secrets and, without CYRNEL_SECRETS_KEY, the
 * key that opens them. Only the account running the host may read it: the
 * folder and the folders in it are 0700, the files at its top (`data.db`,
 * its `-wal` and `-shm`, `secrets.key`) are 0600. Data directories made by
 * older versions are tightened at every start; new files are covered by the
 * process umask that `cyrnel start` sets (0077) and by creating the database
 * 0600 before SQLite opens it (SQLite gives its WAL and shm the database's mode).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";

export const OWNER_ONLY_FOLDER = 0o700;
export const OWNER_ONLY_FILE = 0o600;

/** Creates the data dir and `modules/` if needed and takes every permission for others away. */
export function secureDataDir(dataDir: string): void {
  makeFolders(join(dataDir, "modules"));
  chmodSync(dataDir, OWNER_ONLY_FOLDER);
  tighten(dataDir);
  tighten(join(dataDir, "modules"));
}

/**
 * `mkdir -p` that reports the real cause: Node's recursive mkdir answers `ENOENT` for some failures of a missing
 * parent (a read-only file system among them), which sends an operator looking for a typo. On failure, the missing
 * folders are created one by one, which throws the error of the first one that cannot be (`EROFS`, `EACCES`, …).
 */
function makeFolders(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: OWNER_ONLY_FOLDER });
  } catch (error) {
    const missing: string[] = [];
    for (let at = path; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
    for (const folder of missing) mkdirSync(folder, { mode: OWNER_ONLY_FOLDER });
    throw error;
  }
}

/** Creates an empty database file with owner-only permissions, so SQLite never creates it with the umask's. */
export function createOwnerOnlyFile(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, "a", OWNER_ONLY_FILE));
  chmodSync(file, OWNER_ONLY_FILE);
}

/** The entries directly in `folder`: folders 0700, files 0600. Deeper entries are behind a 0700 folder. */
function tighten(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) chmodSync(path, OWNER_ONLY_FOLDER);
    else if (entry.isFile()) chmodSync(path, OWNER_ONLY_FILE);
  }
}
