/**
 * Opens the PostgreSQL database of `CYRNEL_DATABASE_URL` (a node-postgres
 * pool) and brings its schema up to date with the migrations of
 * migrations-pg/. Several hosts may start at once against one database: the
 * migrations run under a session-level advisory lock, so one host applies
 * them while the others wait, then find nothing left to do.
 */
import { fileURLToPath } from "node:url";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "./schema-pg.js";

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

export const PG_MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations-pg", import.meta.url));

/** Any constant shared by every cyrnel host: the key of the advisory lock held while migrating. */
const MIGRATION_LOCK = 0x63_79_72_6e; // "cyrn"

/** Connections per host by default: requests wait for a free one beyond this. */
export const POOL_SIZE = 10;

/**
 * Every connection of `pool` gets an `'error'` listener of its own, for as
 * long as it lives. node-postgres emits `'error'` on a client whose
 * connection breaks, and a pool listens only to its idle clients: a client
 * held between queries — inside a transaction, a migration's lock holder, a
 * queue worker's — that loses its connection (a server restart, a failover,
 * `pg_terminate_backend`, a pooler's idle timeout) would otherwise throw an
 * unhandled `'error'` event and end the host. With the listener, the query in
 * flight fails (the request answers `503 database_unavailable`), the pool
 * discards the broken client on release, and the host carries on.
 */
export function guardConnections(pool: pg.Pool, onError: (error: unknown) => void): void {
  pool.on("connect", (client) => {
    client.on("error", onError);
  });
  // A connection that breaks while idle: the pool replaces it.
  pool.on("error", onError);
}

/**
 * The password in the URL is never logged: a connection error's message is
 * the driver's (which does not repeat it), and the host's log redacts URL
 * passwords in any case (log.ts).
 */
export async function openPgDatabase(
  url: string,
  onConnectionError: (error: unknown) => void,
  migrationsFolder = PG_MIGRATIONS_FOLDER,
  poolSize = POOL_SIZE,
): Promise<PgDb> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  guardConnections(pool, onConnectionError);
  try {
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
      try {
        await migrate(drizzle(client, { schema }), { migrationsFolder });
      } finally {
        await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return drizzle(pool, { schema }) as PgDb;
}
