/**
 * Opens the SQLite database (WAL, foreign keys on) and brings its schema up
 * to date with the SQL migrations shipped next to this file. The default
 * dialect: see store.ts for how a host picks one.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { createOwnerOnlyFile } from "../data-dir.js";
import { casefold } from "../lib/casefold.js";
import * as schema from "./schema.js";
import { enumValueText, indexText, toolTitle } from "./search-text.js";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));

export function openDatabase(file: string, migrationsFolder = MIGRATIONS_FOLDER): Db {
  // Owner-only before SQLite opens it; the WAL and shm files SQLite creates take the database file's mode.
  createOwnerOnlyFile(file);
  const sqlite = new Database(file);
  useIncrementalVacuum(sqlite);
  sqlite.pragma("journal_mode = WAL");
  // After a checkpoint the WAL file is cut back to this size instead of keeping its largest burst.
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // SQLite's LIKE/lower() only fold ASCII; search uses this Unicode-aware fold instead.
  sqlite.function("casefold", { deterministic: true }, (value: unknown) =>
    typeof value === "string" ? casefold(value) : value,
  );
  registerSearchFunctions(sqlite);
  // SQLite has no SHA-256; migration 0006 fills in the digest of approvals written before it with this.
  sqlite.function("sha256_hex", { deterministic: true }, (value: unknown) =>
    typeof value === "string" ? createHash("sha256").update(value, "utf8").digest("hex") : null,
  );
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder });
  return db;
}

const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * The functions the tool search index's triggers call (migration 0003): the
 * index holds words made by search-text.ts, which SQL alone cannot split out
 * of `chat_postMessage` or HTML. Registered before the migrations run, since
 * the migration that creates the index also fills it. A connection without
 * them (the sqlite3 shell) can read the database but not write tools.
 */
function registerSearchFunctions(sqlite: Database.Database): void {
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  sqlite.function("tool_search_text", { deterministic: true }, (value: unknown) => indexText(text(value)));
  sqlite.function("tool_search_title", { deterministic: true }, (name: unknown, id: unknown, description: unknown) =>
    toolTitle(text(name) ?? "", text(id) ?? "", text(description) ?? ""),
  );
  sqlite.function("tool_search_enums", { deterministic: true }, (inputSchema: unknown) =>
    enumValueText(text(inputSchema)),
  );
}

/**
 * Incremental auto-vacuum lets deleted rows' pages go back to the file system (db/space.ts). A new database gets it
 * before its first table; a database made by an older version is converted once with VACUUM, which rewrites it (it
 * needs as much free disk as the database's size; if it fails, the conversion is tried again at the next start).
 */
function useIncrementalVacuum(sqlite: Database.Database): void {
  const INCREMENTAL = 2;
  if (sqlite.pragma("auto_vacuum", { simple: true }) === INCREMENTAL) return;
  sqlite.pragma("auto_vacuum = INCREMENTAL");
  if ((sqlite.pragma("page_count", { simple: true }) as number) === 0) return;
  try {
    sqlite.exec("VACUUM");
  } catch {
    // The setting only takes effect through VACUUM; without it the database works as before.
  }
}
