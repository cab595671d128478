import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DEPTH, MAX_OPERATIONS } from "../../src/lib/json-patch.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";
import { enableRecorder, hookCalls, installRecorded } from "../support/recorder.js";

/**
 * Config and secrets (one settings component) through both of their owners: a module (`picky`, restarted with
 * its new values) and a service (`picky` on the recorder adapter, re-hydrated). Each refuses `failHydrate` in
 * its config and a secret `token` of "reject" when it is put to use, so a change can be rolled back.
 */
const CONFIG_SCHEMA = {
  type: "object",
  properties: { mode: { type: "string", default: "safe" }, failHydrate: { type: "boolean" } },
  additionalProperties: false,
};
const SECRETS_SCHEMA = { type: "object", properties: { token: { type: "string" }, other: { type: "string" } } };

const PICKY_MODULE = `
const refuse = (config, secrets) => {
  if (config.failHydrate) throw new Error("setup refused: failHydrate is set");
  if (secrets.token === "reject") throw new Error("setup refused: the token was rejected");
};
export function instantiate() {
  return {
    async setup({ config, secrets }) { refuse(config, secrets); },
    async teardown() {},
    async generateDefinition() { throw new Error("picky defines no services"); },
    async hydrateService() {},
    async dehydrateService() {},
    async invoke() { return {}; },
  };
}`;

let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcess({ modules: ["recorder"] });
  const folder = join(host.dataDir, "modules", "picky");
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, "module.json"),
    JSON.stringify({
      id: "picky",
      name: "Picky",
      type: "adapter",
      version: "1.0.0",
      main: "index.mjs",
      configSchema: CONFIG_SCHEMA,
      secretsSchema: SECRETS_SCHEMA,
    }),
  );
  writeFileSync(join(folder, "index.mjs"), PICKY_MODULE);
  expect((await host.api("POST", "/modules/reload")).status).toBe(200);
  expect((await host.api("POST", "/modules/picky/enabled", { enabled: true })).status).toBe(200);
  await enableRecorder(host);
  await installRecorded(host, "picky", [{ id: "echo" }], {
    enabled: true,
    extra: { configSchema: CONFIG_SCHEMA, secretsSchema: SECRETS_SCHEMA },
  });
});
afterAll(() => host?.stop());

const owners = [
  {
    owner: "module",
    path: "/modules/picky",
    running: async () => (await host.api("GET", "/modules/picky")).body.active === true,
  },
  {
    owner: "service",
    path: "/services/picky",
    running: async () => (await host.api("POST", "/tools/picky/echo/invoke", { parameters: {} })).status === 200,
  },
];

