import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrationsBefore } from "../../test/support/migrations.js";
import { MIGRATIONS_FOLDER, openDatabase } from "./client.js";
import { SqliteGate, sqliteDialect } from "./dialect-sqlite.js";
import { searchQuery } from "./search-query.js";
import { SqliteServiceDialect } from "./stores/service-dialect-sqlite.js";
import { SqlServiceStore } from "./stores/service-store.js";

const tables = (file: string) =>
  new Database(file, { readonly: true })
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%' order by name",
    )
    .all()
    .map((row) => (row as { name: string }).name);

describe("migrations", () => {
  it("create every table in an empty data dir, in WAL mode", () => {
    const file = join(mkdtempSync(join(tmpdir(), "cyrnel-db-")), "data.db");
    const db = openDatabase(file);
    expect(db.$client.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.$client.pragma("foreign_keys", { simple: true })).toBe(1);
    db.$client.close();
    expect(tables(file).filter((name) => !name.startsWith("tool_search"))).toEqual([
      "api_keys",
      "approvals",
      "calls",
      "connection_requests",
      "connections",
      "executions",
      "modules",
      "oauth_subjects",
      "processes",
      "registries",
      "run_journal",
      "secrets",
      "service_oauth",
      "service_policies",
      "services",
      "tool_input_overrides",
      "tools",
    ]);
  });

  it("upgrade a database on the previous schema and keep its rows", () => {
    const file = join(mkdtempSync(join(tmpdir(), "cyrnel-db-")), "data.db");
    const old = openDatabase(file, migrationsBefore(MIGRATIONS_FOLDER, "0005_governance"));
    const now = new Date().toISOString();
    old.$client
      .prepare(
        `insert into services (id, name, description, adapter, hash, definition, adapter_domain, config_schema,
          secrets_schema, config, enabled, created_at, updated_at)
         values ('kept', 'Kept', 'd', 'openapi', 'h', '{}', '{}', '{}', '{}', '{"a":1}', 1, ?, ?)`,
      )
      .run(now, now);
    const insertTool = old.$client.prepare(
      `insert into tools (service_id, id, position, name, description, input_schema, output_schema, adapter_domain)
       values ('kept', ?, ?, 'n', 'd', '{}', '{}', ?)`,
    );
    insertTool.run("getThing", 0, JSON.stringify({ method: "get", path: "/things/{id}" }));
    insertTool.run("dropThing", 1, JSON.stringify({ method: "delete", path: "/things/{id}" }));
    insertTool.run("unrouted", 2, "{}");
    old.$client.close();
    const before = tables(file);

    const upgraded = openDatabase(file);
    const row = upgraded.$client.prepare("select id, config, enabled from services").get();
    const tools = upgraded.$client.prepare("select id, annotations from tools order by position").all() as {
      id: string;
      annotations: string;
    }[];
    upgraded.$client.close();
    expect(row).toEqual({ id: "kept", config: '{"a":1}', enabled: 1 });
    // The openapi adapter's tools get its annotations from their method; a tool without one claims nothing.
    expect(tools.map((tool) => [tool.id, JSON.parse(tool.annotations)])).toEqual([
      ["getThing", { readOnly: true, destructive: false, idempotent: false, openWorld: true }],
      ["dropThing", { readOnly: false, destructive: true, idempotent: true, openWorld: true }],
      ["unrouted", {}],
    ]);
    expect(tables(file).length).toBeGreaterThan(before.length);
  });

  it("build the search index of tools that existed before it, with their endpoints", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cyrnel-db-")), "data.db");
    const old = openDatabase(file, migrationsBefore(MIGRATIONS_FOLDER, "0003_tool_search"));
    const now = new Date().toISOString();
    const insertService = old.$client.prepare(
      `insert into services (id, name, description, adapter, hash, definition, adapter_domain, config_schema,
        secrets_schema, created_at, updated_at) values (?, ?, '', ?, 'h', '{}', '{}', '{}', '{}', ?, ?)`,
    );
    insertService.run("shop", "Pet Shop", "openapi", now, now);
    insertService.run("other", "Other", "recorder", now, now);
    const insertTool = old.$client.prepare(
      `insert into tools (service_id, id, position, name, description, input_schema, output_schema, adapter_domain)
       values (?, ?, ?, ?, ?, ?, '{}', ?)`,
    );
    const status = JSON.stringify({ properties: { status: { enum: ["available", "sold"] } } });
    insertTool.run(
      "shop",
      "findPetsByStatus",
      0,
      "Finds Pets by status",
      "<p>By status</p>",
      status,
      JSON.stringify({ method: "get", path: "/pet/findByStatus" }),
    );
    insertTool.run(
      "other",
      "sendLetter",
      0,
      "sendLetter",
      "Posts a letter. Slowly.",
      "{}",
      JSON.stringify({ method: "post", path: "/letters" }),
    );
    old.$client.close();

    const db = openDatabase(file);
    const gate = new SqliteGate(db.$client);
    const store = new SqlServiceStore(sqliteDialect(db.$client, gate), new SqliteServiceDialect(db.$client, gate));
    const search = async (text: string) =>
      (await store.searchTools({ ...searchQuery(text)!, includeDisabled: true, offset: 0, limit: 10 })).map(
        (row) => `${row.serviceId}.${row.id}`,
      );
    const endpoints = db.$client.prepare("select id, endpoint from tools order by id").all();
    // Only the openapi adapter's routing is read, once, here; other adapters give their endpoints from now on.
    expect(endpoints).toEqual([
      { id: "findPetsByStatus", endpoint: "GET /pet/findByStatus" },
      { id: "sendLetter", endpoint: null },
    ]);
    expect(await search("list available pets")).toEqual(["shop.findPetsByStatus"]);
    expect(await search("pet shop")).toEqual(["shop.findPetsByStatus"]);
    expect(await search("posts a letter")).toEqual(["other.sendLetter"]);
    expect(await search("html")).toEqual([]);
    // The index is keyed by the tools' row ids; VACUUM keeps them (tools has indexes, so SQLite copies rows as
    // they are): a gap left by a deleted tool must not shift another tool's words onto it.
    db.$client.prepare("delete from services where id = 'shop'").run();
    db.$client.exec("VACUUM");
    expect(await search("posts a letter")).toEqual(["other.sendLetter"]);
    expect(await search("pets")).toEqual([]);
    db.$client.close();
  });

  it("are idempotent: opening twice applies nothing new", () => {
    const file = join(mkdtempSync(join(tmpdir(), "cyrnel-db-")), "data.db");
    openDatabase(file).$client.close();
    const db = openDatabase(file);
    const applied = db.$client.prepare("select count(*) as n from __drizzle_migrations").get() as { n: number };
    db.$client.close();
    expect(applied.n).toBe(
      JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")).entries.length,
    );
  });

  it("convert a database made without incremental auto-vacuum, keeping its rows", () => {
    const file = join(mkdtempSync(join(tmpdir(), "cyrnel-db-")), "data.db");
    const old = new Database(file);
    old.pragma("journal_mode = WAL");
    old.exec("create table legacy (x text)");
    old.prepare("insert into legacy values (?)").run("kept");
    old.close();
    expect(new Database(file).pragma("auto_vacuum", { simple: true })).toBe(0);

    const db = openDatabase(file);
    expect(db.$client.pragma("auto_vacuum", { simple: true })).toBe(2);
    expect(db.$client.prepare("select x from legacy").get()).toEqual({ x: "kept" });
    db.$client.close();
  });
});
