import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tar from "tar";
import { afterAll, describe, expect, it } from "vitest";
import { buildRegistry, CATALOGUE } from "../build.mjs";

const publicDir = join(import.meta.dirname, "..", "public");
const temps: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), "cyrnel-registry-"));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `root`, as sorted `/`-separated relative paths. */
function listFiles(root: string, prefix = ""): string[] {
  return readdirSync(join(root, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      return entry.isDirectory() ? listFiles(root, path) : [path];
    })
    .sort();
}

/**
 * Reads public/ the way a host reads the served registry: every URL is
 * resolved against the URL of the document it appears in, here under a
 * made-up origin that maps back onto the folder.
 */
const ORIGIN = "http://registry.test/";
const fileOf = (url: string) => join(publicDir, ...new URL(url).pathname.split("/").filter(Boolean));
const readJson = (url: string): any => JSON.parse(readFileSync(fileOf(url), "utf8"));

function indexItems(start: string): { item: any; page: string }[] {
  const items: { item: any; page: string }[] = [];
  for (let url: string | undefined = start; url !== undefined; ) {
    const page = readJson(url);
    items.push(...page.items.map((item: any) => ({ item, page: url! })));
    url = page.next === undefined ? undefined : new URL(page.next, url).href;
  }
  return items;
}

describe("the committed public/ folder", () => {
  it("is exactly what build.mjs produces, build after build (run `pnpm generate` after changing sources/)", () => {
    for (const out of [temp(), temp()]) {
      const built = buildRegistry(out);
      expect(listFiles(publicDir)).toEqual(built);
      for (const path of built) {
        const same = readFileSync(join(publicDir, path)).equals(readFileSync(join(out, path)));
        expect(same, `public/${path} differs from a fresh build`).toBe(true);
      }
    }
  });
});

describe("the registry format", () => {
  const wellKnownUrl = new URL(".well-known/cyrnel-registry.json", ORIGIN).href;
  const wellKnown = readJson(wellKnownUrl);

  it("has a well-known document whose relative index URLs resolve against it", () => {
    expect(wellKnown).toEqual({
      id: CATALOGUE.id,
      name: CATALOGUE.name,
      definitions: "../definitions/index.json",
      modules: "../modules/index.json",
    });
  });

  it("splits the definitions index into pages linked by next", () => {
    const items = indexItems(new URL(wellKnown.definitions, wellKnownUrl).href);
    expect(items.map(({ item }) => item.id)).toEqual(["petstore", "weather", "weatherLegacy"]);
    expect(new Set(items.map(({ page }) => page)).size).toBe(2);
    expect(items[0]!.item).toEqual({
      id: "petstore",
      name: "Petstore",
      description: expect.any(String),
      kind: "openapi@3",
      source: "petstore/descriptor.json",
    });
  });

  it.each(["definitions", "modules"] as const)("lists %s whose descriptors' sha256 match their artifacts", (kind) => {
    const items = indexItems(new URL(wellKnown[kind], wellKnownUrl).href);
    expect(items.map(({ item }) => item.id)).toEqual(CATALOGUE[kind].items.map((item) => item.id));
    for (const { item, page } of items) {
      const descriptorUrl = new URL(item.source, page).href;
      const descriptor = readJson(descriptorUrl);
      expect(descriptor.id).toBe(item.id);
      expect(Object.hasOwn(descriptor.versions, descriptor.latestVersion)).toBe(true);
      for (const [version, entry] of Object.entries<any>(descriptor.versions)) {
        const artifact = readFileSync(fileOf(new URL(entry.url, descriptorUrl).href));
        const actual = createHash("sha256").update(artifact).digest("hex");
        expect(actual, `${item.id} ${version}`).toBe(entry.sha256);
      }
    }
  });

  it("publishes the petstore definition in two versions; 1.1.0 adds an operation", () => {
    const operations = (version: string) => {
      const document = readJson(new URL(`definitions/petstore/${version}.json`, ORIGIN).href);
      expect(document.openapi).toMatch(/^3\.0\./);
      expect(document.info.version).toBe(version);
      expect(document.servers[0].url).toMatch(/^https:\/\//);
      return Object.values<any>(document.paths).flatMap((item) =>
        Object.values<any>(item)
          .map((operation) => operation.operationId)
          .filter(Boolean),
      );
    };
    const before = operations("1.0.0");
    const after = operations("1.1.0");
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.filter((id) => !before.includes(id))).toEqual(["updatePet"]);
  });

  it.each([
    ["1.0.0", "sources/modules/json-http/1.0.0"],
    ["2.0.0", "../json-http-adapter"],
  ])("packs json-http %s like npm pack, from %s", (version, source) => {
    const archive = join(publicDir, "modules", "json-http", `json-http-${version}.tgz`);
    const entries: string[] = [];
    tar.t({
      file: archive,
      sync: true,
      onReadEntry: (entry) => entries.push(`${entry.path} ${entry.mode?.toString(8)}`),
    });
    const files = ["module.json", "src/descriptor.js", "src/index.js", "src/request.js"];
    expect(entries).toEqual(files.map((file) => `package/${file} 644`));
    const out = temp();
    tar.x({ file: archive, cwd: out, sync: true });
    for (const file of files) {
      const packed = readFileSync(join(out, "package", file));
      expect(packed.equals(readFileSync(join(import.meta.dirname, "..", source, file))), file).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(out, "package", "module.json"), "utf8"));
    expect(manifest).toMatchObject({ id: "json-http", type: "adapter", version, main: "src/index.js" });
    expect(manifest.engines.cyrnel).toEqual(expect.any(String));
  });
});
