import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturesDir, tempDir } from "../support/host.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";
import { enableRecorder, hookCalls, hooksSince, installRecorded } from "../support/recorder.js";

/** Writes a custom module folder into a data dir. */
function writeModule(dataDir: string, id: string, manifest: Record<string, unknown> | string, main?: string) {
  const folder = join(dataDir, "modules", id);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "module.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  if (main !== undefined) writeFileSync(join(folder, "index.mjs"), main);
}

const manifest = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  description: `module ${id}`,
  type: "adapter",
  version: "1.0.0",
  main: "index.mjs",
  ...extra,
});

let host: InProcessHost;
let hookLog: string;

beforeAll(async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, "modules"), { recursive: true });
  writeModule(dataDir, "bad-json", "{ this is not json");
  writeModule(dataDir, "no-main", manifest("no-main", { main: "missing.mjs" }));
  writeModule(dataDir, "throws", manifest("throws"), "throw new Error('boom at import');");
  writeModule(
    dataDir,
    "future",
    manifest("future", { engines: { cyrnel: ">=99.0.0" } }),
    "export function instantiate() {}",
  );
  writeModule(dataDir, "wrong-id", manifest("other-id"), "export function instantiate() {}");
  writeModule(
    dataDir,
    "half",
    manifest("half"),
    "export function instantiate() { return { setup() {}, teardown() {} }; }",
  );
  writeModule(
    dataDir,
    "bad-setup",
    manifest("bad-setup"),
    `export function instantiate() {
      return { async setup() { throw new Error("cannot start: no licence"); }, async teardown() {},
        async generateDefinition() {}, async hydrateService() {}, async dehydrateService() {}, async invoke() {} };
    }`,
  );
  host = await startInProcess({ dataDir, modules: ["recorder", "echo-env"] });
  hookLog = await enableRecorder(host);
});

afterAll(async () => {
  await host?.stop();
});

