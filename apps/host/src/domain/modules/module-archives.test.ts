import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import * as tar from "tar";
import { describe, expect, it } from "vitest";
import { gzipBomb, linkArchive, tarHeader } from "../../../test/support/archives.js";
import { DEFAULT_ARCHIVE_LIMITS, folderDigest, packModuleFolder, unpackModuleArchive } from "./module-archives.js";

const temp = () => mkdtempSync(join(tmpdir(), "cyrnel-archive-"));

/** Writes `files` under a fresh folder and packs `entries` of it (paths kept verbatim, as an attacker would). */
async function archive(
  files: Record<string, string>,
  entries = Object.keys(files),
  setup?: (dir: string) => void,
): Promise<Buffer> {
  const dir = temp();
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  setup?.(dir);
  const out = join(temp(), "a.tgz");
  await tar.c({ gzip: true, cwd: dir, file: out, preservePaths: true, portable: true }, entries);
  return readFileSync(out);
}

describe("unpackModuleArchive", () => {
  it("unpacks module.json at the root", async () => {
    const root = await unpackModuleArchive(await archive({ "module.json": "{}", "lib/index.js": "x" }), temp());
    expect(readFileSync(join(root, "lib", "index.js"), "utf8")).toBe("x");
    expect(readFileSync(join(root, "module.json"), "utf8")).toBe("{}");
  });

  it("unpacks npm pack's package/ layout", async () => {
    const root = await unpackModuleArchive(await archive({ "package/module.json": "{}" }), temp());
    expect(root.endsWith(join("files", "package"))).toBe(true);
  });

  it.each([
    [
      "an entry with ..",
      () => archive({ "module.json": "{}" }, ["module.json", "../outside.txt"], writeOutside),
      '".."',
    ],
    ["a symlink", async () => linkArchive("2", "/etc/passwd"), "SymbolicLink"],
    ["a hard link", async () => linkArchive("1", "module.json"), "Link"],
    ["random bytes", async () => Buffer.from("this is not a tarball at all, not even gzip"), "not a readable .tgz"],
    ["an empty buffer", async () => Buffer.alloc(0), "not a readable .tgz"],
    ["an empty tar", async () => gzipSync(Buffer.alloc(1024)), "not a readable .tgz"],
    ["an archive without module.json", () => archive({ "index.js": "x" }), "no module.json"],
  ])("refuses %s", async (_name, make, message) => {
    const work = temp();
    await expect(unpackModuleArchive(await make(), join(work, "x"))).rejects.toThrow(message);
  });

  it("refuses an absolute path", async () => {
    const dir = temp();
    writeFileSync(join(dir, "abs.txt"), "x");
    const out = join(temp(), "a.tgz");
    await tar.c({ gzip: true, cwd: dir, file: out, preservePaths: true }, [join(dir, "abs.txt")]);
    await expect(unpackModuleArchive(readFileSync(out), join(temp(), "x"))).rejects.toThrow("absolute");
  });

  it("enforces the entry count and unpacked size caps", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 2, maxBytes: 1000 };
    const many = await archive({ "module.json": "{}", "a.js": "1", "b.js": "2" });
    await expect(unpackModuleArchive(many, join(temp(), "x"), limits)).rejects.toThrow("more than 2 entries");
    const big = await archive({ "module.json": "x".repeat(600), "a.js": "y".repeat(600) });
    await expect(unpackModuleArchive(big, join(temp(), "x"), { ...limits, maxEntries: 10 })).rejects.toThrow(
      "unpacks to more than 1000 bytes",
    );
  });

  it("refuses a gzip bomb at its first header, without inflating it", async () => {
    // 256 MiB of zeros in one entry (4 times the per-file limit): about 1 MB compressed.
    const bomb = await gzipBomb(256 * 1024 ** 2);
    const before = process.memoryUsage().rss;
    const work = temp();
    await expect(unpackModuleArchive(bomb, join(work, "x"))).rejects.toThrow(
      `entry "package/zeros-0.bin" is ${256 * 1024 ** 2} bytes, over the limit of ${DEFAULT_ARCHIVE_LIMITS.maxEntryBytes} bytes per file`,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    expect(existsSync(join(work, "x", "files"))).toBe(false);
  });

  it("refuses many small entries that inflate too far for their compressed size", async () => {
    // 40 × 2 MiB of zeros: each entry and the total are within the caps, the ratio (~1000:1) is not.
    const bomb = await gzipBomb(2 * 1024 * 1024, 40, 9);
    await expect(unpackModuleArchive(bomb, join(temp(), "x"))).rejects.toThrow(
      `inflates more than ${DEFAULT_ARCHIVE_LIMITS.maxRatio} times its compressed size`,
    );
  });

  it("counts what follows the end of the archive too", async () => {
    const tail = gzipSync(
      Buffer.concat([tarHeader("module.json", 2), Buffer.from("{}"), Buffer.alloc(510 + 1024 + 4 * 1024 * 1024)]),
    );
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxBytes: 1024 * 1024, maxRatio: 1e9 };
    await expect(unpackModuleArchive(tail, join(temp(), "x"), limits)).rejects.toThrow(
      `inflates to more than ${1024 * 1024} bytes`,
    );
  });

  it("refuses two entries for one path", async () => {
    const twice = gzipSync(
      Buffer.concat([
        tarHeader("module.json", 2),
        Buffer.from("{}"),
        Buffer.alloc(510),
        tarHeader("module.json", 2),
        Buffer.from("[]"),
        Buffer.alloc(510 + 1024),
      ]),
    );
    await expect(unpackModuleArchive(twice, join(temp(), "x"))).rejects.toThrow('entry "module.json"');
  });
});

