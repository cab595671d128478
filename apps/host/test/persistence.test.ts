import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { testDialect } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";
import { enableRecorder, hookCalls, hooksSince, installRecorded, recorderDefinition } from "./support/recorder.js";

const KEY = Buffer.alloc(32, 7).toString("base64");
let hosts: TestHost[] = [];
afterEach(async () => {
  for (const host of hosts) await host.kill();
  hosts = [];
});
const track = (host: TestHost) => {
  hosts.push(host);
  return host;
};

describe("restart on the same data dir", () => {
  it("brings back services, tools, flags, config and secrets, and hydrates enabled services again", async () => {
    const host = track(await startHost({ modules: ["recorder"], env: { CYRNEL_SECRETS_KEY: KEY } }));
    const hookLog = await enableRecorder(host);
    await installRecorded(host, "durable", [{ id: "on" }, { id: "off" }, { id: "length", behavior: "secretLength" }], {
      extra: { secretsSchema: { type: "object", properties: { token: { type: "string" } } } },
    });
    await installRecorded(host, "resting", [{ id: "t" }]);
    await host.api("PATCH", "/services/durable/config", { region: "eu" });
    await host.api("PATCH", "/services/durable/secrets", { token: "persisted-token" });
    await host.api("POST", "/services/durable/enabled", { enabled: true });
    await host.api("POST", "/tools/durable/off/enabled", { enabled: false });
    const before = {
      services: (await host.api("GET", "/services")).body,
      tools: (await host.api("GET", "/tools")).body,
      modules: (await host.api("GET", "/modules")).body,
    };

    expect(await host.stop()).toBe(0);
    const mark = hookCalls(hookLog).length;
    const again = track(await restart(host));

    expect((await again.api("GET", "/services")).body).toEqual(before.services);
    expect((await again.api("GET", "/tools")).body).toEqual(before.tools);
    expect((await again.api("GET", "/modules")).body).toEqual(before.modules);
    expect((await again.api("GET", "/services/durable/config")).body).toEqual({ config: { region: "eu" } });
    expect((await again.api("GET", "/services/durable/secrets")).body).toEqual({ set: ["token"] });
    expect(hooksSince(hookLog, mark)).toEqual(["setup", "hydrateService"]);
    expect(hookCalls(hookLog).at(-1)).toMatchObject({ service: "durable", secretNames: ["token"] });
    const length = await again.api("POST", "/tools/durable/length/invoke", { parameters: {} });
    expect(length.body.result).toEqual({ length: "persisted-token".length });
    expect((await again.api("POST", "/tools/durable/off/invoke", { parameters: {} })).body.code).toBe("tool_disabled");
  });
});

describe("SIGKILL", () => {
  it("mid-install leaves either the whole service or nothing, and the database intact", async () => {
    const host = track(await startHost({ modules: ["recorder"] }));
    await enableRecorder(host);
    const tools = Array.from({ length: 300 }, (_, i) => ({ id: `tool${i}` }));
    const installs = Array.from({ length: 8 }, (_, i) =>
      host
        .api("POST", "/services", {
          id: `crash${i}`,
          adapter: "recorder",
          definition: recorderDefinition(tools, { delayMs: i * 40 }),
        })
        .catch(() => null),
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    await host.kill();
    await Promise.all(installs);

    // PostgreSQL's own recovery is not ours to test; on SQLite the file must have survived the kill intact.
    if (testDialect() === "sqlite") {
      const db = new Database(join(host.dataDir, "data.db"));
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(db.pragma("foreign_key_check")).toEqual([]);
      db.close();
    }

    const again = track(await restart(host));
    const services = (await again.api("GET", "/services")).body.items;
    expect(services.length).toBeLessThan(8);
    for (const service of services) expect(service.toolCount).toBe(300);
    const orphans = (await again.api("GET", "/tools?limit=1000")).body.items.filter(
      (tool: any) => !services.some((service: any) => service.id === tool.serviceId),
    );
    expect(orphans).toEqual([]);
  });
});
