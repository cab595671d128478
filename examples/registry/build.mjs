#!/usr/bin/env node
// Regenerates public/ (the whole static registry) from sources/ and, for
// json-http 2.0.0, from ../json-http-adapter: every artifact, every sha256,
// every descriptor and index page. The output is byte-for-byte the same on
// every run, so the committed public/ can be checked against it (see
// test/registry.test.ts):
//
// - JSON is written by JSON.stringify with a fixed key order, 2-space indent
//   and a final newline; definition artifacts are copied verbatim.
// - Module archives list their files in sorted order, with a fixed mtime,
//   mode 0644 and no owner, user, device or time fields (`portable`), and a
//   gzip header without a timestamp or OS byte; deflate runs in-process with
//   Node's bundled zlib.
//
//   node build.mjs [outDir]          (default: public/ next to this file)
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as tar from "tar";

const here = import.meta.dirname;

/** npm pack's fixed timestamp; any constant works, this one is familiar. */
const ARCHIVE_MTIME = new Date("1985-10-26T08:15:00.000Z");

/**
 * What this registry publishes. Source paths are relative to this folder:
 * a file for a definition version, a module folder (module.json + src/) for
 * a module version. `pageSize` splits an index into pages linked by `next`.
 */
export const CATALOGUE = {
  id: "cyrnel-examples",
  name: "cyrnel examples",
  definitions: {
    pageSize: 2,
    items: [
      {
        id: "petstore",
        name: "Petstore",
        description: "A small pet store API (OpenAPI 3.0); 1.1.0 adds updatePet and a tag filter",
        kind: "openapi@3",
        latestVersion: "1.1.0",
        versions: {
          "1.0.0": "sources/definitions/petstore/1.0.0.json",
          "1.1.0": "sources/definitions/petstore/1.1.0.json",
        },
      },
      {
        id: "weather",
        name: "Demo weather",
        description: "The demo-weather API as a json-http descriptor (method and path per endpoint)",
        kind: "json-http",
        latestVersion: "1.0.0",
        versions: { "1.0.0": "sources/definitions/weather/1.0.0.json" },
      },
      {
        id: "weatherLegacy",
        name: "Demo weather (json-http 1.x routes)",
        description: 'The demo-weather API in the json-http 1.x "route" shorthand, which json-http 2.0.0 rejects',
        kind: "json-http@1",
        latestVersion: "1.0.0",
        versions: { "1.0.0": "sources/definitions/weatherLegacy/1.0.0.json" },
      },
    ],
  },
  modules: {
    pageSize: 100,
    items: [
      {
        id: "json-http",
        name: "JSON over HTTP",
        description: "Adapter for plain JSON HTTP APIs described by a small JSON descriptor",
        kind: "adapter",
        latestVersion: "2.0.0",
        versions: {
          "1.0.0": "sources/modules/json-http/1.0.0",
          "2.0.0": "../json-http-adapter",
        },
      },
    ],
  },
};

/** Builds the registry into `outDir` (replacing what is there) and returns the paths written, sorted. */
export function buildRegistry(outDir = join(here, "public")) {
  clean(outDir);
  const written = [];
  const write = (path, bytes) => {
    const file = join(outDir, path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, bytes);
    written.push(path);
  };
  const writeJson = (path, value) => write(path, `${JSON.stringify(value, null, 2)}\n`);

  writeJson(".well-known/cyrnel-registry.json", {
    id: CATALOGUE.id,
    name: CATALOGUE.name,
    // Relative URLs resolve against the URL of the document they appear in.
    definitions: "../definitions/index.json",
    modules: "../modules/index.json",
  });

  for (const kind of /** @type {const} */ (["definitions", "modules"])) {
    const { pageSize, items } = CATALOGUE[kind];
    for (const item of items) {
      const versions = {};
      for (const [version, source] of Object.entries(item.versions)) {
        const artifact =
          kind === "definitions"
            ? { name: `${version}${extname(source)}`, bytes: readFileSync(join(here, source)) }
            : { name: `${item.id}-${version}.tgz`, bytes: packModule(join(here, source), item.id, version) };
        write(`${kind}/${item.id}/${artifact.name}`, artifact.bytes);
        versions[version] = { url: artifact.name, sha256: sha256(artifact.bytes) };
      }
      if (!Object.hasOwn(versions, item.latestVersion)) {
        throw new Error(`${kind} "${item.id}": latestVersion ${item.latestVersion} is not one of its versions`);
      }
      writeJson(`${kind}/${item.id}/descriptor.json`, { id: item.id, latestVersion: item.latestVersion, versions });
    }
    const pages = chunk(items, pageSize);
    pages.forEach((page, index) => {
      writeJson(`${kind}/${pageName(index)}`, {
        items: page.map((item) => ({
          id: item.id,
          name: item.name,
          description: item.description,
          kind: item.kind,
          source: `${item.id}/descriptor.json`,
        })),
        ...(index + 1 < pages.length && { next: pageName(index + 1) }),
      });
    });
  }
  return written.sort();
}

/**
 * A module folder → `.tgz` bytes laid out like `npm pack` (`package/module.json`,
 * `package/src/*.js`). Checks module.json names the id and version it is published under.
 */
function packModule(folder, id, version) {
  const manifest = JSON.parse(readFileSync(join(folder, "module.json"), "utf8"));
  if (manifest.id !== id || manifest.version !== version) {
    throw new Error(`${folder}/module.json is ${manifest.id} ${manifest.version}, published as ${id} ${version}`);
  }
  const files = [
    "module.json",
    ...readdirSync(join(folder, "src"))
      .filter((name) => name.endsWith(".js"))
      .map((name) => `src/${name}`),
  ].sort();
  const pack = tar.c(
    {
      sync: true,
      cwd: folder,
      prefix: "package",
      portable: true,
      mtime: ARCHIVE_MTIME,
      gzip: { level: 9 },
      // Whatever the checkout's umask or exec bits, every file is 0644.
      onWriteEntry: (entry) => {
        if (entry.stat) entry.stat.mode = (entry.stat.mode & ~0o7777) | 0o644;
      },
    },
    files,
  );
  // A sync pack has written everything by now; the listener drains its buffer synchronously.
  const chunks = [];
  pack.on("data", (data) => chunks.push(data));
  return Buffer.concat(chunks);
}

/** Empties `outDir`, refusing a non-empty folder that is not a registry (a mistyped path must not be wiped). */
function clean(outDir) {
  if (existsSync(outDir) && readdirSync(outDir).length > 0 && !existsSync(join(outDir, ".well-known"))) {
    throw new Error(`${outDir} is not empty and holds no .well-known/ folder; refusing to replace it`);
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");
const pageName = (index) => (index === 0 ? "index.json" : `index-${index + 1}.json`);

function chunk(items, size) {
  const pages = [];
  for (let start = 0; start < items.length; start += size) pages.push(items.slice(start, start + size));
  return pages.length > 0 ? pages : [[]];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outDir = resolve(process.argv[2] ?? join(here, "public"));
  const files = buildRegistry(outDir);
  console.log(`wrote ${files.length} files to ${outDir}`);
}