describe("folderDigest", () => {
  it("depends on paths and bytes only", () => {
    const a = temp();
    const b = temp();
    for (const dir of [a, b]) {
      mkdirSync(join(dir, "lib"));
      writeFileSync(join(dir, "lib", "x.js"), "same");
    }
    expect(folderDigest(a)).toBe(folderDigest(b));
    writeFileSync(join(b, "lib", "x.js"), "other");
    expect(folderDigest(a)).not.toBe(folderDigest(b));
  });
});

function writeOutside(dir: string) {
  writeFileSync(join(dir, "..", "outside.txt"), "escaped");
}

describe("packModuleFolder", () => {
  /** A module folder with a nested file and an empty folder (both count in its digest). */
  const moduleFolder = () => {
    const folder = join(temp(), "shared");
    mkdirSync(join(folder, "src"), { recursive: true });
    mkdirSync(join(folder, "empty"));
    writeFileSync(join(folder, "module.json"), '{"id":"shared"}');
    writeFileSync(join(folder, "src", "index.js"), "export const x = 1;");
    return folder;
  };

  it("packs a folder into an archive that unpacks to the same files", async () => {
    const folder = moduleFolder();
    const packed = await packModuleFolder(folder, temp(), 1024 * 1024);
    expect(packed.folderDigest).toBe(folderDigest(folder));
    const root = await unpackModuleArchive(packed.body, temp());
    expect(folderDigest(root)).toBe(packed.folderDigest);
    expect(readFileSync(join(root, "src", "index.js"), "utf8")).toBe("export const x = 1;");
  });

  it("refuses a link, naming it: it could point anywhere on this host", async () => {
    const folder = moduleFolder();
    symlinkSync("/etc/hostname", join(folder, "src", "linked"));
    await expect(packModuleFolder(folder, temp(), 1024 * 1024)).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringContaining('"src/linked"'),
    });
  });

  it("refuses a folder that packs to more than the cap", async () => {
    const folder = moduleFolder();
    // Random bytes do not compress: the archive is about their size.
    writeFileSync(join(folder, "noise.bin"), randomBytes(64 * 1024));
    await expect(packModuleFolder(folder, temp(), 4096)).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringContaining("packs to more than 4096 bytes"),
    });
  });
});