describe("custom modules", () => {
  it("loads a good module disabled, and reports every broken one without stopping the host", async () => {
    const response = await host.api("GET", "/modules");
    expect(response.status).toBe(200);
    const byId = Object.fromEntries(response.body.items.map((m: any) => [m.id, m]));
    expect(byId.recorder).toMatchObject({
      type: "adapter",
      version: "1.0.0",
      builtin: false,
      enabled: true,
      active: true,
      error: null,
    });
    expect(byId["echo-env"]).toMatchObject({ type: "environment", enabled: false, active: false });
    const errors: Record<string, string> = {
      "bad-json": "not valid JSON",
      "no-main": "missing.mjs",
      throws: "boom at import",
      future: ">=99.0.0",
      "wrong-id": "does not match its folder",
      half: "without generateDefinition",
    };
    for (const [id, message] of Object.entries(errors)) {
      expect(byId[id], id).toBeDefined();
      expect(byId[id].error, id).toContain(message);
      expect(byId[id].active, id).toBe(false);
    }
    expect(byId["bad-json"].type).toBeNull();
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("refuses to enable a broken module, and reports a failing setup with 502", async () => {
    const broken = await host.api("POST", "/modules/throws/enabled", { enabled: true });
    expect(broken.status).toBe(409);
    expect(broken.body.error).toContain("boom at import");
    const setup = await host.api("POST", "/modules/bad-setup/enabled", { enabled: true });
    expect(setup.status).toBe(502);
    expect(setup.body.error).toContain("no licence");
    const record = await host.api("GET", "/modules/bad-setup");
    expect(record.body).toMatchObject({ enabled: false, active: false });
    expect(record.body.error).toContain("no licence");
  });

  it("filters by type and enabled, and 404s unknown modules", async () => {
    const environments = await host.api("GET", "/modules?type=environment");
    expect(environments.body.items.every((m: any) => m.type === "environment")).toBe(true);
    const enabled = await host.api("GET", "/modules?enabled=true");
    expect(enabled.body.items.map((m: any) => m.id)).toContain("recorder");
    expect(enabled.body.items.every((m: any) => m.enabled)).toBe(true);
    expect((await host.api("GET", "/modules/nope")).status).toBe(404);
    expect((await host.api("GET", "/modules?type=plugin")).status).toBe(400);
  });

  it("activating an adapter hydrates its enabled services; deactivating tears it down", async () => {
    await installRecorded(host, "kept", [{ id: "go" }], { enabled: true });
    let mark = hookCalls(hookLog).length;
    expect((await host.api("POST", "/modules/recorder/enabled", { enabled: false })).body.active).toBe(false);
    expect(hooksSince(hookLog, mark)).toEqual(["teardown"]);
    const blocked = await host.api("POST", "/tools/kept/go/invoke", { parameters: {} });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toContain("recorder");

    mark = hookCalls(hookLog).length;
    expect((await host.api("POST", "/modules/recorder/enabled", { enabled: true })).body.active).toBe(true);
    expect(hooksSince(hookLog, mark)).toEqual(["setup", "hydrateService"]);
    expect((await host.api("POST", "/tools/kept/go/invoke", { parameters: {} })).status).toBe(200);
  });

  it("keeps module config plain and module secrets write-only; an active module restarts with them", async () => {
    const config = await host.api("GET", "/modules/recorder/config");
    expect(config.body.config.hookLog).toBe(hookLog);
    const mark = hookCalls(hookLog).length;
    const secrets = await host.api("PATCH", "/modules/recorder/secrets", { licence: "lic-0000-secret" });
    expect(secrets.body).toEqual({ set: ["licence"] });
    expect(secrets.text).not.toContain("lic-0000-secret");
    expect(hooksSince(hookLog, mark)).toEqual(["teardown", "setup", "hydrateService"]);
    expect((await host.api("GET", "/modules/recorder/secrets")).body).toEqual({ set: ["licence"] });
    const invalid = await host.api("PATCH", "/modules/recorder/config", { hookLog: 42 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toContain("hookLog");
  });

  it("rescans the folder on reload: new modules appear, vanished ones are missing", async () => {
    cpSync(join(fixturesDir, "modules", "recorder"), join(host.dataDir, "modules", "late"), { recursive: true });
    writeFileSync(
      join(host.dataDir, "modules", "late", "module.json"),
      JSON.stringify(manifest("late", { name: "Late arrival" })),
    );
    rmSync(join(host.dataDir, "modules", "half"), { recursive: true });
    const response = await host.api("POST", "/modules/reload");
    expect(response.status).toBe(200);
    const byId = Object.fromEntries(response.body.items.map((m: any) => [m.id, m]));
    expect(byId.late).toMatchObject({ name: "Late arrival", enabled: false, missing: false, error: null });
    expect(byId.half).toMatchObject({ missing: true });
    expect((await host.api("POST", "/modules/late/enabled", { enabled: true })).body.active).toBe(true);
    expect((await host.api("POST", "/modules/half/enabled", { enabled: true })).status).toBe(409);
  });

  it("deletes a custom module with its services, and refuses to delete a built-in or unknown one", async () => {
    const install = await host.api("POST", "/services", {
      id: "onLate",
      adapter: "late",
      definition: JSON.stringify({ tools: [{ id: "x" }] }),
      enabled: true,
    });
    expect(install.status, install.text).toBe(201);
    expect((await host.api("DELETE", "/modules/late")).status).toBe(204);
    expect((await host.api("GET", "/services/onLate")).status).toBe(404);
    expect((await host.api("GET", "/modules/late")).status).toBe(404);
    expect((await host.api("DELETE", "/modules/nope")).status).toBe(404);
  });
});

describe("environments", () => {
  it("keeps exactly one environment active", async () => {
    writeModule(
      host.dataDir,
      "second-env",
      { ...manifest("second-env"), type: "environment" },
      `export function instantiate() {
        return { async setup() {}, async teardown() {}, async execute() { return "success"; }, async kill() {},
          async generateDocs() { return "# second\\n"; }, async generateToolDocs() { return "second docs\\n"; } };
      }`,
    );
    await host.api("POST", "/modules/reload");
    expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).body.active).toBe(true);
    expect((await host.api("POST", "/modules/second-env/enabled", { enabled: true })).body.active).toBe(true);
    const environments = (await host.api("GET", "/modules?type=environment")).body.items;
    expect(environments.filter((m: any) => m.enabled).map((m: any) => m.id)).toEqual(["second-env"]);
    await expect.poll(async () => (await host.api("GET", "/modules/echo-env")).body.active).toBe(false);
    await installRecorded(host, "documented", [{ id: "tool" }]);
    expect((await host.api("GET", "/tools/documented/tool/docs")).text).toBe("second docs\n");
  });
});
