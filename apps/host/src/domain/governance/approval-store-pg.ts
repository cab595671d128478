/** The PostgreSQL approvals store. A decision is one conditional update: two hosts deciding at once, one wins. */
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { PgDb } from "../../db/client-pg.js";
import { approvals } from "../../db/schema-pg.js";
import type { ApprovalFilter, ApprovalRow, ApprovalStore, Decision } from "./approval-store.js";

export class PgApprovalStore implements ApprovalStore {
  constructor(private readonly db: PgDb) {}

  async insert(
    values: Pick<ApprovalRow, "processId" | "keyId" | "serviceId" | "toolId" | "parameters">,
  ): Promise<ApprovalRow> {
    const [row] = await this.db
      .insert(approvals)
      .values({ ...values, state: "pending", createdAt: new Date().toISOString() })
      .returning();
    return row!;
  }

  async get(id: number): Promise<ApprovalRow | undefined> {
    const [row] = await this.db.select().from(approvals).where(eq(approvals.id, id));
    return row;
  }

  async decide(id: number, decision: Decision): Promise<ApprovalRow | undefined> {
    const [row] = await this.db
      .update(approvals)
      .set({ ...decision, decidedAt: new Date().toISOString() })
      .where(and(eq(approvals.id, id), eq(approvals.state, "pending")))
      .returning();
    return row;
  }

  list(filter: ApprovalFilter): Promise<ApprovalRow[]> {
    const conditions: (SQL | undefined)[] = [
      filter.state && eq(approvals.state, filter.state),
      filter.processId !== undefined ? eq(approvals.processId, filter.processId) : undefined,
      filter.before !== undefined ? lt(approvals.id, filter.before) : undefined,
    ];
    return this.db
      .select()
      .from(approvals)
      .where(and(...conditions))
      .orderBy(desc(approvals.id))
      .limit(filter.limit + 1);
  }

  expirePending(reason: string): Promise<ApprovalRow[]> {
    return this.db
      .update(approvals)
      .set({ state: "expired", decidedAt: new Date().toISOString(), decidedBy: null, reason })
      .where(eq(approvals.state, "pending"))
      .returning();
  }
}
