/**
 * The PostgreSQL store (`CYRNEL_DATABASE_URL`): a connection pool
 * (client-pg.ts), its migrations applied at start, and the stores. Nothing
 * lives in the data directory's database then; the data directory still
 * holds custom modules and, without CYRNEL_SECRETS_KEY, secrets.key (hosts
 * that share a database must share CYRNEL_SECRETS_KEY instead).
 */
import { PgApprovalStore } from "../domain/governance/approval-store-pg.js";
import { PgCallStore } from "../domain/governance/call-store-pg.js";
import { PgKeyStore } from "../domain/governance/key-store-pg.js";
import { PgPolicyStore } from "../domain/governance/policy-store-pg.js";
import { PgModuleStore } from "../domain/modules/module-store-pg.js";
import { PgProcessStore } from "../domain/processes/process-store-pg.js";
import { PgRegistryStore } from "../domain/registries/registry-store-pg.js";
import { PgSecretRowStore } from "../domain/secrets/secret-store-pg.js";
import { PgServiceStore } from "../domain/services/service-store-pg.js";
import { PgChanges } from "./changes-pg.js";
import { openPgDatabase, type PgDb } from "./client-pg.js";
import type { Store } from "./store.js";

export type PgStore = Store & {
  readonly dialect: "postgres";
  readonly db: PgDb;
  /** What the stores' writes tell other hosts; off until `changes.publishAs(hostId)` (cluster/change-sync.ts). */
  readonly changes: PgChanges;
};

export async function openPgStore(
  url: string,
  onConnectionError: (error: unknown) => void,
  poolSize?: number,
): Promise<PgStore> {
  const db = await openPgDatabase(url, onConnectionError, undefined, poolSize);
  const changes = new PgChanges();
  return {
    dialect: "postgres",
    db,
    changes,
    services: new PgServiceStore(db, changes),
    modules: new PgModuleStore(db, changes),
    processes: new PgProcessStore(db),
    secrets: new PgSecretRowStore(db, changes),
    keys: new PgKeyStore(db, changes),
    policies: new PgPolicyStore(db, changes),
    approvals: new PgApprovalStore(db),
    calls: new PgCallStore(db),
    registries: new PgRegistryStore(db, changes),
    async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
      let index = 0;
      const numbered = text.replace(/\?/g, () => `$${++index}`);
      return (await db.$client.query(numbered, [...params])).rows as Row[];
    },
    // Autovacuum gives the space of deleted rows back to the database.
    spaceFreed: () => undefined,
    async close() {
      await db.$client.end();
    },
  };
}
