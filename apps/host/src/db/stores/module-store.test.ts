import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { ValidManifest } from "../../domain/modules/manifest.js";
import type { ModuleStore } from "../../domain/modules/module-store.js";
import { openSqliteStore } from "../store-sqlite.js";

const manifest = (id: string, extra: Partial<ValidManifest> = {}): ValidManifest => ({
  id,
  name: id,
  description: `module ${id}`,
  type: "adapter",
  version: "1.0.0",
  ...extra,
});

describe("ModuleStore (SQLite)", () => {
  let store: ModuleStore;
  beforeEach(() => {
    store = openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-modules-")), () => undefined).modules;
  });

  it("records a new module enabled only when it is built in, with empty config and no source", async () => {
    await store.upsert(manifest("shipped"), true);
    await store.upsert(manifest("custom"), false);
    expect(await store.get("shipped")).toMatchObject({ builtin: true, enabled: true, config: {}, source: null });
    expect(await store.get("custom")).toMatchObject({ builtin: false, enabled: false, config: {}, source: null });
    expect(await store.get("unknown")).toBeUndefined();
    expect((await store.all()).map((row) => row.id)).toEqual(["custom", "shipped"]);
  });

  it("updates what the manifest says on a later upsert, and keeps the operator's flag, config and source", async () => {
    await store.upsert(manifest("custom"), false);
    await store.setEnabled("custom", true);
    await store.setConfig("custom", { retries: 3 });
    await store.setSource("custom", "https://registry.example/custom.json");
    await store.upsert(manifest("custom", { version: "2.0.0", name: "Renamed", type: "environment" }), false);
    expect(await store.get("custom")).toMatchObject({
      version: "2.0.0",
      name: "Renamed",
      type: "environment",
      enabled: true,
      config: { retries: 3 },
      source: "https://registry.example/custom.json",
    });
  });

  it("deletes one module's row", async () => {
    await store.upsert(manifest("kept"), false);
    await store.upsert(manifest("gone"), false);
    await store.delete("gone");
    expect((await store.all()).map((row) => row.id)).toEqual(["kept"]);
  });
});
