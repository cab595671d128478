/**
 * The approvals store. A decision is one conditional update, so deciding twice cannot both succeed. Only `get`
 * reads an approval's whole parameters: everything else (lists, decisions, expiries, the waiting calls) carries a
 * summary whose `parameters` is the bounded preview, so no list or event grows with what code sends.
 */

import type { ToolAnnotations } from "@cyrnel/sdk";

/** The row as stored: `parameters` whole (masked), `parametersPreview` what lists show. */
export interface ApprovalRow {
  id: number;
  processId: number;
  keyId: string | null;
  serviceId: string;
  toolId: string;
  parameters: Record<string, unknown>;
  parametersPreview: unknown;
  /** The size of `parameters`' JSON text in UTF-8 bytes, and its SHA-256 (hex). */
  parametersBytes: number;
  parametersSha256: string;
  state: ApprovalState;
  createdAt: string;
  decidedAt: string | null;
  /** The deciding key's id; null for the bootstrap key (or no auth) and for expiries. */
  decidedBy: string | null;
  reason: string | null;
  /** What the operator is asked when it is not the policy's usual question (a re-send after a crash); null: the usual. */
  question: string | null;
  /** The run and the call (its issue order) that asked; a resumed run finds its approval again by them. */
  executionId: number | null;
  callIndex: number | null;
}
export type ApprovalState = "pending" | "approved" | "denied" | "expired";

/** An approval as lists, events and decisions show it: `parameters` is the preview (see `parametersPreview`). */
export type ApprovalSummary = Omit<ApprovalRow, "parametersPreview" | "parameters"> & { parameters: unknown };

/** A list's row: the summary and what its tool is annotated with (a destructive one is worth a second look). */
export type ApprovalListRow = ApprovalSummary & { toolAnnotations: ToolAnnotations | null };

export type NewApproval = Pick<
  ApprovalRow,
  | "processId"
  | "keyId"
  | "serviceId"
  | "toolId"
  | "parameters"
  | "parametersPreview"
  | "parametersBytes"
  | "parametersSha256"
  | "question"
  | "executionId"
  | "callIndex"
>;

export interface ApprovalFilter {
  state?: ApprovalState;
  processId?: number;
  serviceId?: string;
  toolId?: string;
  /** The key the process was created with; `bootstrap` for the bootstrap key (stored as null). */
  keyId?: string;
  before?: number;
  limit: number;
}

export interface Decision {
  state: Exclude<ApprovalState, "pending">;
  decidedBy: string | null;
  reason: string | null;
}

export interface ApprovalStore {
  /**
   * Inserts a pending approval unless its key (null: the bootstrap key, or no authentication) already has
   * `maxPendingPerKey` pending ones; then answers how many it has. Counting and inserting take turns per key (one
   * transaction; on PostgreSQL under a lock of the key), so concurrent calls cannot pass the limit together.
   */
  insert(values: NewApproval, maxPendingPerKey: number): Promise<ApprovalSummary | { pending: number }>;
  /** The whole row, parameters included. */
  get(id: number): Promise<ApprovalRow | undefined>;
  /** The approval with the decision, or undefined when it was not pending (any more). */
  decide(id: number, decision: Decision): Promise<ApprovalSummary | undefined>;
  /** Newest first; `limit + 1` rows; each with its tool's annotations now (null when the tool is gone). */
  list(filter: ApprovalFilter): Promise<ApprovalListRow[]>;
  /**
   * Every pending approval expired at once (at start: nobody waits for them any more), but those of the runs in
   * `except` (runs the host resumes, whose calls will wait for them again).
   */
  expirePending(reason: string, except?: readonly number[]): Promise<ApprovalSummary[]>;
  /** How many approvals of a run are pending (an evicted run resumes once none is). */
  pendingOfRun(executionId: number): Promise<number>;
  /** The oldest pending approvals, at most `limit` (the expiry sweep). */
  oldestPending(limit: number): Promise<ApprovalSummary[]>;
  /** The latest approval a call of a run asked for (its issue order), if any: a resumed run waits for it again. */
  forCall(processId: number, executionId: number, callIndex: number): Promise<ApprovalSummary | undefined>;
  /** The pending approvals of the processes of one key expired at once (the key was revoked). */
  expireKey(keyId: string, reason: string): Promise<ApprovalSummary[]>;
}
