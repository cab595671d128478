import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as openapi from "@cyrnel/openapi";
import * as typescriptIvm from "@cyrnel/typescript-ivm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * Tools whose calls cannot authenticate yet are marked where an agent chooses and writes code: the tool lists,
 * search, a tool's answer, its docs page and the published types. On the real Petstore document: `getPetById`
 * needs the secret `api_key`, `addPet` the OAuth scheme `petstore_auth`, `getOrderById` nothing.
 */
let host: InProcessHost;
const document = readFileSync(createRequire(import.meta.url).resolve("@readme/oas-examples/3.0/json/petstore.json"));
const NOTE =
  'Not callable yet: it needs the secret "api_key" of service "petstore", which is not set; calls fail until an operator sets it.';

beforeAll(async () => {
  host = await startInProcess({ builtins: [openapi, typescriptIvm] });
  const environment = await host.api("POST", "/modules/typescript-ivm/enabled", { enabled: true });
  expect(environment.status, environment.text).toBe(200);
  const installed = await host.api("POST", "/services", {
    id: "petstore",
    adapter: "openapi",
    definition: document.toString("utf8"),
    enabled: true,
  });
  expect(installed.status, installed.text).toBe(201);
});
afterAll(() => host?.stop());

const tool = async (toolId: string) => (await host.api("GET", `/tools/petstore/${toolId}`)).body;
const listed = async () => {
  const response = await host.api("GET", "/tools?serviceId=petstore&limit=100");
  expect(response.status, response.text).toBe(200);
  return Object.fromEntries(
    (response.body.items as { id: string; missingSecrets?: string[][] }[]).map((item) => [
      item.id,
      item.missingSecrets,
    ]),
  );
};
const types = async () => {
  const response = await host.api("GET", "/environment/types?tool=petstore/getPetById&tool=petstore/getOrderById");
  expect(response.status, response.text).toBe(200);
  return response.text;
};
const patchSecrets = async (patch: Record<string, unknown>) => {
  const response = await host.api("PATCH", "/services/petstore/secrets", patch);
  expect(response.status, response.text).toBe(200);
};

describe("tools whose required secret is not set", () => {
  it("are marked in the list, search, a tool's answer, its docs and the types; tools needing none are not", async () => {
    const marks = await listed();
    expect(marks.getPetById).toEqual([["api_key"]]);
    expect(marks.getInventory).toEqual([["api_key"]]);
    expect(marks.addPet).toEqual([["petstore_auth"]]);
    expect(marks.getOrderById).toBeUndefined();
    expect((await tool("getPetById")).missingSecrets).toEqual([["api_key"]]);
    expect(await tool("getOrderById")).not.toHaveProperty("missingSecrets");

    const search = await host.api("GET", "/tools?search=find%20pet%20by%20id&limit=3");
    expect(search.status, search.text).toBe(200);
    const found = (search.body.items as { id: string; missingSecrets?: string[][] }[]).find(
      (item) => item.id === "getPetById",
    );
    expect(found?.missingSecrets).toEqual([["api_key"]]);

    const docs = await host.api("GET", "/tools/petstore/getPetById/docs");
    expect(docs.status, docs.text).toBe(200);
    expect(docs.text).toContain(`**${NOTE}**`);
    const text = await types();
    expect(text).toContain(NOTE);
    expect(text.match(/Not callable yet/g)).toHaveLength(1);
  });

  it("are marked in MCP's search_tools too", async () => {
    const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${await host.listen()}/mcp`)));
    try {
      const result = await client.callTool({ name: "search_tools", arguments: { query: "getPetById" } });
      const tools = (result.structuredContent as { tools: { id: string; missingSecrets?: string[][] }[] }).tools;
      expect(tools.find((item) => item.id === "getPetById")?.missingSecrets).toEqual([["api_key"]]);
    } finally {
      await client.close();
    }
  });

  it("lose the mark once the secret is set, and get it back when it is removed (lists and types alike)", async () => {
    await patchSecrets({ api_key: "special-key" });
    expect((await listed()).getPetById).toBeUndefined();
    expect((await listed()).addPet).toEqual([["petstore_auth"]]);
    expect(await types()).not.toContain("Not callable yet");
    await patchSecrets({ api_key: null });
    expect((await listed()).getPetById).toEqual([["api_key"]]);
    expect(await types()).toContain(NOTE);
  });

  it("are not marked on a service that may authenticate otherwise (a secret header is set)", async () => {
    await patchSecrets({ "header:Authorization": "Bearer something" });
    const marks = await listed();
    expect(Object.values(marks).filter((mark) => mark !== undefined)).toEqual([]);
    await patchSecrets({ "header:Authorization": null });
    expect((await listed()).getPetById).toEqual([["api_key"]]);
  });
});
