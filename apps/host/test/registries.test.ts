import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoWeather } from "../../../examples/demo-weather/src/server.mjs";
import { serveRegistry } from "../../../examples/registry/serve.mjs";
import { startHost, type TestHost, tempDir } from "./support/host.js";

/**
 * Registries end to end: the example registry
 * (examples/registry/public) served as plain files over real HTTP, the
 * built host adding and browsing it, installing and updating the petstore
 * service and the json-http module from it, and every way a registry can
 * fail: unreachable, failing upstream, garbage, tampered artifacts, a module
 * update that cannot load.
 */

const publicDir = join(import.meta.dirname, "..", "..", "..", "examples", "registry", "public");
const DOWNLOAD_TIMEOUT_MS = 3_000;

type Started = { url: string; close(): Promise<void> };

let host: TestHost;
let registry: Started;
let weather: Started;
let misbehaving: Started;
let hanging: Started;
let closedUrl: string;
const cleanups: (() => Promise<void>)[] = [];

/** The index item `source`s the tests install from. */
let source: { petstore: string; weather: string; weatherLegacy: string; jsonHttp: string };

beforeAll(async () => {
  registry = await serveRegistry({ root: publicDir });
  weather = await startDemoWeather();
  misbehaving = await startMisbehavingRegistry();
  hanging = await startHangingServer();
  closedUrl = await closedPortUrl();
  cleanups.push(registry.close, weather.close, misbehaving.close, hanging.close);
  host = await startHost({ env: { CYRNEL_DOWNLOAD_TIMEOUT_MS: String(DOWNLOAD_TIMEOUT_MS) } });
  source = {
    petstore: `${registry.url}/definitions/petstore/descriptor.json`,
    weather: `${registry.url}/definitions/weather/descriptor.json`,
    weatherLegacy: `${registry.url}/definitions/weatherLegacy/descriptor.json`,
    jsonHttp: `${registry.url}/modules/json-http/descriptor.json`,
  };
});

afterAll(async () => {
  await host?.stop();
  for (const close of cleanups) await close();
});

