/** The SQLite approvals store: a transaction of better-sqlite3 runs start to end with nothing in between. */
import { and, count, desc, eq, getTableColumns, isNull, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { approvals } from "../../db/schema.js";
import type {
  ApprovalFilter,
  ApprovalRow,
  ApprovalStore,
  ApprovalSummary,
  Decision,
  NewApproval,
} from "./approval-store.js";

/** Every column but the whole parameters, the preview standing in for them. */
const { parameters: _whole, parametersPreview, ...rest } = getTableColumns(approvals);
const summary = { ...rest, parameters: parametersPreview };

export class SqliteApprovalStore implements ApprovalStore {
  constructor(private readonly db: Db) {}

  async insert(values: NewApproval, maxPendingPerKey: number): Promise<ApprovalSummary | { pending: number }> {
    return this.db.transaction((tx) => {
      const pending =
        tx
          .select({ n: count() })
          .from(approvals)
          .where(
            and(
              eq(approvals.state, "pending"),
              values.keyId === null ? isNull(approvals.keyId) : eq(approvals.keyId, values.keyId),
            ),
          )
          .get()?.n ?? 0;
      if (pending >= maxPendingPerKey) return { pending };
      return tx
        .insert(approvals)
        .values({ ...values, state: "pending", createdAt: new Date().toISOString() })
        .returning(summary)
        .get();
    });
  }

  async get(id: number): Promise<ApprovalRow | undefined> {
    return this.db.select().from(approvals).where(eq(approvals.id, id)).get();
  }

  async decide(id: number, decision: Decision): Promise<ApprovalSummary | undefined> {
    return this.db
      .update(approvals)
      .set({ ...decision, decidedAt: new Date().toISOString() })
      .where(and(eq(approvals.id, id), eq(approvals.state, "pending")))
      .returning(summary)
      .get();
  }

  async list(filter: ApprovalFilter): Promise<ApprovalSummary[]> {
    const conditions: (SQL | undefined)[] = [
      filter.state && eq(approvals.state, filter.state),
      filter.processId !== undefined ? eq(approvals.processId, filter.processId) : undefined,
      filter.before !== undefined ? lt(approvals.id, filter.before) : undefined,
    ];
    return this.db
      .select(summary)
      .from(approvals)
      .where(and(...conditions))
      .orderBy(desc(approvals.id))
      .limit(filter.limit + 1)
      .all();
  }

  async expirePending(reason: string): Promise<ApprovalSummary[]> {
    return this.expireWhere(eq(approvals.state, "pending"), reason);
  }

  async expireKey(keyId: string, reason: string): Promise<ApprovalSummary[]> {
    return this.expireWhere(and(eq(approvals.state, "pending"), eq(approvals.keyId, keyId)), reason);
  }

  private expireWhere(where: SQL | undefined, reason: string): ApprovalSummary[] {
    return this.db
      .update(approvals)
      .set({ state: "expired", decidedAt: new Date().toISOString(), decidedBy: null, reason })
      .where(where)
      .returning(summary)
      .all();
  }
}
