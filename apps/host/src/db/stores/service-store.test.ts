import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceDefinition, ToolDefinition } from "@cyrnel/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

  it("gives tools' schemas as their stored text, unparsed", async () => {
    await store.services.insert(await service("shop", [tool("listPets")]));
    await store.services.update("shop", { enabled: true });
    const { toolsJson } = await store.services.toolsJson("shop");
    const rows = await store.services.toolSchemaChars("shop");
    const stored = JSON.stringify(tool("listPets").inputSchema) + JSON.stringify(tool("listPets").outputSchema);
    expect(rows).toEqual([{ id: "listPets", chars: stored.length }]);
    expect(JSON.parse(toolsJson)).toEqual([
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
