/** The tool policies store, on either dialect (see dialect.ts). */
import { eq } from "drizzle-orm";
import type { ServicePolicy } from "../../domain/governance/policy.js";
import type { PolicyStore } from "../../domain/governance/policy-store.js";
import type { SqlDialect } from "../dialect.js";

export class SqlPolicyStore implements PolicyStore {
  private written = 0;

  /** A put tells the other hosts (`policy`, the service id), in its transaction. */
  constructor(private readonly sql: SqlDialect) {}

  get revision(): number {
    return this.written;
  }

  async get(serviceId: string): Promise<ServicePolicy | undefined> {
    const { servicePolicies } = this.sql.tables;
    const [row] = await this.sql.db.select().from(servicePolicies).where(eq(servicePolicies.serviceId, serviceId));
    return row && { default: row.defaultAction, rules: row.rules, approvalTimeoutMs: row.approvalTimeoutMs };
  }

  async put(serviceId: string, policy: ServicePolicy): Promise<void> {
    const { servicePolicies } = this.sql.tables;
    const values = {
      defaultAction: policy.default,
      rules: policy.rules,
      approvalTimeoutMs: policy.approvalTimeoutMs,
      updatedAt: new Date().toISOString(),
    };
    try {
      await this.sql.write({ kind: "policy", id: serviceId }, (tx) =>
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
