/**
 * Opens the SQLite database (WAL, foreign keys on) and brings its schema up
 * to date with the SQL migrations shipped next to this file.
 */
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { createOwnerOnlyFile } from "../data-dir.js";
import * as schema from "./schema.js";

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
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder });
  return db;
}

const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

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

/** Maps a SQLite constraint violation to whether it was a uniqueness clash (→ 409). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

/** Case folding for search, in SQL (the `casefold` function above) and in memory alike: Unicode-aware. */
export const casefold = (text: string) => text.normalize("NFC").toLowerCase();
