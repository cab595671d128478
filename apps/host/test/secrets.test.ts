import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { queryDatabase } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";
import { enableRecorder, installRecorded } from "./support/recorder.js";

const keyA = Buffer.alloc(32, 1).toString("base64");
const keyB = Buffer.alloc(32, 2).toString("base64");
const keyC = Buffer.alloc(32, 3).toString("base64");
const secretsSchema = { type: "object", properties: { token: { type: "string" }, basic: { type: "object" } } };

let hosts: TestHost[] = [];
afterEach(async () => {
  for (const host of hosts) await host.kill();
  hosts = [];
});
const track = (host: TestHost) => {
  hosts.push(host);
  return host;
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("a secret's plaintext", () => {
  it("never appears in a response, a log line or a file under the data dir", async () => {
    const plaintext = "PLAINTEXT-sentinel-7f3a9c";
    const nested = "NESTED-sentinel-b81e44";
    const host = track(await startHost({ modules: ["recorder"] }));
    await enableRecorder(host);
    await installRecorded(
      host,
      "vault",
      [
        { id: "length", behavior: "secretLength" },
        { id: "leaky", behavior: "leak" },
      ],
      {
        extra: { secretsSchema },
      },
    );
    const responses: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await host.api(method, path, body);
      responses.push(response.text, JSON.stringify([...response.headers]));
      return response;
    };
    await call("PATCH", "/services/vault/secrets", { token: plaintext, basic: { password: nested } });
    await call("PATCH", "/modules/recorder/secrets", { apiKey: plaintext });
    await call("POST", "/services/vault/enabled", { enabled: true });
    await call("PATCH", "/services/vault/secrets", [{ op: "replace", path: "/token", value: plaintext }]);
    await call("PATCH", "/services/vault/secrets", { token: 42 });
    await call("PATCH", "/services/vault/secrets", [{ op: "test", path: "/token", value: plaintext }]);
    await call("PATCH", "/services/vault/secrets", [{ op: "copy", from: "/token", path: "/missing/deep" }]);
    for (const path of [
      "/services",
      "/services/vault",
      "/services/vault/config",
      "/services/vault/secrets",
      "/tools",
      "/tools/vault/length",
      "/modules",
      "/modules/recorder",
      "/modules/recorder/config",
      "/modules/recorder/secrets",
      "/openapi.json",
    ]) {
      await call("GET", path);
    }
    expect((await call("POST", "/tools/vault/length/invoke", { parameters: {} })).body.result.length).toBe(
      plaintext.length,
    );
    expect((await call("POST", "/tools/vault/leaky/invoke", { parameters: {} })).status).toBe(502);

    for (const text of responses) {
      expect(text).not.toContain(plaintext);
      expect(text).not.toContain(nested);
    }
    const scanFiles = () => {
      for (const file of filesUnder(host.dataDir)) {
        const bytes = readFileSync(file);
        expect(bytes.includes(plaintext), file).toBe(false);
        expect(bytes.includes(nested), file).toBe(false);
      }
    };
    scanFiles();
    await host.stop();
    scanFiles();
    const logs = host.output.join("\n");
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(plaintext);
    expect(logs).not.toContain(nested);
  });
});

