/**
 * The host's storage: one interface per store (`domain/**\/*-store.ts`),
 * gathered here, and the dialect behind them. SQLite in the data directory
 * is the default, with nothing to configure; `CYRNEL_DATABASE_URL`
 * (postgres://…) puts every store in PostgreSQL instead. The domain only
 * sees these interfaces; each has one implementation in `stores/`, written
 * once over the dialect seam (dialect.ts), and what truly differs between
 * the dialects is the seam's or a store's hook.
 */
import type { HostConfig } from "../config.js";
import type { ConnectionStore } from "../domain/connections/connection-store.js";
import type { ApprovalStore } from "../domain/governance/approval-store.js";
import type { CallStore } from "../domain/governance/call-store.js";
import type { KeyStore } from "../domain/governance/key-store.js";
import type { OAuthSubjectStore } from "../domain/governance/oauth-subject-store.js";
import type { PolicyStore } from "../domain/governance/policy-store.js";
import type { ModuleStore } from "../domain/modules/module-store.js";
import type { JournalStore } from "../domain/processes/journal-store.js";
import type { ProcessStore } from "../domain/processes/process-store.js";
import type { RegistryStore } from "../domain/registries/registry-store.js";
import type { SecretRowStore } from "../domain/secrets/secret-store.js";
import type { ServiceStore } from "../domain/services/service-store.js";
import type { StatsStore } from "../domain/stats/stats-store.js";
import type { PgChanges } from "./changes-pg.js";
import type { PgDb } from "./client-pg.js";

export type Dialect = "sqlite" | "postgres";

/**
 * What hosts that share the database use to work together (cluster/): the
 * drizzle database on the connection pool, and what the stores' writes
 * tell other hosts. PostgreSQL only: a SQLite database is one host's.
 */
export interface SharedDatabase {
  readonly db: PgDb;
  /** Off until `changes.publishAs(hostId)` (cluster/change-sync.ts). */
  readonly changes: PgChanges;
}

export interface Store {
  readonly dialect: Dialect;
  /** Present when other hosts may share this database (PostgreSQL); the host then runs as one of a cluster. */
  readonly shared: SharedDatabase | null;
  readonly services: ServiceStore;
  readonly modules: ModuleStore;
  readonly processes: ProcessStore;
  /** The journals of durable runs (domain/processes/run-journal.ts). */
  readonly journal: JournalStore;
  readonly secrets: SecretRowStore;
  readonly keys: KeyStore;
  readonly oauthSubjects: OAuthSubjectStore;
  readonly connections: ConnectionStore;
  readonly policies: PolicyStore;
  readonly approvals: ApprovalStore;
  readonly calls: CallStore;
  readonly registries: RegistryStore;
  /** The counts of `GET /stats`. */
  readonly stats: StatsStore;
  /**
   * Runs SQL the caller wrote for this dialect, for tests that look at rows
   * (and tools of an operator): `?` placeholders on both dialects.
   */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** After a large delete: give the space back soon (SQLite's free pages and WAL; PostgreSQL's autovacuum does it). */
  spaceFreed(): void;
  /** Stops timers, gives space back and closes the connections. */
  close(): Promise<void>;
}

export interface StoreOptions {
  config: Pick<HostConfig, "dataDir" | "databaseUrl">;
  /** A failure in the background (reclaiming space, a broken idle connection), handled by retrying later. */
  onUpkeepError: (error: unknown) => void;
  /** PostgreSQL: connections in the pool (default 10); hosts that run processes through the queue need more. */
  poolSize?: number;
}

/** Opens the configured database, applying its migrations (on PostgreSQL, one host at a time). */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.config.databaseUrl !== null) {
    const { openPgStore } = await import("./store-pg.js");
    return openPgStore(options.config.databaseUrl, options.onUpkeepError, options.poolSize);
  }
  const { openSqliteStore } = await import("./store-sqlite.js");
  return openSqliteStore(options.config.dataDir, options.onUpkeepError);
}
