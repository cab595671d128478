import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceDefinition, ToolDefinition } from "@cyrnel/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { turnsDuring } from "../../../test/support/event-loop.js";
import { type NewService, toolRows } from "../../domain/services/service-store.js";
import { isUniqueViolation } from "../../lib/unique-violation.js";
import { searchQuery } from "../search-query.js";
import { openSqliteStore, type SqliteStore } from "../store-sqlite.js";

const tool = (id: string, description = `Does ${id}.`): ToolDefinition => ({
  id,
  name: id,
  description,
  inputSchema: { type: "object", properties: { status: { enum: ["available", "sold"] } } },
  outputSchema: { type: "object" },
  adapterDomain: { route: id },
});

async function service(id: string, tools: ToolDefinition[], name = id): Promise<NewService> {
  const definition: ServiceDefinition = {
    name,
    description: `The ${name} API`,
    configSchema: {},
    secretsSchema: {},
    adapterDomain: {},
    tools,
  };
  return {
    id,
    adapter: "openapi",
    definition,
    tools: await toolRows(definition),
    text: "{}",
    hash: "h",
    source: null,
    version: null,
  };
}

/**
 * The service store over SQLite's hooks (service-dialect-sqlite.ts): what
 * the end-to-end suites cannot reach directly, such as two definitions
 * written at once through the gate. Both dialects run the suites in test/.
 */