describe("keys", () => {
  it("generates secrets.key (0600) once, warning once, and reuses it", async () => {
    const host = track(await startHost({ modules: ["recorder"] }));
    const file = join(host.dataDir, "secrets.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const warnings = () => host.logs().filter((entry) => String(entry.msg).includes("generated a secrets key")).length;
    expect(warnings()).toBe(1);
    await enableRecorder(host);
    await installRecorded(host, "keyed", [{ id: "length", behavior: "secretLength" }], { extra: { secretsSchema } });
    await host.api("PATCH", "/services/keyed/secrets", { token: "generated-key-secret" });
    const key = readFileSync(file, "utf8");

    const again = track(await restart(host));
    expect(again.logs().filter((entry) => String(entry.msg).includes("generated a secrets key"))).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe(key);
    await again.api("POST", "/services/keyed/enabled", { enabled: true });
    expect((await again.api("POST", "/tools/keyed/length/invoke", { parameters: {} })).body.result).toEqual({
      length: "generated-key-secret".length,
    });
  });

  it("rotates: old values stay readable through CYRNEL_SECRETS_PREVIOUS_KEYS and are re-sealed under the new key", async () => {
    const host = track(await startHost({ modules: ["recorder"], env: { CYRNEL_SECRETS_KEY: keyA } }));
    await enableRecorder(host);
    await installRecorded(host, "rotated", [{ id: "length", behavior: "secretLength" }], { extra: { secretsSchema } });
    await host.api("PATCH", "/services/rotated/secrets", { token: "rotate-me-please" });
    const keyIds = async () =>
      (await queryDatabase<{ id: string }>(host.dataDir, "select distinct key_id as id from secrets")).map(
        (row) => row.id,
      );
    const [underA] = await keyIds();

    const rotated = track(
      await restart(host, { env: { CYRNEL_SECRETS_KEY: keyB, CYRNEL_SECRETS_PREVIOUS_KEYS: keyA } }),
    );
    await rotated.waitForLog((entry) => entry.msg === "re-encrypted secrets under the current key");
    expect(await keyIds()).toHaveLength(1);
    expect((await keyIds())[0]).not.toBe(underA);
    await rotated.api("POST", "/services/rotated/enabled", { enabled: true });
    expect((await rotated.api("POST", "/tools/rotated/length/invoke", { parameters: {} })).body.result.length).toBe(16);

    const onlyNew = track(await restart(rotated, { env: { CYRNEL_SECRETS_KEY: keyB } }));
    expect((await onlyNew.api("POST", "/tools/rotated/length/invoke", { parameters: {} })).body.result.length).toBe(16);

    const wrong = track(await restart(onlyNew, { env: { CYRNEL_SECRETS_KEY: keyC } }));
    const refused = await wrong.api("POST", "/services/rotated/enabled", { enabled: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("CYRNEL_SECRETS_PREVIOUS_KEYS");
    expect((await wrong.api("GET", "/services/rotated/secrets")).body).toEqual({ set: ["token"] });
    // A patch starts from the stored values, which this key cannot open: refused, and nothing is replaced.
    const patch = await wrong.api("PATCH", "/services/rotated/secrets", { token: "overwrite-attempt" });
    expect(patch.status, patch.text).toBe(409);
    expect(patch.body.error).toContain("cannot be decrypted");
  });

  it("a start with the wrong key keeps services enabled, says why they are down, and recovers with the right key", async () => {
    const host = track(await startHost({ modules: ["recorder"], env: { CYRNEL_SECRETS_KEY: keyA } }));
    await enableRecorder(host);
    await installRecorded(host, "keyed", [{ id: "length", behavior: "secretLength" }], { extra: { secretsSchema } });
    await host.api("PATCH", "/services/keyed/secrets", { token: "survives-a-wrong-key" });
    expect((await host.api("POST", "/services/keyed/enabled", { enabled: true })).status).toBe(200);

    const wrong = track(await restart(host, { env: { CYRNEL_SECRETS_KEY: keyC } }));
    const record = (await wrong.api("GET", "/services/keyed")).body;
    expect(record.enabled).toBe(true);
    expect(record.error).toContain("cannot be decrypted");
    const call = await wrong.api("POST", "/tools/keyed/length/invoke", { parameters: {} });
    expect(call.status).toBe(409);
    expect(call.body.error).toContain("is enabled but not running");
    expect(call.body.error).toContain("CYRNEL_SECRETS_PREVIOUS_KEYS");
    expect(
      wrong.logs().some((entry) => entry.msg === "service kept enabled but not running" && entry.service === "keyed"),
    ).toBe(true);

    const right = track(await restart(wrong, { env: { CYRNEL_SECRETS_KEY: keyA } }));
    expect((await right.api("GET", "/services/keyed")).body).toMatchObject({ enabled: true, error: null });
    const length = await right.api("POST", "/tools/keyed/length/invoke", { parameters: {} });
    expect(length.status, length.text).toBe(200);
    expect(length.body.result).toEqual({ length: "survives-a-wrong-key".length });
  });
});
