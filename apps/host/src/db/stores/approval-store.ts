/**
 * The approvals store, on either dialect (see dialect.ts). A decision is
 * one conditional update: two hosts deciding at once, one wins. The pending
 * limit per key is counted under a lock of that key, so two hosts inserting
 * for one key take turns.
 */
import { and, asc, count, desc, eq, getTableColumns, isNull, lt, notInArray, or, type SQL } from "drizzle-orm";
import type {
  ApprovalFilter,
  ApprovalListRow,
  ApprovalRow,
  ApprovalStore,
  ApprovalSummary,
  Decision,
  NewApproval,
} from "../../domain/governance/approval-store.js";
import type { SqlDialect, Tables } from "../dialect.js";

/** How a filter names the bootstrap key (`CYRNEL_API_KEY`, or no authentication), whose approvals store no key id. */
const BOOTSTRAP_KEY = "bootstrap";

/** Every column but the whole parameters, the preview standing in for them (cluster/execution-runs.ts reads these too). */
export function approvalSummaryColumns(approvals: Tables["approvals"]) {
  const { parameters: _whole, parametersPreview, ...rest } = getTableColumns(approvals);
  return { ...rest, parameters: parametersPreview };
}

export class SqlApprovalStore implements ApprovalStore {
  private readonly summary;

  constructor(private readonly sql: SqlDialect) {
    this.summary = approvalSummaryColumns(sql.tables.approvals);
  }

  insert(values: NewApproval, maxPendingPerKey: number): Promise<ApprovalSummary | { pending: number }> {
    const { approvals } = this.sql.tables;
    return this.sql.transaction(
      async (tx) => {
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
          .returning(this.summary);
        return row!;
      },
      { lock: `cyrnel.approvals:${values.keyId ?? ""}` },
    );
  }

  async get(id: number): Promise<ApprovalRow | undefined> {
    const { approvals } = this.sql.tables;
    const [row] = await this.sql.db.select().from(approvals).where(eq(approvals.id, id));
    return row;
  }

  async decide(id: number, decision: Decision): Promise<ApprovalSummary | undefined> {
    const { approvals } = this.sql.tables;
    const [row] = await this.sql.db
      .update(approvals)
      .set({ ...decision, decidedAt: new Date().toISOString() })
      .where(and(eq(approvals.id, id), eq(approvals.state, "pending")))
      .returning(this.summary);
    return row;
  }

  list(filter: ApprovalFilter): Promise<ApprovalListRow[]> {
    const { approvals, tools } = this.sql.tables;
    const key =
      filter.keyId === undefined
        ? undefined
        : filter.keyId === BOOTSTRAP_KEY
          ? isNull(approvals.keyId)
          : eq(approvals.keyId, filter.keyId);
    const conditions: (SQL | undefined)[] = [
      filter.state && eq(approvals.state, filter.state),
      filter.processId !== undefined ? eq(approvals.processId, filter.processId) : undefined,
      filter.serviceId !== undefined ? eq(approvals.serviceId, filter.serviceId) : undefined,
      filter.toolId !== undefined ? eq(approvals.toolId, filter.toolId) : undefined,
      key,
      filter.before !== undefined ? lt(approvals.id, filter.before) : undefined,
    ];
    return this.sql.db
      .select({ ...this.summary, toolAnnotations: tools.annotations })
      .from(approvals)
      .leftJoin(tools, and(eq(tools.serviceId, approvals.serviceId), eq(tools.id, approvals.toolId)))
      .where(and(...conditions))
      .orderBy(desc(approvals.id))
      .limit(filter.limit + 1);
  }

  expirePending(reason: string, except: readonly number[] = []): Promise<ApprovalSummary[]> {
    const { approvals } = this.sql.tables;
    const kept =
      except.length === 0
        ? undefined
        : or(isNull(approvals.executionId), notInArray(approvals.executionId, [...except]));
    return this.expireWhere(and(eq(approvals.state, "pending"), kept), reason);
  }

  async pendingOfRun(executionId: number): Promise<number> {
    const { approvals } = this.sql.tables;
    const [row] = await this.sql.db
      .select({ n: count() })
      .from(approvals)
      .where(and(eq(approvals.executionId, executionId), eq(approvals.state, "pending")));
    return row?.n ?? 0;
  }

  oldestPending(limit: number): Promise<ApprovalSummary[]> {
    const { approvals } = this.sql.tables;
    return this.sql.db
      .select(this.summary)
      .from(approvals)
      .where(eq(approvals.state, "pending"))
      .orderBy(asc(approvals.id))
      .limit(limit);
  }

  async forCall(processId: number, executionId: number, callIndex: number): Promise<ApprovalSummary | undefined> {
    const { approvals } = this.sql.tables;
    const [row] = await this.sql.db
      .select(this.summary)
      .from(approvals)
      .where(
        and(
          eq(approvals.processId, processId),
          eq(approvals.executionId, executionId),
          eq(approvals.callIndex, callIndex),
        ),
      )
      .orderBy(desc(approvals.id))
      .limit(1);
    return row;
  }

  expireKey(keyId: string, reason: string): Promise<ApprovalSummary[]> {
    const { approvals } = this.sql.tables;
    return this.expireWhere(and(eq(approvals.state, "pending"), eq(approvals.keyId, keyId)), reason);
  }

  private expireWhere(where: SQL | undefined, reason: string): Promise<ApprovalSummary[]> {
    const { approvals } = this.sql.tables;
    return this.sql.db
      .update(approvals)
      .set({ state: "expired", decidedAt: new Date().toISOString(), decidedBy: null, reason })
      .where(where)
      .returning(this.summary);
  }
}
