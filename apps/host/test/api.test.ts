import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialect } from "./support/database.js";
import { startHost, type TestHost } from "./support/host.js";

describe("bearer authentication", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ env: { CYRNEL_API_KEY: "k3y-for-tests" } });
  });
  afterAll(() => host?.stop());

  it("leaves /health open", async () => {
    const response = await host.api("GET", "/health", undefined, { authorization: "" });
    expect(response.status).toBe(200);
    // On PostgreSQL a host is one of many: it names itself and says whether it holds its lease.
    expect(response.body).toEqual({
      status: "ok",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      role: "all",
      ...(testDialect() === "postgres" && { hostId: expect.stringMatching(/^h[0-9a-f]{16}$/), leaseAlive: true }),
    });
  });

  it.each([
    ["no header", ""],
    ["a wrong key", "Bearer wrong"],
    ["a prefix of the key", "Bearer k3y"],
    ["another scheme", "Basic k3y-for-tests"],
  ])("answers 401 to %s on every other route", async (_label, authorization) => {
    for (const path of ["/services", "/tools", "/modules", "/openapi.json", "/nope"]) {
      const response = await host.api("GET", path, undefined, { authorization });
      expect([path, response.status, response.body.code]).toEqual([path, 401, "unauthorized"]);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  it("accepts the right key", async () => {
    expect((await host.api("GET", "/services")).status).toBe(200);
    expect((await host.api("GET", "/services", undefined, { authorization: "bearer k3y-for-tests" })).status).toBe(200);
  });
});

describe("conventions", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ modules: ["recorder"], env: { CYRNEL_BODY_LIMIT_BYTES: "2048" } });
  });
  afterAll(() => host?.stop());

  it("answers unknown routes with the error envelope", async () => {
    const response = await host.api("GET", "/no/such/route");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: "no route GET /no/such/route", code: "not_found" });
  });

  it.each([
    ["malformed JSON", '{"enabled": tru', "application/json", 400, "malformed JSON"],
    ["a non-JSON content type", "enabled=true", "text/plain", 415, "Content-Type: application/json"],
    ["JSON sent as text/plain (what a cross-site page can send)", '{"enabled":true}', "text/plain", 415, "text/plain"],
    ["an empty body", "", "application/json", 400, "body is required"],
    ["a wrong type", '{"enabled":"yes"}', "application/json", 400, "enabled"],
    ["an unknown field", '{"enabled":true,"force":1}', "application/json", 400, "force"],
    ["a JSON array", "[true]", "application/json", 400, "object"],
  ])("rejects %s with a 4xx naming the problem", async (_label, body, type, status, mentions) => {
    const response = await host.api("POST", "/modules/recorder/enabled", body, { "content-type": type });
    expect(response.status, response.text).toBe(status);
    expect(response.body.error).toContain(mentions);
    expect(response.body).not.toHaveProperty("stack");
  });

  it("answers 413 to bodies over the limit, and takes definitions up to their own larger limit", async () => {
    const big = JSON.stringify({ enabled: true, padding: "x".repeat(4096) });
    const response = await host.api("POST", "/modules/recorder/enabled", big);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe("payload_too_large");
    await host.api("POST", "/modules/recorder/enabled", { enabled: true });
    const definition = JSON.stringify({ description: "d".repeat(8192), tools: [{ id: "t" }] });
    const install = await host.api("POST", "/services", { id: "large", adapter: "recorder", definition });
    expect(install.status, install.text).toBe(201);
  });

  it("serves a valid OpenAPI 3.1 document describing every route", async () => {
    const response = await host.api("GET", "/openapi.json");
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe("3.1.0");
    const document = structuredClone(response.body);
    await expect(SwaggerParser.validate(document)).resolves.toBeTruthy();
    const operations = Object.entries(response.body.paths).flatMap(([path, methods]: [string, any]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      "GET /health",
      "GET /services",
      "POST /services",
      "PATCH /services/{id}/config",
      "POST /tools/{serviceId}/{toolId}/invoke",
      "GET /tools/{serviceId}/{toolId}/docs",
      "POST /modules/{id}/enabled",
      "POST /modules/reload",
    ]) {
      expect(operations).toContain(expected);
    }
    const invoke = response.body.paths["/tools/{serviceId}/{toolId}/invoke"].post;
    expect(Object.keys(invoke.responses)).toEqual(expect.arrayContaining(["200", "400", "404", "409", "502", "504"]));
  });
});

describe("startup configuration", () => {
  // Every variable's refusal is in src/config.test.ts; this is what the binary does with one.
  it("stops with exit code 1 and a message naming the variable", async () => {
    const host = await startHost({ env: { CYRNEL_SECRETS_KEY: "not-base64!" }, expectListening: false });
    const code = await host.waitForExit();
    expect(code).toBe(1);
    expect(host.output.join("\n")).toContain("cyrnel: invalid configuration: CYRNEL_SECRETS_KEY");
  });

  it("refuses a database URL that is not PostgreSQL's, naming the variable and never its password", async () => {
    const host = await startHost({
      env: { CYRNEL_DATABASE_URL: "mysql://root:hunter2@127.0.0.1/cyrnel" },
      expectListening: false,
    });
    expect(await host.waitForExit()).toBe(1);
    const output = host.output.join("\n");
    expect(output).toContain("cyrnel: invalid configuration: CYRNEL_DATABASE_URL");
    expect(output).not.toContain("hunter2");
  });

  it("stops when PostgreSQL cannot be reached, without printing the URL's password", async () => {
    // Port 1 on loopback: nothing listens there.
    const host = await startHost({
      env: { CYRNEL_DATABASE_URL: "postgres://cyrnel:hunter2@127.0.0.1:1/cyrnel" },
      expectListening: false,
    });
    expect(await host.waitForExit()).toBe(1);
    const output = host.output.join("\n");
    expect(output).toContain("cyrnel: could not start");
    expect(output).not.toContain("hunter2");
  });
});
