/**
 * The dialect seam: what every store (`db/stores/`) gets from its
 * database, the same on SQLite and PostgreSQL. A store is written once,
 * with drizzle's query builders, against this; the two implementations
 * (`sqlite/dialect.ts`, `pg/dialect.ts`) hold what truly differs.
 *
 * How one store runs on both: drizzle builds each query from the table
 * objects it is given, and those are the dialect's own (`tables` is
 * schema.ts's on SQLite, schema-pg.ts's on PostgreSQL), so every column
 * maps its values the way its dialect stores them (a boolean as 0/1 or as
 * `boolean`, JSON as text or as `json`) and every query is that dialect's
 * SQL. Both drivers are asynchronous behind drizzle (SQLite's through the
 * gate of sqlite/dialect.ts), so a query is always awaited, never `.all()`
 * or `.get()`. The stores are typed against the PostgreSQL schema; the
 * SQLite schema declares the same columns with the same TypeScript types,
 * and schema-parity.ts makes any drift a compile error.
 *
 * What a store may not do through `db`: anything one dialect lacks
 * (`FOR UPDATE`, `ilike`, raw `execute`). Those are the seam's methods
 * below, or a hook of the store's own (its constructor takes one per
 * dialect: tool search, for one).
 */
import type { SQL, SQLWrapper } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Change } from "../cluster/change-feed.js";
import type * as pgSchema from "./schema-pg.js";

/** The tables the stores share (schema-pg.ts's types; on SQLite, schema.ts's objects). */
export type Tables = Pick<
  typeof pgSchema,
  | "modules"
  | "services"
  | "tools"
  | "toolInputOverrides"
  | "secrets"
  | "processes"
  | "executions"
  | "runJournal"
  | "registries"
  | "apiKeys"
  | "oauthSubjects"
  | "servicePolicies"
  | "approvals"
  | "calls"
  | "serviceOAuth"
  | "connections"
  | "connectionRequests"
>;

/** The query builders both dialects run alike; a transaction is one of these too. */
export type SharedDb = Pick<NodePgDatabase<typeof pgSchema>, "select" | "insert" | "update" | "delete">;

export interface TransactionOptions {
  /**
   * Hosts that share a PostgreSQL database take turns on this name for the
   * transaction (an advisory lock). SQLite has one host, whose transactions
   * already run one at a time.
   */
  lock?: string;
}

export interface SqlDialect {
  readonly db: SharedDb;
  readonly tables: Tables;
  /**
   * Runs `body` in a transaction; its queries go through `tx`. The body may
   * await: on SQLite nothing else reaches the database until it ends (other
   * queries wait; the body's own, even through `db`, go ahead). It commits
   * when the body resolves and rolls back when it throws.
   */
  transaction<T>(body: (tx: SharedDb) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Tells the other hosts sharing the database about `change` when `tx`
   * commits, and never if it rolls back (PostgreSQL's `pg_notify`, see
   * pg/changes.ts). Nothing on SQLite, whose database is one host's.
   */
  publish(tx: SharedDb, change: Change): Promise<void>;
  /** A write in a transaction of its own that also publishes `change`. */
  write<T>(change: Change, work: (tx: SharedDb) => Promise<T>): Promise<T>;
  /**
   * `query` locking the rows it reads until the transaction ends (`FOR
   * UPDATE`), so a second writer on another host waits; SQLite's
   * transactions already exclude each other, and it is `query` unchanged.
   */
  forUpdate<Q>(query: Q): Q;
  /**
   * `column` starts with `prefix`, case-sensitively, the prefix's wildcards taken as themselves, in a form the
   * dialect answers from a b-tree index on the column: SQLite's GLOB (its LIKE folds ASCII case, which an index in
   * the column's own order cannot serve), PostgreSQL's LIKE (its text is `COLLATE "C"`, whose plain index serves a
   * fixed prefix). A hook because the two share no such form, nor the same wildcards to escape.
   */
  startsWith(column: SQLWrapper, prefix: string): SQL;
}
