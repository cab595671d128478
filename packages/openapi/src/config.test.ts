import { describe, expect, it } from "vitest";
import { hostAjv } from "../test/helpers/ajv.js";
import { configSchema, fillTemplate, operationBaseUrl, resolveBaseUrl, serverDomain } from "./config.js";
import type { Server } from "./operations.js";

const variablesServer: Server = {
  url: "https://{name}.example.com:{port}/{basePath}",
  variables: [
    { name: "name", default: "demo" },
    { name: "port", default: "443", enum: ["443", "8443"], description: "The port" },
    { name: "basePath", default: "v2" },
  ],
};

describe("serverDomain and configSchema", () => {
  it("fills the default base URL from variable defaults and offers each variable", () => {
    const domain = serverDomain(variablesServer);
    expect(domain).toEqual({
      template: "https://{name}.example.com:{port}/{basePath}",
      variables: [
        { name: "name", key: "name", default: "demo" },
        { name: "port", key: "port", default: "443" },
        { name: "basePath", key: "basePath", default: "v2" },
      ],
      defaultBaseUrl: "https://demo.example.com:443/v2",
    });
    const schema = configSchema(domain, variablesServer);
    expect(schema.required).toBeUndefined();
    expect(schema.properties).toMatchObject({
      baseUrl: { type: "string", default: "https://demo.example.com:443/v2" },
      port: { type: "string", default: "443", enum: ["443", "8443"] },
      timeoutMs: { type: "integer", default: 30000 },
      headers: { type: "object", additionalProperties: { type: "string" }, default: {} },
    });
    expect((schema.properties as Record<string, { description: string }>).port!.description).toContain("The port");
  });

  it("applies defaults through the host's ajv and rejects unknown keys", () => {
    const validate = hostAjv().compile(configSchema(serverDomain(variablesServer), variablesServer));
    const config = {};
    expect(validate(config)).toBe(true);
    expect(config).toEqual({
      baseUrl: "https://demo.example.com:443/v2",
      name: "demo",
      port: "443",
      basePath: "v2",
      timeoutMs: 30000,
      maxResponseBytes: 10 * 1024 * 1024,
      followCrossOriginRedirects: false,
      headers: {},
    });
    expect(validate({ port: "1" })).toBe(false);
    expect(validate({ nope: 1 })).toBe(false);
    expect(validate({ baseUrl: "ftp://x" })).toBe(false);
  });

  it.each([
    ["a relative server", { url: "/v1", variables: [] }],
    ["no server", undefined],
  ])("requires baseUrl for %s", (_label, server) => {
    const schema = configSchema(serverDomain(server), server);
    expect(schema.required).toEqual(["baseUrl"]);
    expect((schema.properties as Record<string, object>).baseUrl).not.toHaveProperty("default");
  });

  it("renames variables that clash with the fixed keys", () => {
    const server: Server = {
      url: "https://{baseUrl}/{headers}",
      variables: [
        { name: "baseUrl", default: "a.com" },
        { name: "headers", default: "h" },
      ],
    };
    expect(serverDomain(server)!.variables.map((v) => v.key)).toEqual(["server_baseUrl", "server_headers"]);
  });
});

describe("resolveBaseUrl", () => {
  const domain = serverDomain(variablesServer);
  it.each([
    ["defaults", {}, { url: "https://demo.example.com:443/v2", configured: false }],
    [
      "variables while baseUrl is the default",
      { baseUrl: "https://demo.example.com:443/v2", name: "eu", port: "8443" },
      { url: "https://eu.example.com:8443/v2", configured: false },
    ],
    [
      "an explicit baseUrl verbatim",
      { baseUrl: "http://127.0.0.1:9000/api/", name: "eu" },
      { url: "http://127.0.0.1:9000/api", configured: true },
    ],
  ])("%s", (_label, config, expected) => {
    expect(resolveBaseUrl(domain, config)).toEqual(expected);
  });

  it("uses the operation's server while baseUrl is at its default, resolving relative ones against it", () => {
    const base = resolveBaseUrl(domain, {});
    expect(operationBaseUrl(base, null)).toBe("https://demo.example.com:443/v2");
    expect(operationBaseUrl(base, { template: "https://{r}.other.com/", variables: { r: "us" } })).toBe(
      "https://us.other.com",
    );
    expect(operationBaseUrl(base, { template: "/v3", variables: {} })).toBe("https://demo.example.com/v3");
  });

  it("a configured baseUrl replaces every server level: absolute, templated and relative operation servers", () => {
    const base = resolveBaseUrl(domain, { baseUrl: "http://127.0.0.1:9000/api" });
    expect(operationBaseUrl(base, null)).toBe("http://127.0.0.1:9000/api");
    expect(operationBaseUrl(base, { template: "https://{r}.other.com/", variables: { r: "us" } })).toBe(
      "http://127.0.0.1:9000/api",
    );
    expect(operationBaseUrl(base, { template: "/v3", variables: {} })).toBe("http://127.0.0.1:9000/api");
    const relativeOnly = resolveBaseUrl(serverDomain({ url: "/v1", variables: [] }), { baseUrl: "http://x.test/v1" });
    expect(operationBaseUrl(relativeOnly, { template: "https://api.other.com", variables: {} })).toBe(
      "http://x.test/v1",
    );
  });

  it.each([
    ["no server and no baseUrl", null, {}],
    ["a relative server and no baseUrl", serverDomain({ url: "/v1", variables: [] }), {}],
    ["a relative baseUrl", null, { baseUrl: "/v1" }],
    ["a malformed baseUrl", null, { baseUrl: "http://exa mple.com" }],
  ])("throws for %s", (_label, server, config) => {
    expect(() => resolveBaseUrl(server, config)).toThrow(/config\.baseUrl/);
  });

  it("fillTemplate leaves unknown variables alone", () => {
    expect(fillTemplate("https://{a}.{b}.com", new Map([["a", "x"]]))).toBe("https://x.{b}.com");
  });
});
