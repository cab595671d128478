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
      id: "mcp",
      name: "MCP",
      description: expect.any(String),
      type: "adapter",
      version: pkg.version,
      configSchema: expect.objectContaining({ type: "object" }),
    });
  });

  it("instantiate returns independent adapters that tolerate unknown services", async () => {
    const a = entry.instantiate();
    expect(a).not.toBe(entry.instantiate());
    await a.setup({ config: {}, secrets: {}, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    await a.dehydrateService("never-seen");
    await expect(a.invoke({ serviceId: "never-seen", toolId: "x", parameters: {} })).rejects.toThrow(/not enabled/);
    await a.teardown();
  });
});
