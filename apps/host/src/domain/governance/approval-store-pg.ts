/**
 * The PostgreSQL approvals store. A decision is one conditional update: two hosts deciding at once, one wins. The
 * pending limit per key is counted under an advisory lock of that key, so two hosts inserting for one key take turns.
 */
import { and, count, desc, eq, getTableColumns, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { PgDb } from "../../db/client-pg.js";
import { approvals } from "../../db/schema-pg.js";
import type {
  ApprovalFilter,
  ApprovalRow,
  ApprovalStore,
  ApprovalSummary,
  Decision,
  NewApproval,
} from "./approval-store.js";

/** Every column but the whole parameters, the preview standing in for them (cluster/execution-runs.ts reads these too). */
const { parameters: _whole, parametersPreview, ...rest } = getTableColumns(approvals);
export const approvalSummaryColumns = { ...rest, parameters: parametersPreview };

export class PgApprovalStore implements ApprovalStore {
  constructor(private readonly db: PgDb) {}

  insert(values: NewApproval, maxPendingPerKey: number): Promise<ApprovalSummary | { pending: number }> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cyrnel.approvals:${values.keyId ?? ""}`}))`);
      const [counted] = await tx
        .select({ n: count() })
        .from(approvals)
        .where(
          and(
            eq(approvals.state, "pending"),
            values.keyId === null ? isNull(approvals.keyId) : eq(approvals.keyId, values.keyId),
          ),
        );
      const pending = counted?.n ?? 0;
      if (pending >= maxPendingPerKey) return { pending };
      const [row] = await tx
        .insert(approvals)
        .values({ ...values, state: "pending", createdAt: new Date().toISOString() })
        .returning(approvalSummaryColumns);
      return row!;
    });
  }

  async get(id: number): Promise<ApprovalRow | undefined> {
    const [row] = await this.db.select().from(approvals).where(eq(approvals.id, id));
    return row;
  }

  async decide(id: number, decision: Decision): Promise<ApprovalSummary | undefined> {
    const [row] = await this.db
      .update(approvals)
      .set({ ...decision, decidedAt: new Date().toISOString() })
      .where(and(eq(approvals.id, id), eq(approvals.state, "pending")))
      .returning(approvalSummaryColumns);
    return row;
  }

  list(filter: ApprovalFilter): Promise<ApprovalSummary[]> {
    const conditions: (SQL | undefined)[] = [
      filter.state && eq(approvals.state, filter.state),
      filter.processId !== undefined ? eq(approvals.processId, filter.processId) : undefined,
      filter.before !== undefined ? lt(approvals.id, filter.before) : undefined,
    ];
    return this.db
      .select(approvalSummaryColumns)
      .from(approvals)
      .where(and(...conditions))
      .orderBy(desc(approvals.id))
      .limit(filter.limit + 1);
  }

  expirePending(reason: string): Promise<ApprovalSummary[]> {
    return this.expireWhere(eq(approvals.state, "pending"), reason);
  }

  expireKey(keyId: string, reason: string): Promise<ApprovalSummary[]> {
    return this.expireWhere(and(eq(approvals.state, "pending"), eq(approvals.keyId, keyId)), reason);
  }

  private expireWhere(where: SQL | undefined, reason: string): Promise<ApprovalSummary[]> {
    return this.db
      .update(approvals)
      .set({ state: "expired", decidedAt: new Date().toISOString(), decidedBy: null, reason })
      .where(where)
      .returning(approvalSummaryColumns);
  }
}
