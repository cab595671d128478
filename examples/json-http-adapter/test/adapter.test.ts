import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { AdapterModule, ServiceDefinition, ServiceState } from "@cyrnel/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";

const root = join(import.meta.dirname, "..");

const descriptor = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    name: "Shop",
    description: "A tiny shop",
    baseUrl: "http://127.0.0.1:1",
    auth: { type: "bearer" },
    endpoints: [
      { id: "getItem", method: "get", path: "/items/{itemId}", description: "One item", output: { type: "object" } },
      {
        id: "searchItems",
        method: "GET",
        path: "/items",
        input: {
          type: "object",
          properties: { q: { type: "string" }, tag: { type: "array", items: { type: "string" } } },
        },
      },
      {
        id: "createItem",
        method: "POST",
        path: "/items",
        input: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
      { id: "teapot", method: "GET", path: "/teapot" },
      { id: "slow", method: "GET", path: "/slow" },
    ],
    ...extra,
  });

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];

async function read(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await read(req);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (req.url === "/teapot") return json(418, { error: "I am a teapot" });
    if (req.url === "/slow") return void setTimeout(() => json(200, {}), 500);
    if (req.method === "POST") return json(201, { created: JSON.parse(body) });
    return json(200, { url: req.url });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

/** The error a call rejects with (fails the test when it resolves). */
async function rejection(call: Promise<unknown>): Promise<any> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

afterAll(() => {
  server?.close();
});

async function hydrated(
  config: Record<string, unknown> = {},
  descriptorExtra: Record<string, unknown> = {},
): Promise<{ adapter: AdapterModule; definition: ServiceDefinition }> {
  const adapter = instantiate();
  const definition = await adapter.generateDefinition(descriptor(descriptorExtra));
  const state: ServiceState = {
    id: "shop",
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((tool) => [tool.id, { adapterDomain: tool.adapterDomain }])),
    config: { baseUrl, timeoutMs: 10_000, headers: {}, ...config },
    secrets: { token: "s3cret-token" },
  };
  await adapter.hydrateService(state);
  return { adapter, definition };
}

describe("generateDefinition", () => {
  it("turns endpoints into tools, with path parameters required", async () => {
    const definition = await instantiate().generateDefinition(descriptor());
    expect(definition.name).toBe("Shop");
    expect(definition.tools.map((tool) => tool.id)).toEqual(["getItem", "searchItems", "createItem", "teapot", "slow"]);
    expect(definition.tools[0]).toMatchObject({
      name: "getItem",
      description: "One item",
      inputSchema: { type: "object", properties: { itemId: { type: "string" } }, required: ["itemId"] },
      outputSchema: { type: "object", properties: { status: { type: "integer" }, body: { type: "object" } } },
      adapterDomain: { method: "GET", path: "/items/{itemId}", pathParams: ["itemId"] },
    });
    expect(definition.configSchema).toMatchObject({ properties: { baseUrl: { default: "http://127.0.0.1:1" } } });
    expect(definition.secretsSchema).toMatchObject({ required: ["token"] });
  });

  it("is pure: the same text gives the same definition", async () => {
    const adapter = instantiate();
    expect(await adapter.generateDefinition(descriptor())).toEqual(
      await instantiate().generateDefinition(descriptor()),
    );
  });

  it.each([
    ["not JSON", "{", "not valid JSON"],
    ["no endpoints", JSON.stringify({ name: "x", baseUrl: "http://h", endpoints: [] }), '"endpoints" must be'],
    ["a bad method", descriptor({ endpoints: [{ id: "a", method: "FETCH", path: "/" }] }), "must be one of GET"],
    ["a bad id", descriptor({ endpoints: [{ id: "a-b", method: "GET", path: "/" }] }), "valid identifier"],
    [
      "a duplicate id",
      descriptor({
        endpoints: [
          { id: "a", method: "GET", path: "/" },
          { id: "a", method: "GET", path: "/x" },
        ],
      }),
      "used twice",
    ],
    ["a non-http baseUrl", descriptor({ baseUrl: "file:///etc" }), "http(s) URL"],
    [
      "the 1.x route shorthand",
      descriptor({ endpoints: [{ id: "a", route: "GET /a" }] }),
      "endpoints[0].route is no longer supported",
    ],
  ])("rejects %s", async (_name, text, message) => {
    await expect(instantiate().generateDefinition(text)).rejects.toThrow(message);
  });
});

