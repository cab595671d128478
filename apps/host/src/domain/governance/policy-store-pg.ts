/** The PostgreSQL tool policies store. */
import { eq } from "drizzle-orm";
import type { PgChanges } from "../../db/changes-pg.js";
import type { PgDb } from "../../db/client-pg.js";
import { servicePolicies } from "../../db/schema-pg.js";
import type { ServicePolicy } from "./policy.js";
import type { PolicyStore } from "./policy-store.js";

export class PgPolicyStore implements PolicyStore {
  private written = 0;

  constructor(
    private readonly db: PgDb,
    /** A put tells the other hosts (`policy`, the service id), in its transaction. */
    private readonly changes: PgChanges,
  ) {}

  get revision(): number {
    return this.written;
  }

  async get(serviceId: string): Promise<ServicePolicy | undefined> {
    const [row] = await this.db.select().from(servicePolicies).where(eq(servicePolicies.serviceId, serviceId));
    return row && { default: row.defaultAction, rules: row.rules };
  }

  async put(serviceId: string, policy: ServicePolicy): Promise<void> {
    const values = { defaultAction: policy.default, rules: policy.rules, updatedAt: new Date().toISOString() };
    try {
      await this.changes.write(this.db, { kind: "policy", id: serviceId }, (tx) =>
        tx
          .insert(servicePolicies)
          .values({ serviceId, ...values })
          .onConflictDoUpdate({ target: servicePolicies.serviceId, set: values }),
      );
    } finally {
      this.written++;
    }
  }
}
