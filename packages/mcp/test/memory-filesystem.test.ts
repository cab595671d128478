import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AdapterError, type AdapterModule } from "@cyrnel/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapter, referenceServer, stateOf, stdio } from "./support.js";

/**
 * Two more official reference servers over stdio: `server-memory` (a
 * knowledge graph kept in a file named by its env) and `server-filesystem`
 * (confined to a temporary directory given as its argument). Both declare
 * output schemas, so their calls return structured content.
 */
let mcp: AdapterModule;
const dir = realpathSync(mkdtempSync(join(tmpdir(), "cyrnel-mcp-")));

beforeAll(async () => {
  ({ adapter: mcp } = await adapter());
});

afterAll(async () => {
  await mcp?.teardown();
  rmSync(dir, { recursive: true, force: true });
});

describe("server-memory", () => {
  const memoryFile = join(dir, "memory.jsonl");
  const invoke = (toolId: string, parameters: Record<string, unknown>) =>
    mcp.invoke({ serviceId: "memory", toolId, parameters });

  beforeAll(async () => {
    const definition = await mcp.generateDefinition(
      stdio(referenceServer("memory"), [], { MEMORY_FILE_PATH: memoryFile }),
    );
    expect(definition.tools.map((tool) => tool.id)).toEqual(
      expect.arrayContaining(["create_entities", "create_relations", "read_graph", "search_nodes", "delete_entities"]),
    );
    expect(definition.tools.find((tool) => tool.id === "delete_entities")?.annotations).toMatchObject({
      destructive: true,
    });
    await mcp.hydrateService(stateOf("memory", definition));
  });

  it("creates entities and relations, then reads them back as structured content", async () => {
    await invoke("create_entities", {
      entities: [
        { name: "cyrnel", entityType: "project", observations: ["runs tools"] },
        { name: "mcp", entityType: "protocol", observations: [] },
      ],
    });
    await invoke("create_relations", { relations: [{ from: "cyrnel", to: "mcp", relationType: "speaks" }] });
    const graph = (await invoke("read_graph", {})) as { entities: { name: string }[]; relations: unknown[] };
    expect(graph.entities.map((entity) => entity.name).sort()).toEqual(["cyrnel", "mcp"]);
    expect(graph.relations).toEqual([{ from: "cyrnel", to: "mcp", relationType: "speaks" }]);
    const found = (await invoke("search_nodes", { query: "tools" })) as { entities: { name: string }[] };
    expect(found.entities.map((entity) => entity.name)).toEqual(["cyrnel"]);
    // The server wrote where its env told it to.
    expect(readFileSync(memoryFile, "utf8")).toContain('"name":"cyrnel"');
  });
});

describe("server-filesystem", () => {
  const invoke = (toolId: string, parameters: Record<string, unknown>) =>
    mcp.invoke({ serviceId: "files", toolId, parameters });

  beforeAll(async () => {
    writeFileSync(join(dir, "hello.txt"), "hello from the test\n");
    const definition = await mcp.generateDefinition(stdio(referenceServer("filesystem"), [dir]));
    expect(definition.name).toBe("secure-filesystem-server");
    await mcp.hydrateService(stateOf("files", definition));
  });

  it("reads and writes files inside its directory", async () => {
    expect(await invoke("read_text_file", { path: join(dir, "hello.txt") })).toEqual({
      content: "hello from the test\n",
    });
    await invoke("write_file", { path: join(dir, "written.txt"), content: "written by a tool" });
    expect(readFileSync(join(dir, "written.txt"), "utf8")).toBe("written by a tool");
    const listing = (await invoke("list_directory", { path: dir })) as { content: string };
    expect(listing.content).toContain("[FILE] written.txt");
  });

  it("reports the server's refusal outside its directory as an AdapterError with its text", async () => {
    const error = await invoke("read_text_file", { path: "/etc/hostname" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as Error).message).toMatch(/^MCP tool "read_text_file" failed: .*Access denied/);
  });
});
