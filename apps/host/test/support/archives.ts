/**
 * Module archives for tests: a module folder packed as `npm pack` does, a
 * gzip bomb made at run time (zeros streamed through zlib, never committed),
 * and a static server that publishes them with a registry descriptor.
 */
import { createHash } from "node:crypto";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGzip, gzipSync } from "node:zlib";
import * as tar from "tar";
import { serveRegistry } from "../../../../examples/registry/serve.mjs";
import { tempDir } from "./host.js";

/** A tar header (ustar) for one regular file of `size` bytes, or a link (`1` hard, `2` symbolic) to `linkTo`. */
export function tarHeader(path: string, size: number, link?: { type: "1" | "2"; to: string }): Buffer {
  const header = Buffer.alloc(512);
  header.write(path, 0);
  header.write("0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write("        ", 148);
  header.write(link?.type ?? "0", 156);
  if (link) header.write(link.to, 157);
  header.write("ustar\0", 257);
  header.write("00", 263);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}

/**
 * A `.tgz` whose entries are all zeros: `entries` files of `entryBytes`
 * each, streamed through gzip. Level 1 (the default) is fast and gives about
 * 4.5 MB of archive per GiB of entry (the reported bomb's shape); level 9
 * about 1 MB.
 */
export async function gzipBomb(entryBytes: number, entries = 1, level = 1): Promise<Buffer> {
  const gzip = createGzip({ level });
  const chunks: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => gzip.on("end", resolve));
  const zeros = Buffer.alloc(1 << 20);
  const write = async (chunk: Buffer) => {
    if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once("drain", resolve));
  };
  for (let entry = 0; entry < entries; entry++) {
    await write(tarHeader(`package/zeros-${entry}.bin`, entryBytes));
    for (let left = entryBytes; left > 0; left -= zeros.length) {
      await write(left >= zeros.length ? zeros : zeros.subarray(0, left));
    }
    const padding = (512 - (entryBytes % 512)) % 512;
    if (padding > 0) await write(Buffer.alloc(padding));
  }
  gzip.end(Buffer.alloc(1024));
  await done;
  return Buffer.concat(chunks);
}

/**
 * A `.tgz` of a module.json and a link to it, written byte by byte: packing a
 * hard link with tar's own packer and gzip now and then threw an uncaught zlib
 * error from the packer after it was done (in the test process, not the host).
 */
export function linkArchive(type: "1" | "2", to: string): Buffer {
  const json = Buffer.from("{}");
  return gzipSync(
    Buffer.concat([
      tarHeader("module.json", json.length),
      json,
      Buffer.alloc(512 - json.length),
      tarHeader("link", 0, { type, to }),
      Buffer.alloc(1024),
    ]),
  );
}

/** Packs a module folder as `npm pack` lays it out (`package/...`). */
export async function packModule(folder: string): Promise<Buffer> {
  const dir = tempDir("cyrnel-pack-");
  cpSync(folder, join(dir, "package"), { recursive: true });
  const file = join(tempDir("cyrnel-packed-"), "module.tgz");
  await tar.c({ gzip: true, portable: true, cwd: dir, file }, ["package"]);
  return readFileSync(file);
}

export interface PublishedArchive {
  /** The archive's URL (for `PATCH /modules/:id`). */
  url: string;
  /** A registry descriptor listing it as `version` with its sha256 (for `POST /modules/install`). */
  descriptor: string;
  close(): Promise<void>;
}

/** Serves `archive` over HTTP on loopback, beside a descriptor for module `id`. */
export async function publishArchive(archive: Buffer, id: string, version = "1.0.0"): Promise<PublishedArchive> {
  const root = tempDir("cyrnel-published-");
  writeFileSync(join(root, "module.tgz"), archive);
  const sha256 = createHash("sha256").update(archive).digest("hex");
  writeFileSync(
    join(root, "descriptor.json"),
    JSON.stringify({ id, latestVersion: version, versions: { [version]: { url: "module.tgz", sha256 } } }),
  );
  const served = await serveRegistry({ root });
  return { url: `${served.url}/module.tgz`, descriptor: `${served.url}/descriptor.json`, close: served.close };
}

/** Peak resident memory of a process, from /proc (Linux): what a request made the host hold at worst. */
export function peakRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
