import { spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { packModule, publishArchive } from "./support/archives.js";
import { queryDatabase, testDialect } from "./support/database.js";
import { fixturesDir, restart, startHost, type TestHost, tempDir } from "./support/host.js";

/**
 * Module code that hangs or tries to end the host (fixtures under
 * test/fixtures/modules): at start, on install and on update the host keeps
 * serving, answers a clear error, says why on the module's record and in the
 * log, and starts again without being stopped by the same module.
 */
const LOAD_TIMEOUT_MS = 4_000;
const env = { CYRNEL_MODULE_LOAD_TIMEOUT_MS: String(LOAD_TIMEOUT_MS) };
const BROKEN = ["hang-import", "hang-instantiate", "exit-import", "exit-setup"];

const hosts: TestHost[] = [];
const cleanups: (() => Promise<void>)[] = [];
const track = (host: TestHost) => {
  hosts.push(host);
  return host;
};
afterAll(async () => {
  for (const host of hosts) await host.kill();
  for (const cleanup of cleanups) await cleanup();
});

const modulesById = async (host: TestHost) =>
  Object.fromEntries((await host.api("GET", "/modules")).body.items.map((m: any) => [m.id, m]));

const logsWith = (host: TestHost, msg: string, module: string) =>
  host.logs().filter((entry) => entry.msg === msg && entry.module === module);

describe("module code that hangs or exits, found at start", () => {
  let host: TestHost;

  beforeAll(async () => {
    host = track(await startHost({ modules: ["recorder", ...BROKEN], env }));
  });

  it("starts without it and says why on each record and in the log", async () => {
    const byId = await modulesById(host);
    expect(byId["hang-import"]).toMatchObject({ active: false, quarantined: true });
    expect(byId["hang-import"].error).toContain(`importing index.mjs did not finish within ${LOAD_TIMEOUT_MS} ms`);
    expect(byId["hang-instantiate"]).toMatchObject({ active: false, quarantined: true });
    expect(byId["hang-instantiate"].error).toContain(`instantiate() did not finish within ${LOAD_TIMEOUT_MS} ms`);
    expect(byId["exit-import"]).toMatchObject({ active: false, quarantined: false });
    expect(byId["exit-import"].error).toContain("process.exit(3) was refused");
    expect(byId["exit-setup"]).toMatchObject({ enabled: false, error: null, quarantined: false });
    expect(byId.recorder).toMatchObject({ error: null, quarantined: false });
    for (const id of ["hang-import", "hang-instantiate", "exit-import"]) {
      expect(logsWith(host, "custom module failed to load", id), id).toHaveLength(1);
    }
    expect(host.logs().some((entry) => entry.msg === "module code tried to stop the host; refused")).toBe(true);
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("answers 502 when setup() calls process.exit, and keeps serving", async () => {
    const response = await host.api("POST", "/modules/exit-setup/enabled", { enabled: true });
    expect(response.status, response.text).toBe(502);
    expect(response.body.error).toContain("process.exit(4) was refused");
    expect((await host.api("GET", "/modules/exit-setup")).body).toMatchObject({ enabled: false, active: false });
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("starts again without loading the quarantined modules, even with the exiting one enabled", async () => {
    await host.stop();
    await queryDatabase(host.dataDir, "update modules set enabled = ? where id = 'exit-setup'", [
      testDialect() === "postgres" ? true : 1,
    ]);
    host = track(await restart(host, { env }));
    const byId = await modulesById(host);
    for (const id of ["hang-import", "hang-instantiate"]) {
      expect(byId[id], id).toMatchObject({ active: false, quarantined: true });
      expect(byId[id].error, id).toContain("did not finish within");
      expect(logsWith(host, "custom module quarantined; its code was not loaded", id), id).toHaveLength(1);
      expect(logsWith(host, "custom module failed to load", id), id).toEqual([]);
    }
    expect(byId["exit-setup"]).toMatchObject({ enabled: true, active: false });
    expect(byId["exit-setup"].error).toContain("process.exit(4) was refused");
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("loads a quarantined module again once its files change", async () => {
    const folder = join(host.dataDir, "modules", "hang-import");
    writeFileSync(join(folder, "index.mjs"), readFileSync(join(fixturesDir, "modules", "exit-setup", "index.mjs")));
    const reloaded = await host.api("POST", "/modules/reload");
    expect(reloaded.status).toBe(200);
    const record = reloaded.body.items.find((m: any) => m.id === "hang-import");
    expect(record).toMatchObject({ quarantined: false, error: null });
  });
});

describe("module code that throws outside any call", () => {
  it("is logged and its module disabled; the host keeps serving (a timer's process.exit, a throw, a rejection)", async () => {
    const host = track(await startHost({ modules: ["timer-faults"], env }));
    const enabled = await host.api("POST", "/modules/timer-faults/enabled", { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    await host.waitForLog((entry) => entry.msg === "custom module disabled: its code threw outside any call");
    // The other two faults come after the first disabled it: logged, and the host is still there.
    await host.waitForLog(
      (entry) =>
        entry.msg === "an unhandled rejection outside any request; the host keeps serving" &&
        entry.module === "timer-faults",
    );
    const faults = host.logs().filter((entry) => /outside any request/.test(String(entry.msg)));
    expect(faults.map((entry) => entry.error)).toEqual([
      "process.exit(9) was refused: module code cannot stop the cyrnel host",
      "timer-faults: thrown from a timer",
      "timer-faults: rejected with nobody to catch it",
    ]);
    expect(faults.every((entry) => entry.module === "timer-faults")).toBe(true);
    expect((await host.api("GET", "/modules/timer-faults")).body).toMatchObject({ enabled: false, active: false });
    expect((await host.api("GET", "/health")).status).toBe(200);
    expect(host.exitCode).toBeNull();
  });
});

describe("a crash while module code loads", () => {
  it("quarantines the module, so the next start skips it and reports it", async () => {
    const dataDir = tempDir();
    const first = track(await startHost({ dataDir, modules: ["recorder", "kill-host"], expectListening: false }));
    await first.waitForExit();
    expect(first.child.signalCode).toBe("SIGKILL");

    const second = track(await startHost({ dataDir, env }));
    const record = (await second.api("GET", "/modules/kill-host")).body;
    expect(record).toMatchObject({ active: false, quarantined: true });
    expect(record.error).toContain("the host stopped while this module's code was loading or starting");
    expect(logsWith(second, "custom module quarantined; its code was not loaded", "kill-host")).toHaveLength(1);
    expect((await second.api("GET", "/modules/recorder")).body.error).toBeNull();
  });
});

describe("installing and updating such modules", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = track(await startHost({ modules: ["recorder"], env }));
  });

  async function publish(fixture: string, edit?: (folder: string) => void) {
    const folder = join(tempDir("cyrnel-fixture-"), fixture);
    cpSync(join(fixturesDir, "modules", fixture), folder, { recursive: true });
    edit?.(folder);
    const manifest = JSON.parse(readFileSync(join(folder, "module.json"), "utf8"));
    const published = await publishArchive(await packModule(folder), manifest.id, manifest.version);
    cleanups.push(published.close);
    return published;
  }

  it.each([
    ["hang-import", `importing index.mjs did not finish within ${LOAD_TIMEOUT_MS} ms`],
    ["hang-instantiate", `instantiate() did not finish within ${LOAD_TIMEOUT_MS} ms`],
    ["exit-import", "process.exit(3) was refused"],
  ])("answers 400 for %s, leaves nothing behind and keeps the lock free", async (fixture, message) => {
    const response = await host.api("POST", "/modules/install", { source: (await publish(fixture)).descriptor });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain(`module "${fixture}" failed to load`);
    expect(response.body.error).toContain(message);
    expect(existsSync(join(host.dataDir, "modules", fixture))).toBe(false);
    const quarantine = join(host.dataDir, "modules", ".quarantine");
    expect(existsSync(quarantine) ? readdirSync(quarantine) : []).toEqual([]);
    expect((await host.api("POST", "/modules/reload")).status).toBe(200);
  });

  it("installs a module whose setup() exits, answers 502 when it is enabled, and keeps serving", async () => {
    const installed = await host.api("POST", "/modules/install", { source: (await publish("exit-setup")).descriptor });
    expect(installed.status, installed.text).toBe(201);
    const enabled = await host.api("POST", "/modules/exit-setup/enabled", { enabled: true });
    expect(enabled.status).toBe(502);
    expect(enabled.body.error).toContain("process.exit(4) was refused");
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("rolls back an update whose code never finishes loading", async () => {
    const update = await publish("hang-import", (folder) => {
      const file = join(folder, "module.json");
      const manifest = JSON.parse(readFileSync(file, "utf8"));
      writeFileSync(file, JSON.stringify({ ...manifest, id: "exit-setup", version: "2.0.0" }));
    });
    const response = await host.api("PATCH", "/modules/exit-setup", { url: update.url });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain("did not finish within");
    expect((await host.api("GET", "/modules/exit-setup")).body).toMatchObject({ version: "1.0.0", quarantined: false });
  });
});

describe("environment hooks that never settle", () => {
  it("answer 504 naming the hook instead of holding the request", async () => {
    const host = track(
      await startHost({ modules: ["hang-docs", "recorder"], env: { ...env, CYRNEL_INVOKE_TIMEOUT_MS: "2000" } }),
    );
    expect((await host.api("POST", "/modules/hang-docs/enabled", { enabled: true })).status).toBe(200);
    const hooks: [string, string][] = [
      ["/environment/docs", "generateDocs"],
      ["/environment/types", "generateTypes"],
    ];
    for (const [path, hook] of hooks) {
      const response = await host.api("GET", path);
      expect(response.status, path).toBe(504);
      expect(response.body.error, path).toContain(`${hook} of module "hang-docs" did not finish within 2000 ms`);
    }
    expect((await host.api("GET", "/health")).status).toBe(200);
  });
});

describe("a setup that finishes after its deadline", () => {
  it("is torn down when it finishes, so nothing it started outlives the host's shutdown", async () => {
    const host = track(await startHost({ modules: ["slow-setup"], env }));
    expect((await host.api("PATCH", "/modules/slow-setup/config", { delayMs: LOAD_TIMEOUT_MS + 1000 })).status).toBe(
      200,
    );
    const enabled = await host.api("POST", "/modules/slow-setup/enabled", { enabled: true });
    expect(enabled.status).toBe(502);
    expect(enabled.body.error).toContain(`did not finish within ${LOAD_TIMEOUT_MS} ms`);
    await host.waitForLog((entry) => entry.msg === "a setup that timed out finished late; tearing it down");
    expect(await host.stop()).toBe(0);
  });
});

describe("a start-up that can never finish", () => {
  let child: ReturnType<typeof spawn> | undefined;
  afterEach(() => child?.kill("SIGKILL"));

  it("exits non-zero with a log line saying why, never silently", async () => {
    // What `cyrnel start` does when the promise it awaits can never settle and nothing else is left to run.
    const guard = join(import.meta.dirname, "..", "dist", "process-guard.js");
    const script = `
      import { reportUnexpectedExit } from ${JSON.stringify(guard)};
      import { createLogger } from ${JSON.stringify(join(import.meta.dirname, "..", "dist", "log.js"))};
      reportUnexpectedExit(createLogger("info"));
      await new Promise(() => {});
    `;
    child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child!.once("exit", resolve));
    expect(code).not.toBe(0);
    const line = output
      .split("\n")
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text))
      .find((entry) => entry.msg === "the host stopped before it finished starting");
    expect(line, output).toMatchObject({ level: "error", exitCode: code });
    expect(line.reason).toContain("never settle");
  });
});
