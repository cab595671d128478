import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import {
  deepDefinition,
  filesDocument,
  queryKeyDocument,
  refDoubling,
  secretForms,
  yamlAliasBomb,
} from "./support/hostile-inputs.js";
import { enableRecorder, installRecorded } from "./support/recorder.js";

/**
 * What a caller with a valid key can do through tool calls and installs,
 * against the real host: path parameters that climb out of their
 * operation, definitions that expand enormously, secrets echoed back
 * encoded, responses and parameters of tens of megabytes. The upstream is
 * a local server that records the raw request line.
 */

const MiB = 1024 * 1024;
let host: TestHost;
let upstream: Server;
let upstreamUrl: string;
/** Raw request targets the upstream received. */
const received: string[] = [];
let respond: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.end('{"ok":true}');
};

beforeAll(async () => {
  upstream = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    request.resume();
    request.on("end", () => respond(request, response));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  host = await startHost({ modules: ["recorder"] });
  await enableRecorder(host);
});

afterAll(async () => {
  await host?.stop();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

async function installOpenApi(id: string, document: unknown, secrets: Record<string, unknown> = {}) {
  const installed = await host.api("POST", "/services", {
    id,
    adapter: "openapi",
    definition: JSON.stringify(document),
  });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("PATCH", `/services/${id}/config`, { baseUrl: upstreamUrl })).status).toBe(200);
  if (Object.keys(secrets).length > 0) {
    expect((await host.api("PATCH", `/services/${id}/secrets`, secrets)).status).toBe(200);
  }
  const enabled = await host.api("POST", `/services/${id}/enabled`, { enabled: true });
  expect(enabled.status, enabled.text).toBe(200);
}

/** POST /processes with block:true; the process's output. */
async function run(code: string): Promise<Record<string, any>> {
  const response = await host.api("POST", "/processes", { code, block: true, timeoutMs: 60_000 });
  expect(response.status, response.text).toBe(201);
  expect(response.body.exitState, JSON.stringify(response.body)).toBe("success");
  return (await host.api("GET", `/processes/${response.body.id}/output`)).body;
}

