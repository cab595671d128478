/**
 * The little the cluster blocks need of node-postgres: something to run a
 * query on (a pool, or the caller's client inside its own transaction), a
 * transaction helper, and a no-op logger default. Only `pg` types, so the
 * blocks built on this alone (the listener, the change feed, leases, the
 * queue, signals, run events, the mutex, the archive store) need neither the
 * host's stores nor drizzle; the compositions (process-cluster.ts,
 * change-sync.ts) and execution-runs.ts are what tie them to the host.
 */
import type { Logger } from "@cyrnel/sdk";
import type pg from "pg";

/** A pool, or a client the caller holds (possibly inside a transaction it opened). */
export type Queryable = Pick<pg.ClientBase, "query">;

/** Runs `work` in one transaction on a client of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. Everything the
 * cluster sends stays at or under this many UTF-8 bytes, leaving room below
 * the hard limit.
 */
export const NOTIFY_PAYLOAD_LIMIT = 7900;
