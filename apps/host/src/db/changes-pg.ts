/**
 * How the PostgreSQL stores tell the other hosts sharing the database what
 * they wrote: each write that changes what other hosts hold in memory (a
 * service, its tools, a policy, a module, a key, a registry, config and
 * secrets) sends a change (`{kind, id}`, the change feed's wire form:
 * cluster/change-feed.ts) with `pg_notify` inside the write's own
 * transaction. PostgreSQL delivers it when that transaction commits and
 * never if it rolls back, so a host that receives it can already read the
 * write, and no host reloads a change that did not happen.
 *
 * Until `publishAs` names this host, nothing is sent (a store opened by a
 * tool, not a host). SQLite has nothing like it: its database is one host's.
 */
import { sql } from "drizzle-orm";
import { CHANGES_CHANNEL, type Change, encodeChange } from "../cluster/change-feed.js";
import type { PgDb } from "./client-pg.js";

/** A transaction of the PostgreSQL stores (drizzle's, on node-postgres). */
export type PgTx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

export class PgChanges {
  private origin: string | null = null;

  /** From now on every write publishes its change, as made by `hostId`. */
  publishAs(hostId: string): void {
    this.origin = hostId;
  }

  /** Sends `change` when `tx` commits (one `SELECT pg_notify` in it). */
  async publish(tx: PgTx, change: Change): Promise<void> {
    if (this.origin === null) return;
    await tx.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${encodeChange(change, this.origin)})`);
  }
}
