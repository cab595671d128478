/**
 * The host's storage: one interface per store (`domain/**\/*-store.ts`),
 * gathered here, and the dialect behind them. SQLite in the data directory
 * is the default, with nothing to configure; `CYRNEL_DATABASE_URL`
 * (postgres://…) puts every store in PostgreSQL instead. The domain only
 * sees these interfaces: what differs between the dialects lives in the
 * `*-store-sqlite.ts` and `*-store-pg.ts` files beside each interface.
 */
import type { HostConfig } from "../config.js";
import type { ApprovalStore } from "../domain/governance/approval-store.js";
import type { CallStore } from "../domain/governance/call-store.js";
import type { KeyStore } from "../domain/governance/key-store.js";
import type { PolicyStore } from "../domain/governance/policy-store.js";
import type { ModuleStore } from "../domain/modules/module-store.js";
import type { ProcessStore } from "../domain/processes/process-store.js";
import type { RegistryStore } from "../domain/registries/registry-store.js";
import type { SecretRowStore } from "../domain/secrets/secret-store.js";
import type { ServiceStore } from "../domain/services/service-store.js";

export type Dialect = "sqlite" | "postgres";

export interface Store {
  readonly dialect: Dialect;
  readonly services: ServiceStore;
  readonly modules: ModuleStore;
  readonly processes: ProcessStore;
  readonly secrets: SecretRowStore;
  readonly keys: KeyStore;
  readonly policies: PolicyStore;
  readonly approvals: ApprovalStore;
  readonly calls: CallStore;
  readonly registries: RegistryStore;
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