describe("adding and browsing a registry", () => {
  it("adds a registry from its base URL and resolves its relative index URLs against the document", async () => {
    const added = await host.api("POST", "/registries", { url: registry.url });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({
      id: "cyrnel-examples",
      name: "cyrnel examples",
      url: `${registry.url}/`,
      definitionsUrl: `${registry.url}/definitions/index.json`,
      modulesUrl: `${registry.url}/modules/index.json`,
    });
    // The well-known URL itself is accepted too, under a local id of the caller's choosing.
    const again = await host.api("POST", "/registries", {
      url: `${registry.url}/.well-known/cyrnel-registry.json`,
      id: "examples-copy",
    });
    expect(again.status, again.text).toBe(201);
    expect(again.body).toMatchObject({ id: "examples-copy", url: `${registry.url}/` });
  });

  it.each([
    ["the registry's own id again", { url: "REGISTRY" }, 409, "conflict", 'registry "cyrnel-examples" already exists'],
    // A taken id is refused before anything is fetched: the closed port is never tried.
    ["a taken id", { url: "CLOSED", id: "examples-copy" }, 409, "conflict", 'registry "examples-copy" already exists'],
    ["an invalid id", { url: "CLOSED", id: "Bad Id!" }, 400, "bad_request", "not a valid registry id"],
    ["an id that is too long", { url: "CLOSED", id: "a".repeat(65) }, 400, "bad_request", "not a valid registry id"],
    ["a non-http URL", { url: "file:///etc/passwd" }, 400, "bad_request", "http or https"],
    ["an unknown field", { url: "REGISTRY", mirror: true }, 400, "validation_failed", "mirror"],
  ])("refuses %s", async (_label, body, status, code, message) => {
    const url = body.url === "REGISTRY" ? registry.url : body.url === "CLOSED" ? closedUrl : body.url;
    const response = await host.api("POST", "/registries", { ...body, url });
    expect(response.status, response.text).toBe(status);
    expect(response.body.code).toBe(code);
    expect(response.body.error).toContain(message);
    const ids = (await host.api("GET", "/registries")).body.items.map((item: any) => item.id);
    expect(ids).toEqual(["cyrnel-examples", "examples-copy"]);
  });

  it("lists, pages, reads and deletes registries", async () => {
    const first = await host.api("GET", "/registries?limit=1");
    expect(first.body.items.map((item: any) => item.id)).toEqual(["cyrnel-examples"]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await host.api("GET", `/registries?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ items: [{ id: "examples-copy" }], nextCursor: null });

    expect((await host.api("GET", "/registries/examples-copy")).body.name).toBe("cyrnel examples");
    expect((await host.api("DELETE", "/registries/examples-copy")).status).toBe(204);
    expect((await host.api("GET", "/registries/examples-copy")).status).toBe(404);
    const again = await host.api("DELETE", "/registries/examples-copy");
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("not_found");
  });

  it("browses definitions across every index page, with absolute sources, filtered by query and paged", async () => {
    const all = await host.api("GET", "/registries/cyrnel-examples/definitions");
    expect(all.status, all.text).toBe(200);
    // The second page (index-2.json) is reached through the first page's `next`.
    expect(all.body.items.map((item: any) => item.id)).toEqual(["petstore", "weather", "weatherLegacy"]);
    expect(all.body.items[0]).toEqual({
      id: "petstore",
      name: "Petstore",
      description: expect.stringContaining("pet store"),
      kind: "openapi@3",
      source: source.petstore,
    });
    expect(all.body.items[2]).toMatchObject({ kind: "json-http@1", source: source.weatherLegacy });
    expect(all.body.nextCursor).toBeNull();

    const weatherOnly = await host.api("GET", "/registries/cyrnel-examples/definitions?query=WEATHER");
    expect(weatherOnly.body.items.map((item: any) => item.id)).toEqual(["weather", "weatherLegacy"]);
    const byDescription = await host.api("GET", "/registries/cyrnel-examples/definitions?query=shorthand");
    expect(byDescription.body.items.map((item: any) => item.id)).toEqual(["weatherLegacy"]);

    const page = await host.api("GET", "/registries/cyrnel-examples/definitions?limit=2");
    expect(page.body.items).toHaveLength(2);
    const rest = await host.api(
      "GET",
      `/registries/cyrnel-examples/definitions?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`,
    );
    expect(rest.body).toMatchObject({ items: [{ id: "weatherLegacy" }], nextCursor: null });
  });

  it("browses modules with query, and 404s an unknown registry", async () => {
    const modules = await host.api("GET", "/registries/cyrnel-examples/modules?query=json");
    expect(modules.status).toBe(200);
    expect(modules.body.items).toEqual([
      {
        id: "json-http",
        name: "JSON over HTTP",
        description: expect.any(String),
        kind: "adapter",
        source: source.jsonHttp,
      },
    ]);
    expect((await host.api("GET", "/registries/cyrnel-examples/modules?query=graphql")).body.items).toEqual([]);
    const unknown = await host.api("GET", "/registries/nope/definitions");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('registry "nope"');
  });
});

describe("a service from a registry", () => {
  const toolsOf = async (serviceId: string) =>
    Object.fromEntries(
      (await host.api("GET", `/tools?serviceId=${serviceId}`)).body.items.map((tool: any) => [tool.id, tool]),
    );

  it("installs petstore at an exact version, recording source and version", async () => {
    const installed = await host.api("POST", "/services/install", { source: source.petstore, version: "1.0.0" });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body).toMatchObject({
      id: "petstore",
      name: "Petstore",
      adapter: "openapi",
      source: source.petstore,
      version: "1.0.0",
      enabled: false,
      stale: false,
      toolCount: 4,
    });
    expect(Object.keys(await toolsOf("petstore")).sort()).toEqual(["addPet", "deletePet", "getPetById", "listPets"]);
  });

  it.each([
    ["a version the descriptor does not list", { version: "1.0.1" }, 404, "not_found", "available: 1.1.0, 1.0.0"],
    ["a range nothing satisfies", { version: "^2" }, 404, "not_found", 'satisfies "^2"'],
    ["something that is not semver", { version: "newest" }, 400, "bad_request", "neither a semver version"],
    ["an id that is already taken", { id: "petstore" }, 409, "conflict", 'service "petstore" already exists'],
    ["an adapter that does not exist", { id: "pets2", adapter: "graphql" }, 404, "not_found", "graphql"],
    ["a source that is not a URL", { source: "petstore" }, 400, "bad_request", "not a valid absolute URL"],
  ])("refuses an install with %s", async (_label, body, status, code, message) => {
    const response = await host.api("POST", "/services/install", { source: source.petstore, ...body });
    expect(response.status, response.text).toBe(status);
    expect(response.body.code).toBe(code);
    expect(response.body.error).toContain(message);
    expect((await host.api("GET", "/services?limit=1000")).body.items.map((s: any) => s.id)).toEqual(["petstore"]);
  });

  it("updates to the latest version: new tools appear, surviving tools keep their enabled flag", async () => {
    expect((await host.api("POST", "/tools/petstore/getPetById/enabled", { enabled: false })).status).toBe(200);
    expect((await host.api("POST", "/services/petstore/enabled", { enabled: true })).body.enabled).toBe(true);
    const before = (await host.api("GET", "/services/petstore")).body;

    const updated = await host.api("POST", "/services/petstore/update", {});
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({
      id: "petstore",
      updated: true,
      fromVersion: "1.0.0",
      toVersion: "1.1.0",
      enabled: true,
    });

    const after = (await host.api("GET", "/services/petstore")).body;
    expect(after).toMatchObject({ version: "1.1.0", source: source.petstore, toolCount: 5, enabled: true });
    expect(after.hash).not.toBe(before.hash);
    const tools = await toolsOf("petstore");
    expect(Object.keys(tools).sort()).toEqual(["addPet", "deletePet", "getPetById", "listPets", "updatePet"]);
    expect(tools.getPetById).toMatchObject({ enabled: false, effectivelyEnabled: false });
    expect(tools.updatePet).toMatchObject({ enabled: true, effectivelyEnabled: true });
    expect(tools.listPets.enabled).toBe(true);
    // listPets changed in 1.1.0: it gained the `tag` filter.
    const listPets = (await host.api("GET", "/tools/petstore/listPets")).body;
    expect(Object.keys(listPets.inputSchema.properties).sort()).toEqual(["limit", "status", "tag"]);
  });

  it("answers updated:false when the descriptor's latest is what is installed", async () => {
    const before = (await host.api("GET", "/services/petstore")).body;
    const again = await host.api("POST", "/services/petstore/update", {});
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      id: "petstore",
      updated: false,
      fromVersion: "1.1.0",
      toVersion: "1.1.0",
      enabled: true,
    });
    expect((await host.api("GET", "/services/petstore")).body).toEqual(before);
  });

  it("moves to the highest version a range allows, down as well as up", async () => {
    const down = await host.api("POST", "/services/petstore/update", { version: "~1.0" });
    expect(down.body).toMatchObject({ updated: true, fromVersion: "1.1.0", toVersion: "1.0.0" });
    expect(Object.keys(await toolsOf("petstore"))).not.toContain("updatePet");
    expect((await toolsOf("petstore")).getPetById.enabled).toBe(false);
    const up = await host.api("POST", "/services/petstore/update", { version: "latest" });
    expect(up.body).toMatchObject({ updated: true, fromVersion: "1.0.0", toVersion: "1.1.0" });
  });

  it("refuses a registry update of a directly installed service with 409", async () => {
    const text = readFileSync(join(publicDir, "definitions", "petstore", "1.0.0.json"), "utf8");
    const direct = await host.api("POST", "/services", { id: "directPets", adapter: "openapi", definition: text });
    expect(direct.status, direct.text).toBe(201);
    expect(direct.body).toMatchObject({ source: null, version: null });
    const update = await host.api("POST", "/services/directPets/update", {});
    expect(update.status).toBe(409);
    expect(update.body.error).toContain("PATCH /services/directPets");
    expect((await host.api("POST", "/services/nope/update", {})).status).toBe(404);
    expect((await host.api("DELETE", "/services/directPets")).status).toBe(204);
  });
});

describe("a module from a registry", () => {
  const forecast = (serviceId: string) =>
    host.api("POST", `/tools/${serviceId}/getForecast/invoke`, { parameters: { city: "oslo", days: 2 } });

  /** Installs a json-http service from the registry, pointed at the local demo-weather API, enabled. */
  async function installWeather(id: "weather" | "weatherLegacy") {
    const installed = await host.api("POST", "/services/install", { source: source[id], adapter: "json-http" });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body).toMatchObject({ id, adapter: "json-http", version: "1.0.0", toolCount: 2 });
    const config = await host.api("PATCH", `/services/${id}/config`, { baseUrl: weather.url });
    expect(config.status, config.text).toBe(200);
    const enabled = await host.api("POST", `/services/${id}/enabled`, { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
  }

  it("installs json-http 1.0.0 disabled, and refuses to install it twice", async () => {
    const installed = await host.api("POST", "/modules/install", { source: source.jsonHttp, version: "1.0.0" });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body).toMatchObject({
      id: "json-http",
      type: "adapter",
      version: "1.0.0",
      builtin: false,
      enabled: false,
      active: false,
      source: source.jsonHttp,
      error: null,
    });
    expect(JSON.parse(readFileSync(join(host.dataDir, "modules", "json-http", "module.json"), "utf8")).version).toBe(
      "1.0.0",
    );
    const twice = await host.api("POST", "/modules/install", { source: source.jsonHttp });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: "conflict", error: 'module "json-http" already exists' });
    const unknownVersion = await host.api("POST", "/modules/install", { source: source.jsonHttp, version: "9.9.9" });
    expect(unknownVersion.status).toBe(404);
    expect(unknownVersion.body.error).toContain("available: 2.0.0, 1.0.0");
  });

  it("runs services through it once enabled, including one written with 1.x routes", async () => {
    const enabled = await host.api("POST", "/modules/json-http/enabled", { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, active: true });
    await installWeather("weatherLegacy");
    await installWeather("weather");
    for (const id of ["weatherLegacy", "weather"]) {
      const result = await forecast(id);
      expect(result.status, result.text).toBe(200);
      // json-http 1.x returns the response body itself.
      expect(result.body.result.city).toEqual({ id: "oslo", name: "Oslo", country: "NO" });
      expect(result.body.result.days).toHaveLength(2);
    }
  });

  it("updates to 2.0.0: services are regenerated, and the one using route becomes stale", async () => {
    const updated = await host.api("POST", "/modules/json-http/update", {});
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ id: "json-http", updated: true, fromVersion: "1.0.0", toVersion: "2.0.0" });
    expect((await host.api("GET", "/modules/json-http")).body).toMatchObject({
      version: "2.0.0",
      enabled: true,
      active: true,
      source: source.jsonHttp,
      error: null,
    });

    const legacy = (await host.api("GET", "/services/weatherLegacy")).body;
    expect(legacy).toMatchObject({ stale: true, version: "1.0.0" });
    expect(legacy.staleReason).toContain("route is no longer supported");
    const enable = await host.api("POST", "/services/weatherLegacy/enabled", { enabled: true });
    expect(enable.status).toBe(409);
    expect(enable.body.code).toBe("conflict");
    expect(enable.body.error).toContain("stale");
    const invoke = await forecast("weatherLegacy");
    expect(invoke.status).toBe(409);
    expect(invoke.body.code).toBe("service_disabled");
    const legacyTools = (await host.api("GET", "/tools?serviceId=weatherLegacy")).body.items;
    expect(legacyTools.map((tool: any) => tool.effectivelyEnabled)).toEqual([false, false]);

    // The service written with method and path keeps working, with tools regenerated by 2.0.0.
    expect((await host.api("GET", "/services/weather")).body).toMatchObject({ stale: false, enabled: true });
    const tool = (await host.api("GET", "/tools/weather/getForecast")).body;
    expect(tool.outputSchema.required).toEqual(["status", "body"]);
    const result = await forecast("weather");
    expect(result.status, result.text).toBe(200);
    expect(result.body.result.status).toBe(200);
    expect(result.body.result.body.city.name).toBe("Oslo");
  });

  it("answers updated:false when the latest version is already installed", async () => {
    const again = await host.api("POST", "/modules/json-http/update", {});
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: "json-http", updated: false, fromVersion: "2.0.0", toVersion: "2.0.0" });
  });

  /** What a broken json-http 3.0.0 does in its src/index.js. */
  const brokenAtImport = "throw new Error('broken on purpose');";
  // Loads, and even generates definitions (with fewer tools), but its setup throws.
  const brokenAtSetup = `
    const tool = { id: "ping", name: "ping", description: "", inputSchema: {}, outputSchema: {}, adapterDomain: {} };
    export function instantiate() {
      return {
        async setup() { throw new Error("no licence for 3.0.0"); },
        async teardown() {},
        async generateDefinition() {
          return { name: "x", description: "", configSchema: {}, secretsSchema: {}, adapterDomain: {}, tools: [tool] };
        },
        async hydrateService() {},
        async dehydrateService() {},
        async invoke() { return "from 3.0.0"; },
      };
    }`;

  it.each([
    ["throws on import", brokenAtImport, {}, "it failed to load: importing src/index.js failed: broken on purpose"],
    ["fails to start", brokenAtSetup, {}, "it failed to start: no licence for 3.0.0"],
  ])(
    "rolls back an update whose new version %s; the old version keeps serving",
    async (_label, code, extra, reason) => {
      // A disabled tool must stay disabled whatever the failed version would have generated.
      expect((await host.api("POST", "/tools/weather/listCities/enabled", { enabled: false })).status).toBe(200);
      const archiveUrl = await serveArchive(
        "json-http-3.0.0.tgz",
        { id: "json-http", name: "JSON over HTTP", type: "adapter", version: "3.0.0", main: "src/index.js", ...extra },
        code,
      );
      const response = await host.api("PATCH", "/modules/json-http", { url: archiveUrl });
      expect(response.status, response.text).toBe(400);
      expect(response.body.code).toBe("bad_request");
      expect(response.body.error).toContain('module "json-http" 3.0.0 was not installed because');
      expect(response.body.error).toContain(reason);
      expect(response.body.error).toContain("version 2.0.0 was restored and keeps running");

      expect((await host.api("GET", "/modules/json-http")).body).toMatchObject({
        version: "2.0.0",
        enabled: true,
        active: true,
        source: source.jsonHttp,
        error: null,
      });
      const onDisk = JSON.parse(readFileSync(join(host.dataDir, "modules", "json-http", "module.json"), "utf8"));
      expect(onDisk.version).toBe("2.0.0");
      const staging = join(host.dataDir, "modules", ".staging");
      expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);

      expect((await host.api("GET", "/services/weather")).body).toMatchObject({ stale: false, enabled: true });
      const tools = (await host.api("GET", "/tools?serviceId=weather")).body.items;
      expect(Object.fromEntries(tools.map((tool: any) => [tool.id, tool.enabled]))).toEqual({
        getForecast: true,
        listCities: false,
      });
      const disabled = await host.api("POST", "/tools/weather/listCities/invoke", { parameters: {} });
      expect(disabled.status).toBe(409);
      expect(disabled.body.code).toBe("tool_disabled");
      const result = await forecast("weather");
      expect(result.status, result.text).toBe(200);
      expect(result.body.result).toMatchObject({ status: 200, body: { city: { name: "Oslo" } } });
    },
  );

  it("refuses an update for a newer host (engines.cyrnel) before touching the installed version", async () => {
    const archiveUrl = await serveArchive(
      "json-http-9.0.0.tgz",
      {
        id: "json-http",
        name: "JSON over HTTP",
        type: "adapter",
        version: "9.0.0",
        main: "src/index.js",
        engines: { cyrnel: ">=99.0.0" },
      },
      brokenAtSetup,
    );
    const response = await host.api("PATCH", "/modules/json-http", { url: archiveUrl });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe("bad_request");
    expect(response.body.error).toMatch(/module requires cyrnel >=99\.0\.0, this host is \d+\.\d+\.\d+/);
    expect((await host.api("GET", "/modules/json-http")).body).toMatchObject({ version: "2.0.0", active: true });
    expect((await forecast("weather")).status).toBe(200);
  });

  it("installs a module whatever its id, even the name of the installer's work folder", async () => {
    const archive = await serveArchive(
      "unpacked-1.0.0.tgz",
      { id: "unpacked", name: "Unpacked", type: "adapter", version: "1.0.0", main: "src/index.js" },
      `export function instantiate() {
        const none = async () => undefined;
        return { setup: none, teardown: none, generateDefinition: none, hydrateService: none,
          dehydrateService: none, invoke: none };
      }`,
      { descriptor: true },
    );
    const source = archive.replace(/[^/]+$/, "descriptor.json");
    const installed = await host.api("POST", "/modules/install", { source });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body).toMatchObject({ id: "unpacked", version: "1.0.0", source, error: null });
    expect((await host.api("DELETE", "/modules/unpacked")).status).toBe(204);
  });

  it("goes back to 1.x with a range: the stale service generates again and runs", async () => {
    const down = await host.api("POST", "/modules/json-http/update", { version: "^1" });
    expect(down.body).toEqual({ id: "json-http", updated: true, fromVersion: "2.0.0", toVersion: "1.0.0" });
    expect((await host.api("GET", "/services/weatherLegacy")).body).toMatchObject({ stale: false, enabled: true });
    const result = await forecast("weatherLegacy");
    expect(result.status, result.text).toBe(200);
    expect(result.body.result.city.name).toBe("Oslo");
    const up = await host.api("POST", "/modules/json-http/update", {});
    expect(up.body).toMatchObject({ updated: true, toVersion: "2.0.0" });
  });
});

describe("a registry that fails", () => {
  it("rejects a tampered artifact by its sha256: 400 and nothing installed or changed", async () => {
    const copy = tempDir("cyrnel-tampered-");
    cpSync(publicDir, copy, { recursive: true });
    const petstore11 = join(copy, "definitions", "petstore", "1.1.0.json");
    writeFileSync(petstore11, readFileSync(petstore11, "utf8").replace('"title": "Petstore"', '"title": "Evil"'));
    const archive = join(copy, "modules", "json-http", "json-http-2.0.0.tgz");
    const bytes = readFileSync(archive);
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff;
    writeFileSync(archive, bytes);
    const tampered = await serveRegistry({ root: copy });
    cleanups.push(tampered.close);
    const petSource = `${tampered.url}/definitions/petstore/descriptor.json`;

    const install = await host.api("POST", "/services/install", { source: petSource, id: "tamperedPets" });
    expect(install.status, install.text).toBe(400);
    expect(install.body.code).toBe("bad_request");
    expect(install.body.error).toContain("sha256 mismatch for petstore 1.1.0");
    expect(install.body.error).toContain("nothing was installed");
    expect((await host.api("GET", "/services/tamperedPets")).status).toBe(404);

    // 1.0.0 is intact: it installs; the update to the tampered 1.1.0 is refused and changes nothing.
    const old = await host.api("POST", "/services/install", {
      source: petSource,
      id: "tamperedPets",
      version: "1.0.0",
    });
    expect(old.status, old.text).toBe(201);
    const update = await host.api("POST", "/services/tamperedPets/update", {});
    expect(update.status).toBe(400);
    expect(update.body.error).toContain("sha256 mismatch");
    expect((await host.api("GET", "/services/tamperedPets")).body).toEqual(old.body);

    const module = await host.api("POST", "/modules/install", {
      source: `${tampered.url}/modules/json-http/descriptor.json`,
    });
    expect(module.status).toBe(400);
    expect(module.body.error).toContain("sha256 mismatch for json-http 2.0.0");
    expect((await host.api("GET", "/modules/json-http")).body).toMatchObject({
      version: "2.0.0",
      source: source.jsonHttp,
    });

    // When that registry goes away, the update is an upstream failure (502) and still changes nothing.
    await tampered.close();
    const gone = await host.api("POST", "/services/tamperedPets/update", {});
    expect(gone.status).toBe(502);
    expect(gone.body.code).toBe("upstream_error");
    expect(gone.body.error).toContain(petSource);
    expect((await host.api("GET", "/services/tamperedPets")).body).toEqual(old.body);
  });

  it("answers 502 upstream_error for a registry that cannot be reached, and adds nothing", async () => {
    const added = await host.api("POST", "/registries", { url: closedUrl });
    expect(added.status, added.text).toBe(502);
    expect(added.body.code).toBe("upstream_error");
    expect(added.body.error).toBe(
      `could not download registry document from ${closedUrl}/.well-known/cyrnel-registry.json: ECONNREFUSED`,
    );
    const install = await host.api("POST", "/services/install", { source: `${closedUrl}/descriptor.json` });
    expect(install.status).toBe(502);
    expect(install.body.code).toBe("upstream_error");
    const module = await host.api("POST", "/modules/install", { source: `${closedUrl}/descriptor.json` });
    expect(module.status).toBe(502);
    expect((await host.api("GET", "/registries")).body.items.map((item: any) => item.id)).toEqual(["cyrnel-examples"]);
  });

  it("answers 502 upstream_error when a registry times out", async () => {
    const added = await host.api("POST", "/registries", { url: hanging.url });
    expect(added.status, added.text).toBe(502);
    expect(added.body.code).toBe("upstream_error");
    expect(added.body.error).toContain(
      `nothing arrived for ${DOWNLOAD_TIMEOUT_MS} ms (the idle timeout, CYRNEL_DOWNLOAD_TIMEOUT_MS)`,
    );
  });

  it.each([
    ["HTTP 500", "/fails", 502, "upstream_error", "HTTP 500"],
    ["a redirect loop", "/loop", 502, "upstream_error", "more than 5 redirects"],
    ["HTTP 404 (not a registry)", "/missing", 400, "bad_request", "HTTP 404"],
    ["an HTML page", "/html", 400, "bad_request", "registry document at URL answered an HTML page (text/html)"],
    ["JSON of the wrong shape", "/shape", 400, "bad_request", "registry document at URL is not valid"],
    ["an id that is not a registry id", "/bad-id", 400, "bad_request", `the registry's own id (pass "id"`],
  ])("refuses a registry answering %s", async (_label, path, status, code, message) => {
    const url = `${misbehaving.url}${path}`;
    const response = await host.api("POST", "/registries", { url });
    expect(response.status, response.text).toBe(status);
    expect(response.body.code).toBe(code);
    expect(response.body.error).toContain(message.replace("URL", `${url}/.well-known/cyrnel-registry.json`));
    expect((await host.api("GET", "/registries")).body.items).toHaveLength(1);
  });

  it("names the fields of a well-known document of the wrong shape", async () => {
    const response = await host.api("POST", "/registries", { url: `${misbehaving.url}/shape` });
    expect(response.body.error).toMatch(/name|id/);
  });

  it("adds a registry whose indexes are broken, then answers 400 when browsing them", async () => {
    const added = await host.api("POST", "/registries", { url: `${misbehaving.url}/broken-indexes`, id: "broken" });
    expect(added.status, added.text).toBe(201);
    const definitions = await host.api("GET", "/registries/broken/definitions");
    expect(definitions.status).toBe(400);
    expect(definitions.body.code).toBe("bad_request");
    expect(definitions.body.error).toContain(`definitions index of registry "broken" at ${misbehaving.url}`);
    expect(definitions.body.error).toContain("is not valid");
    // The modules index is fine on its first page; its `next` page is not JSON.
    const modules = await host.api("GET", "/registries/broken/modules");
    expect(modules.status).toBe(400);
    expect(modules.body.error).toContain(`${misbehaving.url}/broken-indexes/modules-2.json is not valid JSON`);
    expect((await host.api("DELETE", "/registries/broken")).status).toBe(204);
  });

  it.each([
    ["a descriptor of the wrong shape", "/descriptors/shape.json", "descriptor at URL is not valid"],
    [
      "a latestVersion it does not list",
      "/descriptors/latest.json",
      'latestVersion "2.0.0" is not one of its versions',
    ],
    [
      "a descriptor that is an HTML page",
      "/html/.well-known/cyrnel-registry.json",
      "descriptor at URL answered an HTML page (text/html)",
    ],
  ])("refuses an install from %s with 400", async (_label, path, message) => {
    const url = `${misbehaving.url}${path}`;
    const response = await host.api("POST", "/services/install", { source: url, id: "garbage" });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe("bad_request");
    expect(response.body.error).toContain(message.replace("URL", url));
    expect((await host.api("GET", "/services/garbage")).status).toBe(404);
  });

  it("keeps direct downloads (POST /services, PATCH /modules/:id with url) at 400 for every failure", async () => {
    const service = await host.api("POST", "/services", { id: "direct", adapter: "openapi", url: `${closedUrl}/x` });
    expect(service.status).toBe(400);
    expect(service.body).toMatchObject({ code: "bad_request" });
    expect(service.body.error).toContain("ECONNREFUSED");
    const failing = await host.api("POST", "/services", {
      id: "direct",
      adapter: "openapi",
      url: `${misbehaving.url}/fails/openapi.json`,
    });
    expect(failing.status).toBe(400);
    expect(failing.body.error).toContain("HTTP 500");
    const module = await host.api("PATCH", "/modules/json-http", { url: `${closedUrl}/json-http.tgz` });
    expect(module.status).toBe(400);
    expect(module.body.code).toBe("bad_request");
    expect((await host.api("GET", "/modules/json-http")).body.version).toBe("2.0.0");
  });

  it("documents upstream_error in /openapi.json", async () => {
    const document = (await host.api("GET", "/openapi.json")).body;
    expect(document.paths["/registries"].post.responses["502"].description).toContain("upstream_error");
    expect(document.paths["/services/install"].post.responses["502"].description).toContain("upstream_error");
    expect(document.paths["/modules/{id}/update"].post.responses["502"].description).toContain("upstream_error");
    expect(document.components.schemas.Error.properties.code.anyOf).toContainEqual({
      const: "upstream_error",
      type: "string",
    });
  });
});

// ---- helpers ------------------------------------------------------------------------------------

function listen(server: Server): Promise<Started> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    ),
  );
}

