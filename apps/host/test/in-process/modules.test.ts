import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moduleFingerprint } from "../../src/domain/modules/custom-modules.js";
import { ModuleQuarantine } from "../../src/domain/modules/module-quarantine.js";
import { queryDatabase, testDialect } from "../support/database.js";
import { fixturesDir, tempDir } from "../support/host.js";
import { type InProcessHost, rebuild, startInProcess } from "../support/in-process.js";
import { enableRecorder, hookCalls, hooksSince, installRecorded } from "../support/recorder.js";

/**
 * The module subsystem built in-process: loading from disk (broken modules, reload, generations, quarantine), the
 * registry (activation, the one-environment rule, new code that fails to start) and deletion.
 */

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
    expect((await host.api("PATCH", "/modules/late/secrets", { licence: "lic-late" })).status).toBe(200);
    expect((await host.api("DELETE", "/modules/late")).status).toBe(204);
    expect((await host.api("GET", "/services/onLate")).status).toBe(404);
    expect((await host.api("GET", "/modules/late")).status).toBe(404);
    expect(existsSync(join(host.dataDir, "modules", "late"))).toBe(false);
    const rows = async (sql: string) => Number((await host.host.store.query<{ n: number }>(sql))[0]!.n);
    expect(await rows("select count(*) as n from modules where id = 'late'")).toBe(0);
    expect(await rows("select count(*) as n from secrets where owner_type = 'module' and owner_id = 'late'")).toBe(0);
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

describe("new code of an adapter", () => {
  /** An adapter whose definition and tool come from a second file, `version.mjs`: what an update changes. */
  const writeVersion = (version: { name: string; tool: string; broken?: boolean }) =>
    writeFileSync(
      join(host.dataDir, "modules", "versioned", "version.mjs"),
      `export const VERSION = ${JSON.stringify(version)};\n`,
    );

  beforeAll(async () => {
    writeModule(
      host.dataDir,
      "versioned",
      manifest("versioned"),
      `import { VERSION } from "./version.mjs";
      const schema = { type: "object", properties: {} };
      export function instantiate() {
        return {
          async setup() { if (VERSION.broken) throw new Error("cannot start " + VERSION.name); },
          async teardown() {},
          async generateDefinition() {
            return { name: VERSION.name, description: "", configSchema: schema, secretsSchema: schema, adapterDomain: {},
              tools: [{ id: VERSION.tool, name: VERSION.tool, description: "", inputSchema: schema, outputSchema: schema,
                adapterDomain: {} }] };
          },
          async hydrateService() {}, async dehydrateService() {}, async invoke() { return { tool: VERSION.tool }; },
        };
      }`,
    );
    writeVersion({ name: "one", tool: "first" });
    expect((await host.api("POST", "/modules/reload")).status).toBe(200);
    expect((await host.api("POST", "/modules/versioned/enabled", { enabled: true })).status).toBe(200);
    const installed = await host.api("POST", "/services", { id: "vs", adapter: "versioned", definition: "{}" });
    expect(installed.status, installed.text).toBe(201);
  });

  const service = async () => {
    const detail = (await host.api("GET", "/services/vs")).body;
    const tools = (await host.api("GET", "/tools?serviceId=vs")).body.items.map((tool: any) => tool.id);
    return { name: detail.name, stale: detail.stale, tools };
  };

  it("leaves the adapter's services as they are while it fails to start, and regenerates them once it starts", async () => {
    expect(await service()).toEqual({ name: "one", stale: false, tools: ["first"] });

    writeVersion({ name: "two-broken", tool: "second", broken: true });
    expect((await host.api("POST", "/modules/reload")).status).toBe(200);
    const failed = (await host.api("GET", "/modules/versioned")).body;

    expect(failed).toMatchObject({ enabled: true, active: false });
    expect(failed.error).toContain("cannot start two-broken");
    expect(await service()).toEqual({ name: "one", stale: false, tools: ["first"] });

    // Only version.mjs changed: the new code sees its new version (module-generation-hooks.mjs), not a cached one.
    writeVersion({ name: "three-started", tool: "third" });
    expect((await host.api("POST", "/modules/reload")).status).toBe(200);
    expect((await host.api("GET", "/modules/versioned")).body).toMatchObject({ active: true, error: null });
    expect(await service()).toEqual({ name: "three-started", stale: false, tools: ["third"] });
  });

  it("regenerates the services of a disabled adapter at once (generateDefinition is pure)", async () => {
    await host.api("POST", "/modules/versioned/enabled", { enabled: false });
    writeVersion({ name: "four-disabled", tool: "fourth" });
    expect((await host.api("POST", "/modules/reload")).status).toBe(200);
    expect((await host.api("GET", "/modules/versioned")).body).toMatchObject({ enabled: false, active: false });
    expect(await service()).toEqual({ name: "four-disabled", stale: false, tools: ["fourth"] });
  });
});

