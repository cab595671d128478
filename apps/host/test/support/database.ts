/**
 * What the suites need to know about the database of this run's dialect:
 * the environment that points a test host at its own database, and raw
 * queries of a host's rows (`?` placeholders on both dialects).
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { inject } from "vitest";
import { databaseFor, testDialect } from "./postgres.js";

export { testDialect };

/** Extra environment for a host on `dataDir`: on PostgreSQL, CYRNEL_DATABASE_URL of the data dir's own database. */
export async function databaseEnv(dataDir: string, env: Record<string, string> = {}): Promise<Record<string, string>> {
  if (testDialect() !== "postgres" || "CYRNEL_DATABASE_URL" in env) return {};
  return { CYRNEL_DATABASE_URL: await databaseFor(inject("postgresAdminUrl"), dataDir) };
}

/** Rows of the database a host on `dataDir` uses, read (or written) outside the host. */
export async function queryDatabase<Row = Record<string, unknown>>(
  dataDir: string,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  if (testDialect() === "sqlite") {
    const db = new Database(join(dataDir, "data.db"));
    try {
      const statement = db.prepare(sql);
      if (!statement.reader) {
        statement.run(...params);
        return [];
      }
      return statement.all(...params) as Row[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: await databaseFor(inject("postgresAdminUrl"), dataDir) });
  await client.connect();
  try {
    let index = 0;
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++index}`),
        [...params],
      )
    ).rows as Row[];
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL: the text of every row of every table of a host's database, for checks that a value (a secret) was
 * never written. (On SQLite the suites read the files of the data directory, which also hold deleted rows.)
 */
export async function everyRowText(dataDir: string): Promise<string> {
  const tables = await queryDatabase<{ name: string }>(
    dataDir,
    "select tablename as name from pg_tables where schemaname = 'public'",
  );
  const texts = await Promise.all(
    tables.map(async ({ name }) =>
      (await queryDatabase<{ row: string }>(dataDir, `select row_to_json(t)::text as row from "${name}" t`))
        .map((row) => row.row)
        .join("\n"),
    ),
  );
  return texts.join("\n");
}
