/**
 * The dialect seam on SQLite (see dialect.ts): drizzle's asynchronous
 * SQLite driver (`sqlite-proxy`) over the host's one better-sqlite3
 * connection, through a gate.
 *
 * better-sqlite3 is synchronous and has one connection, so a transaction
 * whose body awaits would otherwise take in every query that another
 * request runs meanwhile: committed with it, or lost when it rolls back.
 * The gate keeps them apart. While a transaction is open, a query from
 * outside it waits until the transaction ends; the body's own queries
 * (told apart by an AsyncLocalStorage) go ahead, and a transaction opened
 * inside one is a savepoint. With no transaction open, a query runs at once.
 *
 * Statements are prepared once per SQL text and kept (a bounded cache);
 * results come back as arrays, which drizzle maps to rows.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import type { Change } from "../cluster/change-feed.js";
import type { SharedDb, SqlDialect, Tables } from "./dialect.js";
import * as schema from "./schema.js";

/** Distinct SQL texts kept prepared; past it the cache starts over (texts vary with list lengths). */
const STATEMENT_CACHE_SIZE = 500;

type Method = "run" | "all" | "values" | "get";

export class SqliteGate {
  private open: symbol | null = null;
  private depth = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly context = new AsyncLocalStorage<symbol>();

  constructor(private readonly sqlite: Database.Database) {}

  /** Resolves when a query from here may run: no transaction is open, or this is inside it. */
  ready(): Promise<void> | undefined {
    if (this.open === null || this.context.getStore() === this.open) return undefined;
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.ready());
  }

  /**
   * Runs `work` (synchronous) as soon as a query from here may run. Asked again right before it runs: everything
   * woken when a transaction ends resumes in turn, and one that resumed first may have opened the next.
   */
  run<T>(work: () => T): T | Promise<T> {
    // At once when free (most queries): no promise on the way.
    return this.ready() === undefined ? work() : this.runWhenFree(work);
  }

  private async runWhenFree<T>(work: () => T): Promise<T> {
    for (let wait = this.ready(); wait !== undefined; wait = this.ready()) await wait;
    return work();
  }

  async transaction<T>(body: () => Promise<T>): Promise<T> {
    if (this.open !== null && this.context.getStore() === this.open) return this.savepoint(body);
    const token = Symbol("transaction");
    // As any query: free when asked, and taken in the same turn.
    await this.run(() => {
      this.open = token;
    });
    try {
      this.sqlite.exec("BEGIN IMMEDIATE");
      let result: T;
      try {
        // Awaited inside the context: a body may return a query builder, which runs only when awaited.
        result = await this.context.run(token, async () => await body());
      } catch (error) {
        if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
        throw error;
      }
      try {
        this.sqlite.exec("COMMIT");
      } catch (error) {
        // A commit that fails (a full disk) leaves the transaction open: end it, losing nothing committed before.
        if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
        throw error;
      }
      return result;
    } finally {
      this.open = null;
      for (const wake of this.waiting.splice(0)) wake();
    }
  }

  private async savepoint<T>(body: () => Promise<T>): Promise<T> {
    const name = `sp${++this.depth}`;
    this.sqlite.exec(`SAVEPOINT ${name}`);
    try {
      const result = await body();
      this.sqlite.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.sqlite.exec(`ROLLBACK TO ${name}`);
      this.sqlite.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.depth--;
    }
  }
}

export function sqliteDialect(sqlite: Database.Database, gate: SqliteGate): SqlDialect {
  const statements = new Map<string, Database.Statement>();
  const prepared = (text: string): Database.Statement => {
    let statement = statements.get(text);
    if (statement === undefined) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statement = sqlite.prepare(text);
      // Rows come back as arrays (drizzle maps them), set once per statement.
      if (statement.reader) statement.raw(true);
      statements.set(text, statement);
    }
    return statement;
  };
  const run = (text: string, params: unknown[], method: Method) => {
    const statement = prepared(text);
    if (method === "run") return statement.run(...params);
    if (!statement.reader) {
      statement.run(...params);
      return { rows: [] };
    }
    return { rows: method === "get" ? statement.get(...params) : statement.all(...params) };
  };
  const db = drizzle(
    // biome-ignore lint/suspicious/noExplicitAny: drizzle's proxy result is loosely typed (rows, or a run's info).
    (text, params, method) => gate.run(() => run(text, params, method) as any),
    { schema },
  );
  const shared = db as unknown as SharedDb;
  return {
    db: shared,
    tables: schema as unknown as Tables,
    transaction: (body) => gate.transaction(() => body(shared)),
    publish: async (_tx: SharedDb, _change: Change) => undefined,
    write: (_change, work) => gate.transaction(() => work(shared)),
    forUpdate: (query) => query,
    // GLOB's only special characters are * ? and [ : each is matched as itself inside a bracket.
    startsWith: (column, prefix) => sql`${column} GLOB ${`${prefix.replace(/[*?[]/g, "[$&]")}*`}`,
  };
}
