/**
 * The PostgreSQL store (`CYRNEL_DATABASE_URL`): a connection pool
 * (client-pg.ts), its migrations applied at start, and the stores. Nothing
 * lives in the data directory's database then; the data directory still
 * holds custom modules and, without CYRNEL_SECRETS_KEY, secrets.key (hosts
 * that share a database must share CYRNEL_SECRETS_KEY instead).
 */

import { PgChanges } from "./changes-pg.js";
import { openPgDatabase } from "./client-pg.js";
import { pgDialect } from "./dialect-pg.js";
import type { SharedDatabase, Store } from "./store.js";
import { SqlApprovalStore } from "./stores/approval-store.js";
import { PgCallRows } from "./stores/call-rows-pg.js";
import { SqlCallStore } from "./stores/call-store.js";
import { SqlConnectionStore } from "./stores/connection-store.js";
import { SqlJournalStore } from "./stores/journal-store.js";
import { SqlKeyStore } from "./stores/key-store.js";
import { SqlModuleStore } from "./stores/module-store.js";
import { SqlOAuthSubjectStore } from "./stores/oauth-subject-store.js";
import { SqlPolicyStore } from "./stores/policy-store.js";
import { SqlProcessStore } from "./stores/process-store.js";
import { PgQueuedRunWrites } from "./stores/queued-runs-pg.js";
import { SqlRegistryStore } from "./stores/registry-store.js";
import { SqlSecretRowStore } from "./stores/secret-store.js";
import { PgServiceDialect } from "./stores/service-dialect-pg.js";
import { SqlServiceStore } from "./stores/service-store.js";
import { SqlStatsStore } from "./stores/stats-store.js";

export type PgStore = Store & { readonly dialect: "postgres"; readonly shared: SharedDatabase };

export async function openPgStore(
  url: string,
  onConnectionError: (error: unknown) => void,
  poolSize?: number,
): Promise<PgStore> {
  const db = await openPgDatabase(url, onConnectionError, undefined, poolSize);
  const changes = new PgChanges();
  const sql = pgDialect(db, changes);
  return {
    dialect: "postgres",
    shared: { db, changes },
    services: new SqlServiceStore(sql, new PgServiceDialect()),
    modules: new SqlModuleStore(sql),
    processes: new SqlProcessStore(sql, new PgQueuedRunWrites(db)),
    journal: new SqlJournalStore(sql),
    secrets: new SqlSecretRowStore(sql),
    keys: new SqlKeyStore(sql),
    oauthSubjects: new SqlOAuthSubjectStore(sql),
    connections: new SqlConnectionStore(sql),
    policies: new SqlPolicyStore(sql),
    approvals: new SqlApprovalStore(sql),
    calls: new SqlCallStore(sql, new PgCallRows(db)),
    registries: new SqlRegistryStore(sql),
    stats: new SqlStatsStore(sql),
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
