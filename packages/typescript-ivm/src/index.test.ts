import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { instantiate, manifest } from "./index.js";

describe("module entry", () => {
  it("exports a manifest matching the package", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(manifest).toMatchObject({ id: "typescript-ivm", type: "environment", version: pkg.version });
    expect(manifest.main).toBeUndefined();
    expect(manifest.configSchema).toMatchObject({ type: "object" });
  });

  it("instantiates an environment whose docs work without setup", async () => {
    const env = instantiate();
    expect(await env.generateDocs()).toContain("# cyrnel runtime: typescript-ivm");
    await expect(env.kill(1)).resolves.toBeUndefined();
    await expect(env.teardown()).resolves.toBeUndefined();
  });
});
