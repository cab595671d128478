/** All SQL about tool policies: one row per service that has one (deleted with the service by its foreign key). */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { servicePolicies } from "../../db/schema.js";
import type { ServicePolicy } from "./policy.js";

export class PolicyStore {
  /** Bumped by every write here; deletes come with the service's (see `Policies`). */
  private written = 0;

  constructor(private readonly db: Db) {}

  get revision(): number {
    return this.written;
  }

  get(serviceId: string): ServicePolicy | undefined {
    const row = this.db.select().from(servicePolicies).where(eq(servicePolicies.serviceId, serviceId)).get();
    return row && { default: row.defaultAction, rules: row.rules };
  }

  put(serviceId: string, policy: ServicePolicy): void {
    this.written++;
    const values = { defaultAction: policy.default, rules: policy.rules, updatedAt: new Date().toISOString() };
    this.db
      .insert(servicePolicies)
      .values({ serviceId, ...values })
      .onConflictDoUpdate({ target: servicePolicies.serviceId, set: values })
      .run();
  }
}
