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
 * The password in the URL is never logged: a connection error's message is
 * the driver's (which does not repeat it), and the host's log redacts URL
 * passwords in any case (log.ts).
 */
export async function openPgDatabase(
  url: string,
  onIdleError: (error: unknown) => void,
  migrationsFolder = PG_MIGRATIONS_FOLDER,
  poolSize = POOL_SIZE,
): Promise<PgDb> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // A connection that breaks while idle (the server restarted) must not take the host down; the pool replaces it.
  pool.on("error", onIdleError);
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
