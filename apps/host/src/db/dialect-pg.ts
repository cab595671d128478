/**
 * The dialect seam on PostgreSQL (see dialect.ts): drizzle on the
 * node-postgres pool, transactions of the driver's own, advisory locks for
 * hosts that take turns, and changes published to the other hosts (see
 * changes-pg.ts).
 */
import { sql } from "drizzle-orm";
import type { PgChanges, PgTx } from "./changes-pg.js";
import type { PgDb } from "./client-pg.js";
import type { SqlDialect, Tables } from "./dialect.js";
import * as schema from "./schema-pg.js";
import { escapeNul } from "./schema-pg.js";

export function pgDialect(db: PgDb, changes: PgChanges): SqlDialect {
  const transaction: SqlDialect["transaction"] = (body, options) =>
    db.transaction(async (tx) => {
      if (options?.lock !== undefined) {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${options.lock}))`);
      }
      return body(tx);
    });
  return {
    db,
    tables: schema satisfies Tables,
    transaction,
    publish: (tx, change) => changes.publish(tx as PgTx, change),
    write: (change, work) =>
      transaction(async (tx) => {
        const result = await work(tx);
        await changes.publish(tx as PgTx, change);
        return result;
      }),
    forUpdate: <Q>(query: Q) => (query as { for(strength: "update"): Q }).for("update"),
    // Text columns are `COLLATE "C"`, so a plain b-tree index serves a LIKE on a fixed prefix. The prefix is stored
    // text's escaped form (escapeNul: it holds U+0000 so); LIKE's escape character is the backslash by default, which
    // escapes itself, % and _.
    startsWith: (column, prefix) => sql`${column} LIKE ${`${escapeNul(prefix).replace(/[\\%_]/g, "\\$&")}%`}`,
  };
}