/** A port nothing listens on: bound once, then closed. */
async function closedPortUrl(): Promise<string> {
  const probe = await listen(createServer());
  await probe.close();
  return probe.url;
}

/** Accepts connections and never answers. */
function startHangingServer(): Promise<Started> {
  return listen(createServer(() => undefined));
}

/** One path prefix per way of being wrong. */
function startMisbehavingRegistry(): Promise<Started> {
  const wellKnown = "/.well-known/cyrnel-registry.json";
  const send = (res: ServerResponse, status: number, body: unknown, type = "application/json") =>
    res.writeHead(status, { "content-type": type }).end(typeof body === "string" ? body : JSON.stringify(body));
  return listen(
    createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path.startsWith("/fails/")) return send(res, 500, { error: "database on fire" });
      switch (path) {
        case `/loop${wellKnown}`:
          return res.writeHead(302, { location: req.url }).end();
        case `/html${wellKnown}`:
          return send(res, 200, "<html><body>Welcome!</body></html>", "text/html");
        case `/shape${wellKnown}`:
          return send(res, 200, { name: 42, definitions: ["not", "a", "url"] });
        case `/bad-id${wellKnown}`:
          return send(res, 200, { id: "Has Spaces", name: "Bad id" });
        case `/broken-indexes${wellKnown}`:
          return send(res, 200, {
            id: "broken",
            name: "Broken",
            definitions: "../defs.json",
            modules: "../modules.json",
          });
        case "/broken-indexes/defs.json":
          return send(res, 200, { items: [{ id: "x", description: 7 }] });
        case "/broken-indexes/modules.json":
          return send(res, 200, { items: [], next: "modules-2.json" });
        case "/broken-indexes/modules-2.json":
          return send(res, 200, "items: []", "text/yaml");
        case "/descriptors/shape.json":
          return send(res, 200, { id: "x", latestVersion: "1.0.0", versions: { "1.0.0": { url: "a.json" } } });
        case "/descriptors/latest.json":
          return send(res, 200, {
            id: "x",
            latestVersion: "2.0.0",
            versions: { "1.0.0": { url: "a.json", sha256: "0".repeat(64) } },
          });
        default:
          return send(res, 404, { error: "not found" });
      }
    }),
  );
}

/**
 * Packs a module (npm pack layout) into a fresh folder, serves it, and returns the archive's URL. With
 * `descriptor`, a `descriptor.json` listing it (with its sha256) is served beside it.
 */
async function serveArchive(
  name: string,
  manifest: Record<string, unknown>,
  main: string,
  options: { descriptor?: boolean } = {},
): Promise<string> {
  const dir = tempDir("cyrnel-archive-");
  mkdirSync(join(dir, "package", "src"), { recursive: true });
  writeFileSync(join(dir, "package", "module.json"), JSON.stringify(manifest));
  writeFileSync(join(dir, "package", "src", "index.js"), main);
  const out = tempDir("cyrnel-served-");
  await tar.c({ gzip: true, portable: true, cwd: dir, file: join(out, name) }, ["package"]);
  if (options.descriptor) {
    const sha256 = createHash("sha256")
      .update(readFileSync(join(out, name)))
      .digest("hex");
    const version = String(manifest.version);
    const versions = { [version]: { url: name, sha256 } };
    writeFileSync(join(out, "descriptor.json"), JSON.stringify({ id: manifest.id, latestVersion: version, versions }));
  }
  const served = await serveRegistry({ root: out });
  cleanups.push(served.close);
  return `${served.url}/${name}`;
}
