/** The SQLite approvals store. */
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { approvals } from "../../db/schema.js";
import type { ApprovalFilter, ApprovalRow, ApprovalStore, Decision } from "./approval-store.js";

export class SqliteApprovalStore implements ApprovalStore {
  constructor(private readonly db: Db) {}

  async insert(
    values: Pick<ApprovalRow, "processId" | "keyId" | "serviceId" | "toolId" | "parameters">,
  ): Promise<ApprovalRow> {
    return this.db
      .insert(approvals)
      .values({ ...values, state: "pending", createdAt: new Date().toISOString() })
      .returning()
      .get();
  }

  async get(id: number): Promise<ApprovalRow | undefined> {
    return this.db.select().from(approvals).where(eq(approvals.id, id)).get();
  }

  async decide(id: number, decision: Decision): Promise<ApprovalRow | undefined> {
    return this.db
      .update(approvals)
      .set({ ...decision, decidedAt: new Date().toISOString() })
      .where(and(eq(approvals.id, id), eq(approvals.state, "pending")))
      .returning()
      .get();
  }

  async list(filter: ApprovalFilter): Promise<ApprovalRow[]> {
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
      .limit(filter.limit + 1)
      .all();
  }

  async expirePending(reason: string): Promise<ApprovalRow[]> {
    return this.db
      .update(approvals)
      .set({ state: "expired", decidedAt: new Date().toISOString(), decidedBy: null, reason })
      .where(eq(approvals.state, "pending"))
      .returning()
      .all();
  }
}
