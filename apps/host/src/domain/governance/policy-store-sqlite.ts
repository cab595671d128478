/** The SQLite tool policies store. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { servicePolicies } from "../../db/schema.js";
import type { ServicePolicy } from "./policy.js";
import type { PolicyStore } from "./policy-store.js";

export class SqlitePolicyStore implements PolicyStore {
  private written = 0;

  constructor(private readonly db: Db) {}

  get revision(): number {
    return this.written;
  }

  async get(serviceId: string): Promise<ServicePolicy | undefined> {
    const row = this.db.select().from(servicePolicies).where(eq(servicePolicies.serviceId, serviceId)).get();
    return row && { default: row.defaultAction, rules: row.rules };
  }

  async put(serviceId: string, policy: ServicePolicy): Promise<void> {
    const values = { defaultAction: policy.default, rules: policy.rules, updatedAt: new Date().toISOString() };
    try {
      this.db
        .insert(servicePolicies)
        .values({ serviceId, ...values })
        .onConflictDoUpdate({ target: servicePolicies.serviceId, set: values })
        .run();
    } finally {
      this.written++;
    }
  }
}
