/**
 * The call store's hook on SQLite (`CallRowWrites`, see call-store.ts): a
 * batch is one prepared insert per row, and AUTOINCREMENT keeps the highest
 * id in `sqlite_sequence` after the rows are pruned.
 *
 * The rows go in through the synchronous driver on the one connection, not
 * through the seam's asynchronous `db`, as the per-row cost of the SQLite
 * store has always been: a batch is up to thousands of rows, and an awaited
 * query per row adds about 40% to a row's CPU time. This is safe
 * only inside the batch's transaction, which holds the connection (the
 * gate's, see dialect-sqlite.ts): `insert` runs nowhere else.
 */
import { sql } from "drizzle-orm";
import type { NewCallRow } from "../../domain/governance/call-store.js";
import type { Db } from "../client.js";
import type { SharedDb } from "../dialect.js";
import type { SqliteGate } from "../dialect-sqlite.js";
import { calls } from "../schema.js";
import type { CallRowWrites } from "./call-store.js";

const param = (name: string) => sql.placeholder(name);

export class SqliteCallRows implements CallRowWrites {
  private readonly statements;

  constructor(
    db: Db,
    private readonly gate: SqliteGate,
  ) {
    this.statements = {
      insert: db
        .insert(calls)
        .values({
          id: param("id"),
          processId: param("processId"),
          executionId: param("executionId"),
          keyId: param("keyId"),
          serviceId: param("serviceId"),
          toolId: param("toolId"),
          startedAt: param("startedAt"),
          durationMs: param("durationMs"),
          outcome: param("outcome"),
          status: param("status"),
          connectionId: param("connectionId"),
          // JSON text already: bound as it is, not through the column (which would encode it again).
          parameters: sql`${param("parameters")}`,
        })
        .onConflictDoNothing()
        .prepare(),
      lastId: db.$client.prepare<[], { seq: number }>("select seq from sqlite_sequence where name = 'calls'"),
    };
  }

  async lastId(): Promise<number> {
    return (await this.gate.run(() => this.statements.lastId.get()))?.seq ?? 0;
  }

  /** `tx` is the one connection, in the batch's transaction. */
  async insert(_tx: SharedDb, rows: readonly NewCallRow[]): Promise<void> {
    for (const row of rows) this.statements.insert.run(row);
  }
}
