/**
 * Module archives (`.tgz` with `module.json` at the root or under `package/`), unpacked in one streaming pass
 * into a work folder. Every entry's header is checked before any of its
 * bytes are inflated, so a hostile archive is refused at the first header
 * that breaks a rule: only plain files and folders, no absolute paths, no
 * `..`, no links of any kind, bounded entry count, entry size and unpacked
 * size. While inflating, the ratio of inflated to compressed bytes and the
 * total inflated stream (padding and anything after the end included) are
 * capped too, so a gzip bomb costs at most a few chunks of memory and CPU,
 * never the whole expansion. The module is the folder holding
 * `module.json`: the archive root, or `package/` as `npm pack` makes it.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import * as tar from "tar";
import { CyrnelError } from "../../errors.js";

export interface ArchiveLimits {
  /** Entries in the archive (files and folders). */
  maxEntries: number;
  /** Size of one file, as its header declares it (checked before its bytes are read). */
  maxEntryBytes: number;
  /** Sum of the unpacked file sizes. */
  maxBytes: number;
  /** Inflated bytes per compressed byte, checked once more than {@link RATIO_FLOOR_BYTES} were inflated. */
  maxRatio: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 10_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxBytes: 128 * 1024 * 1024,
  maxRatio: 200,
};

/** Small archives of very repetitive text (a padded JSON file) may exceed the ratio harmlessly. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** Compressed bytes handed to the inflater at a time: the most that is inflated past a refused header. */
const FEED_BYTES = 16 * 1024;

const ALLOWED_TYPES = new Set(["File", "OldFile", "ContentFile", "Directory"]);

/**
 * Unpacks `archive` under `workDir` (which must not exist yet or be empty)
 * and returns the folder that holds `module.json`. Throws `bad_request`
 * naming the first problem found; nothing unpacked is left behind then.
 */
export async function unpackModuleArchive(
  archive: Buffer,
  workDir: string,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<string> {
  const root = join(workDir, "files");
  mkdirSync(root, { recursive: true });
  try {
    await unpackInto(archive, root, limits);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  if (existsSync(join(root, "module.json"))) return root;
  if (existsSync(join(root, "package", "module.json"))) return join(root, "package");
  throw invalid("it has no module.json at its root or under package/");
}

/** The one streaming pass: gunzip → caps → tar parser → files; the first broken rule stops it. */
async function unpackInto(archive: Buffer, root: string, limits: ArchiveLimits): Promise<void> {
  let refusal: CyrnelError | null = null;
  let entries = 0;
  let declaredBytes = 0;
  let compressed = 0;
  let inflated = 0;
  const openFiles = new Set<number>();

  const parser = new tar.Parser({ strict: true, brotli: false, zstd: false });
  const refuse = (reason: string) => {
    refusal ??= invalid(reason);
    parser.abort(refusal);
  };
  parser.on("entry", (entry: tar.ReadEntry) => {
    if (refusal) return entry.resume();
    entries++;
    declaredBytes += entry.size ?? 0;
    const problem =
      entryProblem(entry.path, entry.type) ??
      (entries > limits.maxEntries ? `it has more than ${limits.maxEntries} entries` : null) ??
      ((entry.size ?? 0) > limits.maxEntryBytes
        ? `entry "${entry.path}" is ${entry.size} bytes, over the limit of ${limits.maxEntryBytes} bytes per file`
        : null) ??
      (declaredBytes > limits.maxBytes ? `it unpacks to more than ${limits.maxBytes} bytes` : null);
    if (problem !== null) return refuse(problem);
    try {
      writeEntry(entry, root, openFiles);
    } catch (error) {
      refuse(`entry "${entry.path}" could not be written: ${(error as Error).message}`);
    }
  });

  // Inflated bytes beyond the files themselves: 512-byte headers and padding per entry, the end blocks.
  const streamCap = () => limits.maxBytes + (entries + 1) * 1024 + 64 * 1024;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > RATIO_FLOOR_BYTES && inflated > compressed * limits.maxRatio) {
        refuse(`it inflates more than ${limits.maxRatio} times its compressed size (a compression bomb?)`);
      } else if (inflated > streamCap()) {
        refuse(`it inflates to more than ${limits.maxBytes} bytes`);
      }
      if (refusal) return done(refusal);
      parser.write(chunk);
      done();
    },
  });
  const source = Readable.from(
    (function* () {
      for (let offset = 0; offset < archive.length; offset += FEED_BYTES) {
        const chunk = archive.subarray(offset, offset + FEED_BYTES);
        compressed += chunk.length;
        yield chunk;
      }
    })(),
  );

  const parsed = new Promise<void>((resolve, reject) => {
    parser.on("end", resolve);
    parser.on("error", reject);
  });
  // A refusal aborts the parser, which rejects `parsed` while the pipeline is the one being awaited.
  parsed.catch(() => undefined);
  try {
    await pipeline(source, createGunzip(), sink);
    parser.end();
    await parsed;
  } catch (error) {
    if (refusal) throw refusal;
    throw invalid(`it is not a readable .tgz: ${(error as Error).message}`);
  } finally {
    for (const fd of openFiles) closeSync(fd);
  }
  if (refusal) throw refusal;
  if (entries === 0) throw invalid("it is empty or not a tar archive");
}