describe("invoke", () => {
  it("fills path parameters and sends the rest as a query string, with the bearer token", async () => {
    const { adapter } = await hydrated();
    const item = await adapter.invoke({ serviceId: "shop", toolId: "getItem", parameters: { itemId: "a/b c" } });
    expect(item).toEqual({ status: 200, body: { url: "/items/a%2Fb%20c" } });
    const found = await adapter.invoke({
      serviceId: "shop",
      toolId: "searchItems",
      parameters: { q: "tea", tag: ["green", "loose"] },
    });
    expect(found).toEqual({ status: 200, body: { url: "/items?q=tea&tag=green&tag=loose" } });
    expect(seen.at(-1)?.headers.authorization).toBe("Bearer s3cret-token");
  });

  it("sends the token in the named header for header auth", async () => {
    const { adapter } = await hydrated({}, { auth: { type: "header", name: "x-api-key" } });
    await adapter.invoke({ serviceId: "shop", toolId: "getItem", parameters: { itemId: "1" } });
    expect(seen.at(-1)?.headers["x-api-key"]).toBe("s3cret-token");
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("sends a JSON body for POST with the configured headers, and returns the status", async () => {
    const { adapter } = await hydrated({ headers: { "x-trace": "1" } });
    const created = await adapter.invoke({ serviceId: "shop", toolId: "createItem", parameters: { name: "Pot" } });
    expect(created).toEqual({ status: 201, body: { created: { name: "Pot" } } });
    expect(seen.at(-1)?.headers).toMatchObject({ "content-type": "application/json", "x-trace": "1" });
  });

  it("throws with status and body on a non-2xx answer", async () => {
    const { adapter } = await hydrated();
    const error = await rejection(adapter.invoke({ serviceId: "shop", toolId: "teapot", parameters: {} }));
    expect(error.message).toBe(`GET ${baseUrl}/teapot answered 418`);
    expect(error.status).toBe(418);
    expect(error.body).toEqual({ error: "I am a teapot" });
  });

  it("names the URL but never the token when the request fails or times out", async () => {
    const { adapter } = await hydrated({ baseUrl: "http://127.0.0.1:9", timeoutMs: 300 });
    const refused = await rejection(adapter.invoke({ serviceId: "shop", toolId: "teapot", parameters: {} }));
    expect(refused.message).toContain("GET http://127.0.0.1:9/teapot failed");
    expect(refused.message).not.toContain("s3cret");
    const { adapter: slow } = await hydrated({ timeoutMs: 100 });
    const timedOut = await rejection(slow.invoke({ serviceId: "shop", toolId: "slow", parameters: {} }));
    expect(timedOut.message).toContain("timed out after 100 ms");
  });

  it("forgets a dehydrated service", async () => {
    const { adapter } = await hydrated();
    await adapter.dehydrateService("shop");
    await adapter.dehydrateService("shop");
    await expect(adapter.invoke({ serviceId: "shop", toolId: "getItem", parameters: { itemId: "1" } })).rejects.toThrow(
      "not hydrated",
    );
  });
});

describe("the module folder", () => {
  it("has a module.json that matches package.json and points at its main", () => {
    const manifest = JSON.parse(readFileSync(join(root, "module.json"), "utf8"));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(manifest.version).toBe(pkg.version);
    expect(existsSync(join(root, manifest.main))).toBe(true);
  });

  it("imports nothing at run time but its own files and node: builtins (no node_modules needed)", () => {
    for (const file of readdirSync(join(root, "src")).filter((name) => name.endsWith(".js"))) {
      const source = readFileSync(join(root, "src", file), "utf8");
      const specifiers = [...source.matchAll(/^\s*(?:import|export)\s(?:[^;"]*?\sfrom\s+)?"([^"]+)"/gm)].map(
        (match) => match[1],
      );
      if (file === "index.js") expect(specifiers).toEqual(["./descriptor.js", "./request.js"]);
      for (const specifier of specifiers) expect(specifier, `${file} imports ${specifier}`).toMatch(/^(\.\/|node:)/);
    }
  });
});
