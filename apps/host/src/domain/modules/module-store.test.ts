import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client.js";
import type { ValidManifest } from "./manifest.js";
import { ModuleStore } from "./module-store.js";

const manifest = (id: string, extra: Partial<ValidManifest> = {}): ValidManifest => ({
  id,
  name: id,
  description: `module ${id}`,
  type: "adapter",
  version: "1.0.0",
  ...extra,
});

describe("ModuleStore", () => {
  let store: ModuleStore;
  beforeEach(() => {
    store = new ModuleStore(openDatabase(join(mkdtempSync(join(tmpdir(), "cyrnel-modules-")), "data.db")));
  });

  it("records a new module enabled only when it is built in, with empty config and no source", () => {
    store.upsert(manifest("shipped"), true);
    store.upsert(manifest("custom"), false);
    expect(store.get("shipped")).toMatchObject({ builtin: true, enabled: true, config: {}, source: null });
    expect(store.get("custom")).toMatchObject({ builtin: false, enabled: false, config: {}, source: null });
    expect(store.get("unknown")).toBeUndefined();
    expect(store.all().map((row) => row.id)).toEqual(["custom", "shipped"]);
  });

  it("updates what the manifest says on a later upsert, and keeps the operator's flag, config and source", () => {
    store.upsert(manifest("custom"), false);
    store.setEnabled("custom", true);
    store.setConfig("custom", { retries: 3 });
    store.setSource("custom", "https://registry.example/custom.json");
    store.upsert(manifest("custom", { version: "2.0.0", name: "Renamed", type: "environment" }), false);
    expect(store.get("custom")).toMatchObject({
      version: "2.0.0",
      name: "Renamed",
      type: "environment",
      enabled: true,
      config: { retries: 3 },
      source: "https://registry.example/custom.json",
    });
  });

  it("deletes one module's row", () => {
    store.upsert(manifest("kept"), false);
    store.upsert(manifest("gone"), false);
    store.delete("gone");
    expect(store.all().map((row) => row.id)).toEqual(["kept"]);
  });
});
