/** All SQL about approvals. A decision is one conditional update, so deciding twice cannot both succeed. */
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { approvals } from "../../db/schema.js";

export type ApprovalRow = typeof approvals.$inferSelect;
export type ApprovalState = ApprovalRow["state"];

export interface ApprovalFilter {
  state?: ApprovalState;
  processId?: number;
  before?: number;
  limit: number;
}

export interface Decision {
  state: Exclude<ApprovalState, "pending">;
  decidedBy: string | null;
  reason: string | null;
}

export class ApprovalStore {
  constructor(private readonly db: Db) {}

  insert(values: Pick<ApprovalRow, "processId" | "keyId" | "serviceId" | "toolId" | "parameters">): ApprovalRow {
    return this.db
      .insert(approvals)
      .values({ ...values, state: "pending", createdAt: new Date().toISOString() })
      .returning()
      .get();
  }

  get(id: number): ApprovalRow | undefined {
    return this.db.select().from(approvals).where(eq(approvals.id, id)).get();
  }

  /** The approval with the decision, or undefined when it was not pending (any more). */
  decide(id: number, decision: Decision): ApprovalRow | undefined {
    return this.db
      .update(approvals)
      .set({ ...decision, decidedAt: new Date().toISOString() })
      .where(and(eq(approvals.id, id), eq(approvals.state, "pending")))
      .returning()
      .get();
  }

  list(filter: ApprovalFilter): ApprovalRow[] {
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

  /** Every pending approval expired at once (at start: nobody waits for them any more). */
  expirePending(reason: string): ApprovalRow[] {
    return this.db
      .update(approvals)
      .set({ state: "expired", decidedAt: new Date().toISOString(), decidedBy: null, reason })
      .where(eq(approvals.state, "pending"))
      .returning()
      .all();
  }
}