describe.each(owners)("settings of a $owner", ({ path, running }) => {
  const config = async () => (await host.api("GET", `${path}/config`)).body.config;
  const secretNames = async () => (await host.api("GET", `${path}/secrets`)).body.set;

  it("shows config with its defaults applied, and patches what it shows (merge patch and RFC 6902)", async () => {
    expect(await config()).toEqual({ mode: "safe" });
    // `replace` needs the value to exist: it does, because patches apply to the config with defaults.
    const replaced = await host.api("PATCH", `${path}/config`, [{ op: "replace", path: "/mode", value: "fast" }]);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toEqual({ config: { mode: "fast" } });
    const tested = await host.api("PATCH", `${path}/config`, [{ op: "test", path: "/mode", value: "safe" }]);
    expect(tested.status).toBe(400);
    expect(tested.body.error).toContain("test failed");
    const removed = await host.api("PATCH", `${path}/config`, { mode: null });
    expect(removed.body).toEqual({ config: { mode: "safe" } });
    expect(await running()).toBe(true);
  });

  it("refuses what its schema or the patch rules refuse, and stores nothing", async () => {
    const cases: [unknown, string, string][] = [
      [{ mode: 42 }, "validation_failed", "mode"],
      [{ unknown: true }, "validation_failed", "unknown"],
      [[{ op: "remove", path: "/nope" }], "bad_request", "does not exist"],
      [
        Array.from({ length: MAX_OPERATIONS + 1 }, () => ({ op: "add", path: "/mode", value: "x" })),
        "bad_request",
        `at most ${MAX_OPERATIONS} operations`,
      ],
      [{ mode: nested(MAX_DEPTH + 1) }, "bad_request", `deeper than ${MAX_DEPTH} levels`],
    ];
    for (const [patch, code, mentions] of cases) {
      const response = await host.api("PATCH", `${path}/config`, patch);
      expect(response.status, response.text).toBe(400);
      expect(response.body.code).toBe(code);
      expect(response.body.error).toContain(mentions);
    }
    expect(await config()).toEqual({ mode: "safe" });
  });

  it("keeps secrets write-only and refuses RFC 6902 `test` on them", async () => {
    const set = await host.api("PATCH", `${path}/secrets`, { token: "tok-1234-secret" });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ set: ["token"] });
    expect(set.text).not.toContain("tok-1234-secret");
    const probe = await host.api("PATCH", `${path}/secrets`, [
      { op: "test", path: "/token", value: "tok-1234-secret" },
    ]);
    expect(probe.status).toBe(400);
    expect(probe.body.error).toContain(`"test" is not allowed here`);
    expect(probe.text).not.toContain("tok-1234-secret");
    expect(await secretNames()).toEqual(["token"]);
    expect((await host.api("PATCH", `${path}/secrets`, [{ op: "remove", path: "/token" }])).body).toEqual({ set: [] });
  });

  it("rolls back values it rejects when they are put to use, and keeps running with the previous ones", async () => {
    await host.api("PATCH", `${path}/secrets`, { token: "good-token" });
    const config = await host.api("PATCH", `${path}/config`, { failHydrate: true });
    expect(config.status, config.text).toBe(502);
    expect(config.body).toMatchObject({ code: "adapter_error" });
    expect(config.body.error).toContain("refused: failHydrate is set");
    expect(await running()).toBe(true);
    expect((await host.api("GET", `${path}/config`)).body.config).toEqual({ mode: "safe" });

    const secrets = await host.api("PATCH", `${path}/secrets`, { token: "reject", other: "kept?" });
    expect(secrets.status, secrets.text).toBe(502);
    expect(secrets.body.error).toContain("refused: the token was rejected");
    expect(await secretNames()).toEqual(["token"]);
    expect(await running()).toBe(true);
    await host.api("PATCH", `${path}/secrets`, { token: null });
  });

  it("serialises the patches of one owner, so a rollback takes back only its own change", async () => {
    const [rejected, accepted] = await Promise.all([
      host.api("PATCH", `${path}/secrets`, { token: "reject" }),
      host.api("PATCH", `${path}/secrets`, { other: "kept" }),
    ]);
    expect(rejected.status).toBe(502);
    expect(accepted.status, accepted.text).toBe(200);
    expect(await secretNames()).toEqual(["other"]);
    expect(await running()).toBe(true);
    await host.api("PATCH", `${path}/secrets`, { other: null });
  });

  it("404s an unknown owner on every route", async () => {
    const unknown = path.replace("picky", "nope");
    for (const [method, route, body] of [
      ["GET", "config", undefined],
      ["PATCH", "config", {}],
      ["GET", "secrets", undefined],
      ["PATCH", "secrets", {}],
    ] as const) {
      const response = await host.api(method, `${unknown}/${route}`, body);
      expect(response.status, `${method} ${route}`).toBe(404);
      expect(response.body.code).toBe("not_found");
    }
  });
});

describe("settings of a module that is not active", () => {
  it("are stored without starting it; the next enable uses them", async () => {
    await host.api("POST", "/modules/picky/enabled", { enabled: false });
    try {
      const stored = await host.api("PATCH", "/modules/picky/config", { failHydrate: true });
      expect(stored.status, stored.text).toBe(200);
      expect((await host.api("GET", "/modules/picky")).body).toMatchObject({ active: false, enabled: false });
      const enable = await host.api("POST", "/modules/picky/enabled", { enabled: true });
      expect(enable.status).toBe(502);
      expect(enable.body.error).toContain("failHydrate is set");
      await host.api("PATCH", "/modules/picky/config", { failHydrate: null });
    } finally {
      expect((await host.api("POST", "/modules/picky/enabled", { enabled: true })).status).toBe(200);
    }
  });
});

