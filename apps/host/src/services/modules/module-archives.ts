/**
 * Module archives (`.tgz`, SPEC section 8): unpacked into a work folder
 * after every entry has been checked, so a hostile archive cannot write
 * outside it — only plain files and folders, no absolute paths, no `..`, no
 * links of any kind, bounded entry count and unpacked size. The module is
 * the folder holding `module.json`: the archive root, or `package/` as
 * `npm pack` makes it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import * as tar from "tar";
import { CyrnelError } from "../../errors.js";

export interface ArchiveLimits {
  /** Entries in the archive (files and folders). */
  maxEntries: number;
  /** Sum of the unpacked file sizes. */
  maxBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxEntries: 10_000, maxBytes: 128 * 1024 * 1024 };

const ALLOWED_TYPES = new Set(["File", "OldFile", "ContentFile", "Directory"]);

/**
 * Unpacks `archive` under `workDir` (which must not exist yet or be empty)
 * and returns the folder that holds `module.json`. Throws `bad_request`
 * naming the first problem found.
 */
export async function unpackModuleArchive(
  archive: Buffer,
  workDir: string,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<string> {
  mkdirSync(workDir, { recursive: true });
  const file = join(workDir, "archive.tgz");
  writeFileSync(file, archive);
  await inspect(file, limits);
  const root = join(workDir, "files");
  mkdirSync(root);
  try {
    await tar.x({
      file,
      cwd: root,
      strict: true,
      preserveOwner: false,
      // Already checked above; the filter keeps extraction to files and folders even so.
      filter: (_path, entry) => "type" in entry && ALLOWED_TYPES.has(entry.type),
    });
  } catch (error) {
    throw invalid(`it could not be unpacked: ${(error as Error).message}`);
  }
  if (existsSync(join(root, "module.json"))) return root;
  if (existsSync(join(root, "package", "module.json"))) return join(root, "package");
  throw invalid("it has no module.json at its root or under package/");
}

/** Lists the archive without writing anything and refuses it on the first unsafe entry. */
async function inspect(file: string, limits: ArchiveLimits): Promise<void> {
  let problem: string | null = null;
  let entries = 0;
  let bytes = 0;
  try {
    await tar.t({
      file,
      strict: true,
      onReadEntry: (entry) => {
        if (problem !== null) return;
        entries++;
        bytes += entry.size ?? 0;
        problem = entryProblem(entry.path, entry.type);
        if (problem === null && entries > limits.maxEntries) problem = `it has more than ${limits.maxEntries} entries`;
        if (problem === null && bytes > limits.maxBytes) problem = `it unpacks to more than ${limits.maxBytes} bytes`;
      },
    });
  } catch (error) {
    throw invalid(`it is not a readable .tgz: ${(error as Error).message}`);
  }
  if (problem !== null) throw invalid(problem);
  if (entries === 0) throw invalid("it is empty or not a tar archive");
}

function entryProblem(path: string, type: string): string | null {
  if (!ALLOWED_TYPES.has(type)) return `entry "${path}" is a ${type}; only files and folders are allowed`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.includes("\\"))
    return `entry "${path}" has an absolute or non-portable path`;
  if (path.split("/").includes("..")) return `entry "${path}" points outside the archive ("..")`;
  return null;
}

const invalid = (reason: string) => new CyrnelError("bad_request", `the module archive was refused: ${reason}`);

/**
 * SHA-256 over every file's relative path and bytes, in a fixed order: two
 * folders with the same digest hold the same module (updates use it to
 * answer `updated: false`). Timestamps and modes do not count.
 */
export function folderDigest(folder: string): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        hash.update(`d\u0000${relative(folder, path)}\u0000`);
        walk(path);
      } else if (entry.isFile()) {
        const bytes = readFileSync(path);
        hash.update(`f\u0000${relative(folder, path)}\u0000${bytes.length}\u0000`);
        hash.update(bytes);
      }
    }
  };
  walk(folder);
  return hash.digest("hex");
}