describe("path parameters cannot leave their operation", () => {
  it("getFile(.., admin, secret) never reaches the disabled DELETE /admin/secret", async () => {
    await installOpenApi("files", filesDocument(), { token: "files-service-token" });
    const disabled = await host.api("POST", "/tools/files/deleteSecret/enabled", { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    received.length = 0;

    const output = await run(`
      const attempts = [];
      for (const a of ["..", ".", "%2e%2e", "%2E%2e"]) {
        try {
          attempts.push({ a, ok: await cyrnel.services.files.tools.getFile.invoke({ a, b: "admin", c: "secret" }) });
        } catch (error: any) {
          attempts.push({ a, status: error.status, code: error.code, message: error.message });
        }
      }
      cyrnel.output({ attempts });
    `);
    expect(output.attempts[0]).toMatchObject({ a: "..", status: 502, code: "adapter_error" });
    expect(output.attempts[0].message).toMatch(
      /Path parameter "a" .*makes the path segment "\.\.": dot segments are refused/,
    );
    expect(output.attempts[1]).toMatchObject({ a: ".", status: 502, code: "adapter_error" });
    // Encoded dots are data: the server receives them as the literal text, still under /files.
    expect(received).toEqual(["GET /files/%252e%252e/admin/secret", "GET /files/%252E%252e/admin/secret"]);
  });
});

describe("definitions that expand enormously", () => {
  it.each([
    ["a 1.7 KB YAML alias bomb", yamlAliasBomb, /expands to more than 5,000,000 values/],
    ["20,000 nested schemas", () => deepDefinition(), /nested more than 256 levels deep/],
  ])("%s: /health keeps answering and the install gets a 400 naming the limit", async (_label, text, message) => {
    const install = host.api("POST", "/services", { id: "bomb", adapter: "openapi", definition: text() });
    const health = await fetch(`${host.url}/health`);
    expect(health.status).toBe(200);
    const response = await install;
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe("bad_request");
    expect(response.body.error).toMatch(message);
    expect((await host.api("GET", "/services/bomb")).status).toBe(404);
  });

  it("takes raised limits from the openapi module's config, and names a lowered one", async () => {
    const install = (id: string, definition: string) =>
      host.api("POST", "/services", { id, adapter: "openapi", definition });
    // ~25 million values once its $refs are expanded: over the default, cheap to process all the same.
    const doubled = refDoubling(22);
    const refused = await install("doubled", doubled);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatch(/expands to more than 5,000,000 values/);
    try {
      const raised = await host.api("PATCH", "/modules/openapi/config", { maxDefinitionValues: 50_000_000 });
      expect(raised.status, raised.text).toBe(200);
      const accepted = await install("doubled", doubled);
      expect(accepted.status, accepted.text).toBe(201);
      expect(accepted.body.toolCount).toBe(1);
      expect((await host.api("PATCH", "/modules/openapi/config", { maxDefinitionValues: 1_000 })).status).toBe(200);
      const lowered = await install("small", refDoubling(10));
      expect(lowered.status, lowered.text).toBe(400);
      expect(lowered.body.error).toMatch(/expands to more than 1,000 values/);
    } finally {
      expect((await host.api("PATCH", "/modules/openapi/config", { maxDefinitionValues: null })).status).toBe(200);
      await host.api("DELETE", "/services/doubled");
    }
  });

  it("CYRNEL_DEFINITION_LIMIT_BYTES bounds an inline definition, with 413 naming the limit", async () => {
    const small = await startHost({ env: { CYRNEL_DEFINITION_LIMIT_BYTES: "65536" } });
    try {
      const padded = JSON.stringify({
        ...JSON.parse(refDoubling(5)),
        info: { title: "Big", version: "1", description: "d".repeat(100_000) },
      });
      const over = await small.api("POST", "/services", { id: "big", adapter: "openapi", definition: padded });
      expect(over.status, over.text).toBe(413);
      expect(over.body.error).toContain("65536 bytes");
      const under = await small.api("POST", "/services", {
        id: "fits",
        adapter: "openapi",
        definition: refDoubling(5),
      });
      expect(under.status, under.text).toBe(201);
    } finally {
      await small.stop();
    }
  });

  it("a definition downloaded from a URL goes through the same limits", async () => {
    respond = (_request, response) => {
      response.writeHead(200, { "content-type": "application/yaml" });
      response.end(yamlAliasBomb());
    };
    const response = await host.api("POST", "/services", {
      id: "bomb",
      adapter: "openapi",
      url: `${upstreamUrl}/bomb.yaml`,
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatch(/expands to more than 5,000,000 values/);
  });
});

describe("secrets echoed back encoded", () => {
  const KEY = "QUERYKEY+/=abc 123";
  it("an apiKey sent in the query is masked in every form, in the response and the log", async () => {
    await installOpenApi("keyed", queryKeyDocument(), { key: KEY });
    respond = (request, response) => {
      const target = request.url ?? "";
      response.writeHead(400, `Bad ${target}`, { "content-type": "application/json" });
      response.end(JSON.stringify({ target, decoded: decodeURIComponent(target), lower: target.toLowerCase() }));
    };
    received.length = 0;
    const response = await host.api("POST", "/tools/keyed/listItems/invoke", { parameters: {} });
    expect(received).toEqual([`GET /items?key=${encodeURIComponent(KEY)}`]);
    expect(response.status).toBe(502);
    expect(response.text).toContain("[redacted]");
    const logs = host.output.join("\n");
    for (const form of secretForms(KEY)) {
      expect(response.text).not.toContain(form);
      expect(logs).not.toContain(form);
    }
  });

  it("the gate masks every form even when an adapter masks nothing", async () => {
    await installRecorded(host, "echoing", [{ id: "leaky", behavior: "leakEncoded" }], {
      enabled: true,
      extra: {
        secretsSchema: { type: "object", properties: { token: { type: "string" }, basic: { type: "object" } } },
      },
    });
    const basic = { username: "ada", password: "pass word+/=" };
    expect((await host.api("PATCH", "/services/echoing/secrets", { token: KEY, basic })).status).toBe(200);
    const response = await host.api("POST", "/tools/echoing/leaky/invoke", { parameters: {} });
    expect(response.status).toBe(502);
    expect(response.body.error).toMatch(/^GET \/x\?token=\[redacted\] failed: /);
    expect(response.body.error).not.toContain("[cut:");
    const forbidden = [
      ...secretForms(KEY),
      ...secretForms(basic.password),
      new URLSearchParams({ token: KEY }).toString().slice("token=".length),
      Buffer.from(`${basic.username}:${basic.password}`).toString("base64"),
    ];
    const logs = host.output.join("\n");
    for (const form of forbidden) {
      expect(response.text, form).not.toContain(form);
      expect(logs, form).not.toContain(form);
    }
  });
});

describe("sizes", () => {
  it("a 200 MB upstream response fails the call naming maxResponseBytes", async () => {
    await installOpenApi("huge", {
      openapi: "3.0.3",
      info: { title: "Huge", version: "1" },
      paths: { "/dump": { get: { operationId: "dump", responses: { "200": { description: "ok" } } } } },
    });
    let written = 0;
    respond = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(MiB, "x");
      const pump = () => {
        while (written < 200 * MiB) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end();
      };
      response.on("close", () => response.removeAllListeners("drain"));
      pump();
    };
    const response = await host.api("POST", "/tools/huge/dump/invoke", { parameters: {} });
    expect(response.status).toBe(502);
    expect(response.body.error).toContain(
      "the response is larger than 10,485,760 bytes (the service's maxResponseBytes)",
    );
    expect(written).toBeLessThan(100 * MiB);
  });

  it("a 10 MB parameter in a failing call gives bounded log lines and a bounded error in code", async () => {
    await installRecorded(host, "bulky", [{ id: "fails", behavior: "failLarge" }], { enabled: true });
    const before = host.output.length;
    const output = await run(`
      try {
        await cyrnel.services.bulky.tools.fails.invoke({ q: "q".repeat(10_000_000) });
        cyrnel.output({ failed: false });
      } catch (error: any) {
        cyrnel.output({
          failed: true,
          code: error.code,
          messageLength: error.message.length,
          detailsLength: JSON.stringify(error.details ?? null).length,
          message: error.message.slice(-500),
        });
      }
    `);
    expect(output).toMatchObject({ failed: true, code: "adapter_error" });
    expect(output.messageLength).toBeLessThanOrEqual(8 * 1024 + 100);
    expect(output.detailsLength).toBeLessThanOrEqual(64 * 1024 + 200);
    // The adapter's message is cut (with room kept), then the upstream's answer follows, itself cut at 300.
    expect(output.message).toMatch(
      /\[cut: [\d,]+ more characters\] \(upstream status 414\): \{"echo":"\{\\"q\\":\\"q+…$/,
    );
    await host.waitForLog((entry) => entry.msg === "tool call failed" && entry.service === "bulky");
    const lines = host.output.slice(before);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(64 * 1024);
  });
});