describe("a folder that comes back", () => {
  it("is loaded again on reload after it was missing", async () => {
    const folder = join(host.dataDir, "modules", "again");
    cpSync(join(fixturesDir, "modules", "recorder"), folder, { recursive: true });
    writeFileSync(join(folder, "module.json"), JSON.stringify(manifest("again")));
    await host.api("POST", "/modules/reload");
    const aside = join(host.dataDir, "again-aside");
    cpSync(folder, aside, { recursive: true });
    rmSync(folder, { recursive: true });
    await host.api("POST", "/modules/reload");
    if (testDialect() === "postgres") {
      // Shared through the database by the first reload, the module is the database's now: a folder removed by
      // hand comes back from it (the other hosts still run it; DELETE /modules/{id} deletes it everywhere).
      expect(existsSync(join(folder, "module.json"))).toBe(true);
    } else {
      expect((await host.api("GET", "/modules/again")).body).toMatchObject({ missing: true, active: false });
      cpSync(aside, folder, { recursive: true });
      await host.api("POST", "/modules/reload");
    }
    expect((await host.api("GET", "/modules/again")).body).toMatchObject({ missing: false, error: null });
    expect((await host.api("POST", "/modules/again/enabled", { enabled: true })).body.active).toBe(true);
  });
});

describe("quarantine", () => {
  it("skips a module whose code was running when the host died, until its files change", async () => {
    const dataDir = tempDir();
    const modulesDir = join(dataDir, "modules");
    // Importing it leaves a trace next to the modules folder (not in its own folder: that would change its files).
    writeModule(
      dataDir,
      "crashy",
      manifest("crashy"),
      `import { writeFileSync } from "node:fs";
      writeFileSync(new URL("../../crashy-ran", import.meta.url), "yes");
      export function instantiate() {
        return { async setup() {}, async teardown() {}, async generateDefinition() {}, async hydrateService() {},
          async dehydrateService() {}, async invoke() {} };
      }`,
    );
    // What the host writes before it imports a module; a host that died during the import never removed it.
    new ModuleQuarantine(modulesDir).running("crashy", moduleFingerprint(join(modulesDir, "crashy")));
    const quarantined = await startInProcess({ dataDir });
    try {
      const record = (await quarantined.api("GET", "/modules/crashy")).body;
      expect(record).toMatchObject({ quarantined: true, active: false });
      expect(record.error).toContain("the host stopped while this module's code was loading or starting");
      expect(existsSync(join(dataDir, "crashy-ran"))).toBe(false);
      expect(
        quarantined.logs().filter((line) => line.msg === "custom module quarantined; its code was not loaded"),
      ).toHaveLength(1);
      expect((await quarantined.api("POST", "/modules/crashy/enabled", { enabled: true })).status).toBe(409);

      appendFileSync(join(modulesDir, "crashy", "index.mjs"), "\n// fixed\n");
      const reloaded = (await quarantined.api("POST", "/modules/reload")).body.items;
      expect(reloaded.find((m: any) => m.id === "crashy")).toMatchObject({ quarantined: false, error: null });
      expect(readFileSync(join(dataDir, "crashy-ran"), "utf8")).toBe("yes");
      expect(existsSync(join(modulesDir, ".quarantine", "crashy.json"))).toBe(false);
    } finally {
      await quarantined.stop();
    }
  });
});

describe("the one-environment rule at start", () => {
  it("activates the first enabled environment and disables any other", async () => {
    const dataDir = tempDir();
    const second = join(dataDir, "modules", "echo-env-b");
    cpSync(join(fixturesDir, "modules", "echo-env"), second, { recursive: true });
    const file = join(second, "module.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), id: "echo-env-b" }));
    let started = await startInProcess({ dataDir, modules: ["echo-env"] });
    expect((await started.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
    await started.stop();
    // Two enabled environments can only come from outside the API (an older version, a hand-edited database).
    await queryDatabase(dataDir, "update modules set enabled = ? where id = 'echo-env-b'", [
      testDialect() === "postgres" ? true : 1,
    ]);
    started = await rebuild(started);
    try {
      const environments = (await started.api("GET", "/modules?type=environment")).body.items;
      expect(environments.map((m: any) => [m.id, m.enabled, m.active])).toEqual([
        ["echo-env", true, true],
        ["echo-env-b", false, false],
      ]);
      expect(
        started
          .logs()
          .filter((line) => line.msg === "only one environment can be active; disabling another enabled one"),
      ).toEqual([expect.objectContaining({ module: "echo-env-b" })]);
    } finally {
      await started.stop();
    }
  });
});
