/**
 * The call store's hook on PostgreSQL (`CallRowWrites`, see call-store.ts):
 * a batch is multi-row inserts, and the identity's sequence is moved past
 * every id written, so it remembers pruned ones.
 */
import { sql } from "drizzle-orm";
import type { NewCallRow } from "../../domain/governance/call-store.js";
import type { PgTx } from "../changes-pg.js";
import type { PgDb } from "../client-pg.js";
import type { SharedDb } from "../dialect.js";
import { calls } from "../schema-pg.js";
import type { CallRowWrites } from "./call-store.js";

/** Rows per insert statement (PostgreSQL takes at most 65,535 parameters in one). */
const ROWS_PER_INSERT = 1000;

export class PgCallRows implements CallRowWrites {
  constructor(private readonly db: PgDb) {}

  async lastId(): Promise<number> {
    const result = await this.db.execute<{ last: string | null }>(
      sql`select greatest(
        (select case when is_called then last_value else 0 end from calls_id_seq),
        (select max(id) from calls)
      )::text as last`,
    );
    return Number(result.rows[0]?.last ?? 0);
  }

  async insert(tx: SharedDb, rows: readonly NewCallRow[]): Promise<void> {
    const highest = rows.reduce((high, row) => Math.max(high, row.id), 0);
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      // `parameters` is JSON text already: stored as it is (the column is json, which keeps the text).
      await tx
        .insert(calls)
        .values(chunk.map((row) => ({ ...row, parameters: sql`${row.parameters}::json` })))
        .onConflictDoNothing();
    }
    await (tx as PgTx).execute(sql`select setval('calls_id_seq', greatest(${highest}::bigint,
      (select case when is_called then last_value else 0 end from calls_id_seq)))`);
  }
}
