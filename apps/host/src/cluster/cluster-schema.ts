/**
 * The tables the cluster blocks own. Until the wiring adds them to the
 * host's PostgreSQL migrations (`db/schema-pg.ts`, `db/migrations-pg/`),
 * `ensureClusterSchema` creates them; the wiring moves this SQL there
 * (`cluster_run_claims` becoming columns of `executions`).
 *
 * - `cluster_hosts`: one row per running host and its lease (see host-leases.ts).
 * - `cluster_run_claims`: which host took which execution (see run-claims.ts); the reference for the columns the
 *   wiring adds to the executions table instead.
 * - `cluster_module_archives`: the archive of every custom module, so every host runs the same files (see
 *   module-archive-store.ts).
 *
 * Times are the database's (`now()`), never a host's clock: hosts' clocks
 * may disagree, the database is the one clock they share.
 */
import type pg from "pg";
import { inTransaction } from "./sql.js";

export const CLUSTER_SCHEMA_SQL = `
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

/**
 * Any fixed number: hosts starting together take turns creating the tables (concurrent CREATE ... IF NOT EXISTS can
 * collide). Not the host's migration lock ("cyrn", db/client-pg.ts): these tables move into those migrations later.
 */
const SCHEMA_LOCK = 0x63_6c_73_74; // "clst"

/** Per pool, the one run of `ensureClusterSchema` (the host's process path and its change feed both need it). */
const ensured = new WeakMap<pg.Pool, Promise<void>>();

export function ensureClusterSchema(pool: pg.Pool): Promise<void> {
  let done = ensured.get(pool);
  if (done === undefined) {
    done = inTransaction(pool, async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
      await tx.query(CLUSTER_SCHEMA_SQL);
    });
    // A failure is not kept: the next call tries again.
    done.catch(() => ensured.delete(pool));
    ensured.set(pool, done);
  }
  return done;
}