describe("settings of a service", () => {
  const needs = {
    type: "object",
    required: ["region", "account"],
    properties: { region: { type: "string" }, account: { type: "string" } },
  };

  it("may be filled in one field at a time while it is disabled; required fields are checked when it is enabled", async () => {
    await installRecorded(host, "needy", [{ id: "go" }], { extra: { configSchema: needs } });
    expect((await host.api("PATCH", "/services/needy/config", { region: "eu" })).status).toBe(200);
    const early = await host.api("POST", "/services/needy/enabled", { enabled: true });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe("validation_failed");
    expect(early.body.error).toContain("account");
    expect((await host.api("PATCH", "/services/needy/config", { account: "acme" })).status).toBe(200);
    expect((await host.api("POST", "/services/needy/enabled", { enabled: true })).status).toBe(200);
    // Enabled, it must stay valid after every patch.
    const unset = await host.api("PATCH", "/services/needy/config", { account: null });
    expect(unset.status).toBe(400);
    expect(unset.body.error).toContain(`invalid config for service "needy"`);
  });

  it("that is enabled but not running is running again after a patch that hydrates it", async () => {
    await installRecorded(host, "downed", [{ id: "go" }], { enabled: true });
    // Its adapter restarts while its stored config makes hydration fail: it stays enabled, but is not running.
    await host.host.store.query("update services set config = ? where id = ?", [
      JSON.stringify({ failHydrate: true }),
      "downed",
    ]);
    await host.api("POST", "/modules/recorder/enabled", { enabled: false });
    await host.api("POST", "/modules/recorder/enabled", { enabled: true });
    const down = (await host.api("GET", "/services/downed")).body;
    expect(down).toMatchObject({ enabled: true });
    expect(down.error).toContain("failHydrate is set");
    const blocked = await host.api("POST", "/tools/downed/go/invoke", { parameters: {} });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toContain("enabled but not running");

    expect((await host.api("PATCH", "/services/downed/config", { failHydrate: null })).status).toBe(200);
    expect((await host.api("GET", "/services/downed")).body).toMatchObject({ enabled: true, error: null });
    expect((await host.api("POST", "/tools/downed/go/invoke", { parameters: {} })).status).toBe(200);
  });

  it("that is enabled but not running stays enabled when a patch and the restored values both fail to hydrate", async () => {
    await installRecorded(host, "stubborn", [{ id: "go" }], { enabled: true });
    await host.host.store.query("update services set config = ? where id = ?", [
      JSON.stringify({ failHydrate: true }),
      "stubborn",
    ]);
    await host.api("POST", "/modules/recorder/enabled", { enabled: false });
    await host.api("POST", "/modules/recorder/enabled", { enabled: true });

    // The new values are refused, and so are the restored ones: the operator's choice (enabled) is kept.
    const refused = await host.api("PATCH", "/services/stubborn/config", { mode: "fast" });
    expect(refused.status).toBe(502);
    expect((await host.api("GET", "/services/stubborn/config")).body.config).toMatchObject({ failHydrate: true });
    const after = (await host.api("GET", "/services/stubborn")).body;
    expect(after).toMatchObject({ enabled: true });
    expect(after.error).toContain("failHydrate is set");
    expect((await host.api("PATCH", "/services/stubborn/config", { failHydrate: null })).status).toBe(200);
    expect((await host.api("POST", "/tools/stubborn/go/invoke", { parameters: {} })).status).toBe(200);
  });

  it("are stored while its adapter is stopped, without disabling it, and used when the adapter starts", async () => {
    await installRecorded(host, "paused", [{ id: "go" }], { enabled: true });
    await host.api("POST", "/modules/recorder/enabled", { enabled: false });
    try {
      const patched = await host.api("PATCH", "/services/paused/config", { mode: "fast" });
      expect(patched.status).toBe(200);
      expect(patched.body.config).toMatchObject({ mode: "fast" });
      const secrets = await host.api("PATCH", "/services/paused/secrets", { token: "t-1" });
      expect(secrets.status).toBe(200);
      expect((await host.api("GET", "/services/paused")).body).toMatchObject({ enabled: true });
    } finally {
      await host.api("POST", "/modules/recorder/enabled", { enabled: true });
    }
    expect((await host.api("GET", "/services/paused")).body).toMatchObject({ enabled: true, error: null });
    const invoked = await host.api("POST", "/tools/paused/go/invoke", { parameters: {} });
    expect(invoked.status).toBe(200);
  });
});

