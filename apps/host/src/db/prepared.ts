/**
 * Statements a store prepares once, for its hot paths: drizzle's
 * `.prepare(name)`, then `await statement.execute({...})` with the values of
 * its `sql.placeholder(...)`s. Building a query costs drizzle more than
 * SQLite takes to run it, so the statements every process and every tool
 * call runs are built once, not per call.
 *
 * A prepared statement runs on the query runner it was prepared on, so one
 * used inside a transaction must be prepared on that transaction's `tx`.
 * `perRunner` keeps what it builds per runner: on SQLite every transaction's
 * `tx` is the dialect's one `db` (dialect-sqlite.ts), so the statements are
 * built once for the host's life; on PostgreSQL a transaction has a
 * connection of its own, so they are built again for each (what an
 * unprepared query costs there), and the server parses each name once per
 * connection. Store code is the same on both: it asks for the statements of
 * the `tx` it has.
 */
import { type Column, type SQL, sql } from "drizzle-orm";
import type { SharedDb } from "./dialect.js";

/** `build` run at most once per query runner (`db`, or a transaction's `tx`). */
export function perRunner<S>(build: (db: SharedDb) => S): (db: SharedDb) => S {
  const built = new WeakMap<SharedDb, S>();
  return (db) => {
    let statements = built.get(db);
    if (statements === undefined) {
      statements = build(db);
      built.set(db, statements);
    }
    return statements;
  };
}

/**
 * The value of the statement's placeholder `name` (given to `execute`), in `values` and `set`: bound through `column`
 * as a value written in place would be (PostgreSQL's escaped text, SQLite's JSON as text). Null stays null; drizzle
 * would hand a bare placeholder's null to the column too, and PostgreSQL's escaped text cannot take it.
 */
export function placeholderOf(column: Column, name: string): SQL {
  const encoder = { mapToDriverValue: (value: unknown) => (value === null ? null : column.mapToDriverValue(value)) };
  return sql`${sql.param<unknown, unknown>(sql.placeholder(name), encoder)}`;
}