describe("ServiceStore (SQLite)", () => {
  let store: SqliteStore;
  beforeEach(() => {
    store = openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-services-")), () => undefined);
  });
  afterEach(async () => {
    await store.close();
  });

  const autocheckpoint = async () =>
    (await store.query<{ wal_autocheckpoint: number }>("pragma wal_autocheckpoint"))[0]!.wal_autocheckpoint;

  it("writes two definitions at once, each whole, and puts the WAL's checkpoint setting back after both", async () => {
    const before = await autocheckpoint();
    const many = Array.from({ length: 300 }, (_, index) => tool(`op${index}`));
    await Promise.all([
      store.services.insert(await service("first", many)),
      store.services.insert(await service("second", many.slice(0, 10))),
    ]);
    expect((await store.services.get("first"))?.toolCount).toBe(300);
    expect((await store.services.get("second"))?.toolCount).toBe(10);
    expect(await autocheckpoint()).toBe(before);
  });

  it("refuses a second service of one id as a unique violation, keeping the first", async () => {
    await store.services.insert(await service("shop", [tool("listPets")]));
    const error = await store.services.insert(await service("shop", [tool("other")])).catch((caught) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    expect(await store.services.toolIdsOf("shop")).toEqual(["listPets"]);
  });

  it("replaces a definition keeping each surviving tool's flag, and re-indexes it for search", async () => {
    const first = [tool("listPets", "Shows every animal."), tool("deletePet")];
    await store.services.insert(await service("shop", first, "Pet Shop"));
    await store.services.setToolEnabled("shop", "deletePet", false);
    const next = await service("shop", [tool("deletePet"), tool("findOwners", "Finds owners by name.")], "Owner Shop");
    await store.services.replaceDefinition("shop", next);
    const tools = await store.services.toolsOf("shop");
    expect(tools.map((row) => [row.id, row.position, row.enabled])).toEqual([
      ["deletePet", 0, false],
      ["findOwners", 1, true],
    ]);
    const search = async (text: string) =>
      (
        await store.services.searchTools({
          ...searchQuery(text)!,
          includeDisabled: true,
          offset: 0,
          limit: 10,
        })
      ).map((row) => row.id);
    // The title first, then the tool whose service's new name has the word; the removed tool's words are gone.
    expect(await search("owners")).toEqual(["findOwners", "deletePet"]);
    expect(await search("animal")).toEqual([]);
  });

  it("filters ?query= case-insensitively beyond ASCII", async () => {
    await store.services.insert(await service("cafe", [tool("order", "Bestellt ÜBER die Theke.")], "Café Crème"));
    expect((await store.services.list({ query: "CAFÉ", limit: 10 })).map((row) => row.id)).toEqual(["cafe"]);
    expect((await store.services.listTools({ query: "über", limit: 10 })).map((row) => row.id)).toEqual(["order"]);
  });

  /** A tool whose input schema's JSON text is about `chars` long (a large API's tool). */
  const bigTool = (id: string, chars: number): ToolDefinition => ({
    ...tool(id),
    inputSchema: { type: "object", description: `${id} `.padEnd(chars, "x") },
  });

  it("reads a large service's schemas in slices, letting the event loop run between them, into the same text", async () => {
    // 8 small tools, then 16 of 1 MB: a slice of the small ones, then one per large tool (slices sized by the small
    // ones alone would take every large tool at once).
    const tools = Array.from({ length: 24 }, (_, index) =>
      index < 8 ? bigTool(`op${index}`, 100) : bigTool(`op${index}`, 1_000_000),
    );
    await store.services.insert(await service("big", tools));
    await store.services.update("big", { enabled: true });
    const json = await turnsDuring(() => store.services.toolsJson("big"));
    const chars = await turnsDuring(() => store.services.toolSchemaChars("big"));
    expect(json.turns).toBeGreaterThanOrEqual(8);
    expect(chars.turns).toBeGreaterThanOrEqual(6);
    // Handed on in parts (a slice each), never as one string of them all.
    expect(json.result.toolsJson.length).toBeGreaterThanOrEqual(8);
    const parsed = JSON.parse(json.result.toolsJson.join("")) as { toolId: string; inputSchema: unknown }[];
    expect(parsed.map((entry) => entry.toolId)).toEqual(tools.map((entry) => entry.id));
    expect(parsed.map((entry) => entry.inputSchema)).toEqual(tools.map((entry) => entry.inputSchema));
    expect(chars.result.map((row) => row.id)).toEqual(tools.map((entry) => entry.id));
    expect(chars.result[5]?.chars).toBe(JSON.stringify(tools[5]?.inputSchema).length + '{"type":"object"}'.length);
    // Named tools, in position order whatever order they were asked in.
    const named = await store.services.toolsJson("big", ["op20", "op3"]);
    expect((JSON.parse(named.toolsJson.join("")) as { toolId: string }[]).map((entry) => entry.toolId)).toEqual([
      "op3",
      "op20",
    ]);
  });

  it("reads a service changed while its slices are read again, so that every tool answered is of one revision", async () => {
    const tools = Array.from({ length: 24 }, (_, index) => bigTool(`op${index}`, 1_000_000));
    await store.services.insert(await service("big", tools));
    await store.services.update("big", { enabled: true });
    const before = (await store.services.toolsJson("big")).revision;
    let switched: Promise<unknown> | undefined;
    const { result } = await turnsDuring(
      () => store.services.toolsJson("big"),
      // Half-way through the first read, one of its first tools (already read) is switched off.
      (turn) => {
        if (turn === 4) switched = store.services.setToolEnabled("big", "op1", false);
      },
    );
    await switched;
    expect(result.revision).not.toBe(before);
    expect(result.revision).toBe((await store.services.catalog()).big?.revision);
    const ids = (JSON.parse(result.toolsJson.join("")) as { toolId: string }[]).map((entry) => entry.toolId);
    expect(ids).toEqual(tools.map((entry) => entry.id).filter((id) => id !== "op1"));
  });

  it("pages by sizes measured at the revision it reads, and measures again when the service changed since", async () => {
    await store.services.insert(await service("shop", [tool("listPets"), tool("getPet")]));
    await store.services.update("shop", { enabled: true });
    const before = (await store.services.catalog()).shop?.revision as string;
    const sizes = new Map((await store.services.toolSchemaChars("shop")).map((row) => [row.id, row.chars]));
    const ids = async (measured: { revision: string; sizes: ReadonlyMap<string, number> }) =>
      (
        JSON.parse((await store.services.toolsJson("shop", undefined, measured)).toolsJson.join("")) as {
          toolId: string;
        }[]
      ).map((entry) => entry.toolId);
    expect(await ids({ revision: before, sizes })).toEqual(["listPets", "getPet"]);
    // A tool added since those sizes were measured is answered too.
    await store.services.replaceDefinition(
      "shop",
      await service("shop", [tool("listPets"), tool("getPet"), tool("addPet")]),
    );
    expect(await ids({ revision: before, sizes })).toEqual(["listPets", "getPet", "addPet"]);
  });

  it("gives tools' schemas as their stored text, unparsed", async () => {
    await store.services.insert(await service("shop", [tool("listPets")]));
    await store.services.update("shop", { enabled: true });
    const { toolsJson } = await store.services.toolsJson("shop");
    const rows = await store.services.toolSchemaChars("shop");
    const stored = JSON.stringify(tool("listPets").inputSchema) + JSON.stringify(tool("listPets").outputSchema);
    expect(rows).toEqual([{ id: "listPets", chars: stored.length }]);
    expect(JSON.parse(toolsJson.join(""))).toEqual([
      {
        serviceId: "shop",
        toolId: "listPets",
        description: "Does listPets.",
        inputSchema: tool("listPets").inputSchema,
        outputSchema: tool("listPets").outputSchema,
      },
    ]);
  });
});
