/** The SQLite store: `data.db` in the data directory (client.ts), its stores, and giving space back (space.ts). */
import { join } from "node:path";

import { type Db, openDatabase } from "./client.js";
import type { SqlDialect } from "./dialect.js";
import { SqliteGate, sqliteDialect } from "./dialect-sqlite.js";
import { SpaceReclaimer } from "./space.js";
import type { Store } from "./store.js";
import { SqlApprovalStore } from "./stores/approval-store.js";
import { SqliteCallRows } from "./stores/call-rows-sqlite.js";
import { SqlCallStore } from "./stores/call-store.js";
import { SqlConnectionStore } from "./stores/connection-store.js";
import { SqlJournalStore } from "./stores/journal-store.js";
import { SqlKeyStore } from "./stores/key-store.js";
import { SqlModuleStore } from "./stores/module-store.js";
import { SqlOAuthSubjectStore } from "./stores/oauth-subject-store.js";
import { SqlPolicyStore } from "./stores/policy-store.js";
import { SqlProcessStore } from "./stores/process-store.js";
import { SqlRegistryStore } from "./stores/registry-store.js";
import { SqlSecretRowStore } from "./stores/secret-store.js";
import { SqliteServiceDialect } from "./stores/service-dialect-sqlite.js";
import { SqlServiceStore } from "./stores/service-store.js";
import { SqlStatsStore } from "./stores/stats-store.js";

/** Free pages and the WAL are also given back on this schedule (and after large deletes, and at shutdown). */
const RECLAIM_INTERVAL_MS = 10 * 60 * 1000;

export type SqliteStore = Store & { readonly dialect: "sqlite"; readonly db: Db; readonly sql: SqlDialect };

export function openSqliteStore(dataDir: string, onUpkeepError: (error: unknown) => void): SqliteStore {
  const db = openDatabase(join(dataDir, "data.db"));
  const gate = new SqliteGate(db.$client);
  const sql = sqliteDialect(db.$client, gate);
  const space = new SpaceReclaimer(db.$client, onUpkeepError, (work) => gate.run(work));
  space.start(RECLAIM_INTERVAL_MS);
  return {
    dialect: "sqlite",
    shared: null,
    db,
    sql,
    services: new SqlServiceStore(sql, new SqliteServiceDialect(db.$client, gate)),
    modules: new SqlModuleStore(sql),
    processes: new SqlProcessStore(sql),
    journal: new SqlJournalStore(sql),
    secrets: new SqlSecretRowStore(sql),
    keys: new SqlKeyStore(sql),
    oauthSubjects: new SqlOAuthSubjectStore(sql),
    connections: new SqlConnectionStore(sql),
    policies: new SqlPolicyStore(sql),
    approvals: new SqlApprovalStore(sql),
    calls: new SqlCallStore(sql, new SqliteCallRows(db, gate)),
    registries: new SqlRegistryStore(sql),
    stats: new SqlStatsStore(sql),
    async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
      return gate.run(() => {
        const statement = db.$client.prepare(text);
        if (!statement.reader) {
          statement.run(...params);
          return [];
        }
        return statement.all(...params) as Row[];
      });
    },
    spaceFreed: () => space.soon(),
    async close() {
      space.stop();
      space.reclaim();
      db.$client.close();
    },
  };
}
