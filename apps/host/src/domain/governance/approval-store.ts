/** The approvals store. A decision is one conditional update, so deciding twice cannot both succeed. */
import type { approvals } from "../../db/schema.js";

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

export interface ApprovalStore {
  insert(
    values: Pick<ApprovalRow, "processId" | "keyId" | "serviceId" | "toolId" | "parameters">,
  ): Promise<ApprovalRow>;
  get(id: number): Promise<ApprovalRow | undefined>;
  /** The approval with the decision, or undefined when it was not pending (any more). */
  decide(id: number, decision: Decision): Promise<ApprovalRow | undefined>;
  /** Newest first; `limit + 1` rows. */
  list(filter: ApprovalFilter): Promise<ApprovalRow[]>;
  /** Every pending approval expired at once (at start: nobody waits for them any more). */
  expirePending(reason: string): Promise<ApprovalRow[]>;
}