describe("secret headers and query parameters of a service", () => {
  // An adapter schema that allows no other property: `header:` and `query:` names are taken out before it is applied.
  const closed = { type: "object", properties: { token: { type: "string" } }, additionalProperties: false };
  const lastHydrate = () =>
    hookCalls(join(host.dataDir, "hooks.jsonl"))
      .filter((call) => call.hook === "hydrateService" && call.service === "headed")
      .at(-1);
  const names = async () => (await host.api("GET", "/services/headed/secrets")).body.set;

  beforeAll(async () => {
    await installRecorded(host, "headed", [{ id: "go" }], { enabled: true, extra: { secretsSchema: closed } });
  });

  it("are set by name through either patch format, listed by name, and handed over apart from the other secrets", async () => {
    const merge = await host.api("PATCH", "/services/headed/secrets", {
      token: "t-123456",
      "header:Authorization": "token ghp_sentinel1234",
      "query:api_key": "q-sentinel-5678",
    });
    expect(merge.status, merge.text).toBe(200);
    expect(merge.body).toEqual({ set: ["header:Authorization", "query:api_key", "token"] });
    const json = await host.api("PATCH", "/services/headed/secrets", [
      { op: "add", path: "/header:X-Api-Version", value: "2022-11-28" },
    ]);
    expect(json.status, json.text).toBe(200);
    expect(await names()).toEqual(["header:Authorization", "header:X-Api-Version", "query:api_key", "token"]);
    expect(lastHydrate()).toMatchObject({
      secretNames: ["token"],
      secretHeaderNames: ["Authorization", "X-Api-Version"],
      secretQueryNames: ["api_key"],
    });
    const config = await host.api("GET", "/services/headed/config");
    expect(config.text).not.toContain("sentinel");
    expect(config.text).not.toContain("header:");

    expect((await host.api("PATCH", "/services/headed/secrets", { "header:X-Api-Version": null })).status).toBe(200);
    expect(lastHydrate()).toMatchObject({ secretHeaderNames: ["Authorization"] });
  });

  it.each([
    [{ "header:Host": "evil.example" }, `"Host" frames the message or the connection`],
    [{ "header:Content-Length": "0" }, `"Content-Length" frames the message`],
    [{ "header:Transfer-Encoding": "chunked" }, `"Transfer-Encoding" frames the message`],
    [{ "header:Bad Name": "v" }, `"Bad Name" is not a valid header name`],
    [{ "header:": "v" }, "the header name is missing"],
    [{ "header:X-Key": 42 }, "the value of a secret header must be a string"],
    [{ "query:api_key": { nested: "x" } }, "the value of a secret query parameter must be a string"],
    [{ "header:X-Key": "a\r\nX-Injected: 1" }, "must not contain line breaks"],
    [{ "header:x-key": "a", "header:X-KEY": "b" }, "names the same header"],
  ])("refuse %j with a 400 naming the problem, and store nothing", async (patch, message) => {
    const before = await names();
    const hydrates = hookCalls(join(host.dataDir, "hooks.jsonl")).length;
    const response = await host.api("PATCH", "/services/headed/secrets", { ...patch, token: "never-stored" });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe("validation_failed");
    expect(response.body.error).toContain(`invalid secrets for service "headed"`);
    expect(response.body.error).toContain(message);
    expect(await names()).toEqual(before);
    expect(hookCalls(join(host.dataDir, "hooks.jsonl")).length).toBe(hydrates);
  });

  it("still validate the other secrets against the adapter's schema", async () => {
    const response = await host.api("PATCH", "/services/headed/secrets", { "header:X-Ok": "fine", other: "x" });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(`unknown field "other"`);
  });
});

/** `{ a: { a: … } }`, `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}
