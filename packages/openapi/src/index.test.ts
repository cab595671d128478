import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as entry from "./index.js";

describe("module entry", () => {
  it("exports exactly manifest and instantiate", () => {
    expect(Object.keys(entry).sort()).toEqual(["instantiate", "manifest"]);
  });

  it("manifest describes the built-in adapter with the package version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(entry.manifest).toEqual({
      id: "openapi",
      name: "OpenAPI",
      description: expect.any(String),
      type: "adapter",
      version: pkg.version,
      configSchema: expect.objectContaining({ type: "object" }),
    });
    expect(entry.manifest).not.toHaveProperty("main");
  });

  it("instantiate returns independent adapters with the AdapterModule methods", async () => {
    const a = entry.instantiate();
    const b = entry.instantiate();
    expect(a).not.toBe(b);
    for (const method of [
      "setup",
      "teardown",
      "generateDefinition",
      "hydrateService",
      "dehydrateService",
      "invoke",
    ] as const) {
      expect(typeof a[method]).toBe("function");
    }
    await a.setup({ config: {}, secrets: {}, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    await a.teardown();
    await a.dehydrateService("never-seen");
  });
});
