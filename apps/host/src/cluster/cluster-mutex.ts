/**
 * One module, one service at a time — across hosts. On one host a
 * `KeyedMutex` keeps an enable from interleaving with a config patch of the
 * same service; with many hosts the same two requests can arrive at two
 * hosts. `ClusterMutex` has the same `run(key, operation)` shape (`Locks`),
 * so on PostgreSQL change-sync.ts hands it to the services and modules where
 * SQLite hands them a `KeyedMutex`.
 *
 * It holds a PostgreSQL session advisory lock on a pooled connection for
 * the operation's duration (operations such as an adapter's setup are long
 * and not one transaction, so a transaction-scoped lock does not fit). If
 * the holder dies or its connection drops, PostgreSQL releases the lock. A
 * local `KeyedMutex` in front makes the host's own callers queue in memory
 * rather than each taking a pooled connection to wait on the database.
 *
 * Keys are hashed to the lock's 64-bit space (`hashtextextended`); two keys
 * that collide only serialise needlessly. Not reentrant, like `KeyedMutex`:
 * nested `run`s must use different keys, always in the same order.
 */
import type pg from "pg";
import { KeyedMutex } from "../lib/keyed-mutex.js";
import type { Queryable } from "./sql.js";

/** The lock id of a key; a prefix keeps cyrnel's locks apart from anyone else's on the same database. */
const LOCK_ID = "hashtextextended('cyrnel:' || $1, 0)";

export class ClusterMutex {
  private readonly local = new KeyedMutex();

  constructor(private readonly pool: pg.Pool) {}

  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    return this.local.run(key, async () => {
      const client = await this.pool.connect();
      // A connection whose lock state is unknown is destroyed, not returned to the pool: that releases any lock.
      let discard: Error | undefined;
      // The connection can die while the operation runs (the lock is then released): it must not crash the host.
      // The operation is not stopped (nothing can stop arbitrary work), as with any database outage.
      const onError = (error: Error) => {
        discard = error;
      };
      client.on("error", onError);
      try {
        try {
          await client.query(`SELECT pg_advisory_lock(${LOCK_ID})`, [key]);
        } catch (error) {
          discard = error as Error;
          throw error;
        }
        try {
          return await operation();
        } finally {
          try {
            await client.query(`SELECT pg_advisory_unlock(${LOCK_ID})`, [key]);
          } catch (error) {
            discard = error as Error;
          }
        }
      } finally {
        client.off("error", onError);
        client.release(discard);
      }
    });
  }
}

/** The same lock for the length of the caller's transaction (short work that is one transaction anyway). */
export async function lockInTransaction(tx: Queryable, key: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${LOCK_ID})`, [key]);
}
