/**
 * The cluster's tables come from the host's PostgreSQL migrations (db/schema-pg.ts, migration
 * 0003_cluster_tables): a new database gets them exactly as hosts of earlier versions created them at every start,
 * and a database such a host used — with the tables it made, `cluster_run_claims` too — migrates with its rows kept.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrateHostSchema, usePostgres } from "../../test/support/cluster-postgres.js";
import { migrationsBefore } from "../../test/support/migrations.js";
import { PG_MIGRATIONS_FOLDER } from "../db/client-pg.js";

const postgres = usePostgres();

/** What hosts before migration 0003 ran at every start (their cluster/cluster-schema.ts), word for word. */
const CREATED_BY_EARLIER_HOSTS = `
CREATE TABLE IF NOT EXISTS cluster_hosts (
  id text PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('all', 'api', 'worker')),
  address text,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  lease_expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS cluster_hosts_lease_expires_at ON cluster_hosts (lease_expires_at);

CREATE TABLE IF NOT EXISTS cluster_run_claims (
  execution_id bigint PRIMARY KEY,
  process_id bigint NOT NULL,
  claimed_by text,
  claimed_at timestamptz,
  canceled boolean NOT NULL DEFAULT false,
  kill_requested boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  outcome text
);
CREATE INDEX IF NOT EXISTS cluster_run_claims_claimed_by ON cluster_run_claims (claimed_by) WHERE ended_at IS NULL;

CREATE TABLE IF NOT EXISTS cluster_module_archives (
  module_id text PRIMARY KEY,
  version text NOT NULL,
  archive bytea NOT NULL,
  archive_sha256 text NOT NULL,
  folder_digest text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text
);
`;

const CLUSTER_TABLES = ["cluster_hosts", "cluster_module_archives"];

async function query<Row = Record<string, unknown>>(url: string, text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** The cluster's tables as the catalog has them: columns, constraints, indexes. */
async function describeClusterTables(url: string) {
  const columns = await query(
    url,
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = ANY($1) ORDER BY table_name, ordinal_position`,
    [CLUSTER_TABLES],
  );
  const constraints = await query(
    url,
    `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
     FROM pg_constraint WHERE conrelid::regclass::text = ANY($1) ORDER BY 1, 2`,
    [CLUSTER_TABLES],
  );
  const indexes = await query(
    url,
    "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) ORDER BY 1, 2",
    [CLUSTER_TABLES],
  );
  return { columns, constraints, indexes };
}

async function clusterTableNames(url: string): Promise<string[]> {
  const rows = await query<{ name: string }>(
    url,
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'cluster%' ORDER BY 1",
  );
  return rows.map((row) => row.name);
}

describe("the cluster's tables", () => {
  it("come with the host's migrations, exactly as earlier hosts created them, without cluster_run_claims", async () => {
    const migrated = await postgres.server.createHostDatabase();
    expect(await clusterTableNames(migrated)).toEqual(CLUSTER_TABLES);

    const earlier = await postgres.server.createDatabase();
    await query(earlier, CREATED_BY_EARLIER_HOSTS);
    const expected = await describeClusterTables(earlier);
    expect(expected.columns).toHaveLength(13);
    expect(await describeClusterTables(migrated)).toEqual(expected);
  });

  it("are taken over from a database an earlier host used, rows kept, and cluster_run_claims dropped", async () => {
    const url = await postgres.server.createHostDatabase(migrationsBefore(PG_MIGRATIONS_FOLDER, "0003_cluster_tables"));
    await query(url, CREATED_BY_EARLIER_HOSTS);
    await query(
      url,
      `INSERT INTO cluster_hosts (id, role, address, lease_expires_at) VALUES ('h1', 'worker', NULL, now());
       INSERT INTO cluster_module_archives (module_id, version, archive, archive_sha256, folder_digest, updated_by)
         VALUES ('echo', '1.0.0', '\\x0102'::bytea, 'sha', 'digest', 'h1');
       INSERT INTO cluster_run_claims (execution_id, process_id) VALUES (1, 1);`,
    );
    const before = await describeClusterTables(url);

    await migrateHostSchema(url);

    expect(await clusterTableNames(url)).toEqual(CLUSTER_TABLES);
    expect(await describeClusterTables(url)).toEqual(before);
    expect(await query(url, "SELECT id, role FROM cluster_hosts")).toEqual([{ id: "h1", role: "worker" }]);
    expect(await query(url, "SELECT module_id, version, archive FROM cluster_module_archives")).toEqual([
      { module_id: "echo", version: "1.0.0", archive: Buffer.from([1, 2]) },
    ]);
    // A host started on the upgraded database finds nothing more to apply.
    await migrateHostSchema(url);
    const applied = await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations");
    expect(applied[0]?.n).toBe(
      JSON.parse(readFileSync(join(PG_MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")).entries.length,
    );
  });
});
