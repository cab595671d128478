/** The SQLite store: `data.db` in the data directory (client.ts), its stores, and giving space back (space.ts). */
import { join } from "node:path";
import { SqliteApprovalStore } from "../domain/governance/approval-store-sqlite.js";
import { SqliteCallStore } from "../domain/governance/call-store-sqlite.js";
import { SqliteKeyStore } from "../domain/governance/key-store-sqlite.js";
import { SqlitePolicyStore } from "../domain/governance/policy-store-sqlite.js";
import { SqliteModuleStore } from "../domain/modules/module-store-sqlite.js";
import { SqliteProcessStore } from "../domain/processes/process-store-sqlite.js";
import { SqliteRegistryStore } from "../domain/registries/registry-store-sqlite.js";
import { SqliteSecretRowStore } from "../domain/secrets/secret-store-sqlite.js";
import { SqliteServiceStore } from "../domain/services/service-store-sqlite.js";
import { type Db, openDatabase } from "./client.js";
import { SpaceReclaimer } from "./space.js";
import type { Store } from "./store.js";

/** Free pages and the WAL are also given back on this schedule (and after large deletes, and at shutdown). */
const RECLAIM_INTERVAL_MS = 10 * 60 * 1000;

export type SqliteStore = Store & { readonly dialect: "sqlite"; readonly db: Db };

export function openSqliteStore(dataDir: string, onUpkeepError: (error: unknown) => void): SqliteStore {
  const db = openDatabase(join(dataDir, "data.db"));
  const space = new SpaceReclaimer(db.$client, onUpkeepError);
  space.start(RECLAIM_INTERVAL_MS);
  return {
    dialect: "sqlite",
    db,
    services: new SqliteServiceStore(db),
    modules: new SqliteModuleStore(db),
    processes: new SqliteProcessStore(db),
    secrets: new SqliteSecretRowStore(db),
    keys: new SqliteKeyStore(db),
    policies: new SqlitePolicyStore(db),
    approvals: new SqliteApprovalStore(db),
    calls: new SqliteCallStore(db),
    registries: new SqliteRegistryStore(db),
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
      const statement = db.$client.prepare(sql);
      if (!statement.reader) {
        statement.run(...params);
        return [];
      }
      return statement.all(...params) as Row[];
    },
    spaceFreed: () => space.soon(),
    async close() {
      space.stop();
      space.reclaim();
      db.$client.close();
    },
  };
}