/** Writes one checked entry synchronously as its bytes arrive (a file) or creates it (a folder). */
function writeEntry(entry: tar.ReadEntry, root: string, openFiles: Set<number>): void {
  const target = join(root, entry.path);
  if (entry.type === "Directory") {
    mkdirSync(target, { recursive: true });
    entry.resume();
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  // `wx`: a second entry for the same path is refused rather than silently replacing the first.
  const fd = openSync(target, "wx", 0o644);
  openFiles.add(fd);
  entry.on("data", (chunk: Buffer) => writeSync(fd, chunk));
  entry.on("end", () => {
    openFiles.delete(fd);
    closeSync(fd);
  });
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

/**
 * Packs a module folder (files and folders only, `module.json` at the
 * root) into a `.tgz` that {@link unpackModuleArchive} gives back exactly:
 * the archive is unpacked once into `workDir` with `limits` and its
 * {@link folderDigest} compared with the folder's, so whatever is packed
 * here unpacks the same on every host. A link, a file of another kind, or
 * an archive over `maxBytes` or `limits` is a 400 naming it.
 */
export async function packModuleFolder(
  folder: string,
  workDir: string,
  maxBytes: number,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<{ body: Buffer; folderDigest: string }> {
  const refused = (reason: string) =>
    new CyrnelError("bad_request", `the folder of module "${basename(folder)}" cannot be shared: ${reason}`);
  const others: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.isFile()) others.push(relative(folder, path));
    }
  };
  walk(folder);
  if (others.length > 0) {
    // Links could point anywhere on this host; archives carry files and folders only (see unpackModuleArchive).
    const named = others.slice(0, 3).map((path) => `"${path}"`);
    if (others.length > 3) named.push("…");
    throw refused(`it holds ${named.join(", ")}: only plain files and folders can be shared`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const names = readdirSync(folder).sort();
  if (names.length === 0) throw refused("it is empty");
  const pack = tar.c({ gzip: true, portable: true, cwd: folder }, names);
  for await (const chunk of pack as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw refused(`it packs to more than ${maxBytes} bytes (CYRNEL_DEFINITION_LIMIT_BYTES)`);
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const digest = folderDigest(folder);
  const check = mkdtempSync(join(workDir, "check-"));
  try {
    const root = await unpackModuleArchive(body, check, limits);
    if (folderDigest(root) !== digest) throw refused("its files changed while it was packed; try again");
  } catch (error) {
    if (error instanceof CyrnelError && error.message.startsWith("the module archive was refused")) {
      throw refused(error.message.replace("the module archive was refused: ", ""));
    }
    throw error;
  } finally {
    rmSync(check, { recursive: true, force: true });
  }
  return { body, folderDigest: digest };
}
