/**
 * The call records store. Records arrive in batches (see `CallLog`), each
 * written in one transaction, so the audit trail costs a tool call no
 * commit of its own. Ids are assigned by the host (`CallLog`), from the
 * highest ever used: pruning never lets one come back.
 */
import type { CallCounts } from "../../contract/governance.js";

/** One tool call, allowed or refused (the audit trail). */
export interface CallRow {
  id: number;
  processId: number | null;
  /** The run of the process the call belongs to (for its summary); not part of the API. */
  executionId: number | null;
  keyId: string | null;
  serviceId: string;
  toolId: string;
  startedAt: string;
  durationMs: number;
  /** `ok`, or the error code the call ended with. */
  outcome: string;
  /** The end service's status when the adapter reported one. */
  status: number | null;
  /** The connection (connected account) whose access token the call carried, or null. */
  connectionId: string | null;
  /** A preview of the parameters (secret values masked, at most 2 KiB of JSON): the value, or its cut JSON text. */
  parameters: unknown;
}
/** A row as it is written: `parameters` is already JSON text. */
export type NewCallRow = Omit<CallRow, "parameters"> & { parameters: string };

export interface CallFilter {
  serviceId?: string;
  toolId?: string;
  keyId?: string;
  processId?: number;
  outcome?: string;
  /** ISO-8601 (UTC, as the host writes it): calls that started at or after it. */
  since?: string;
  /** ISO-8601 (UTC): calls that started before it. */
  until?: string;
  connectionId?: string;
  before?: number;
  limit: number;
}

export interface CallStore {
  /** The highest id ever given to a call, including pruned ones. */
  lastId(): Promise<number>;
  insertMany(rows: readonly NewCallRow[]): Promise<void>;
  /** Newest first; `limit + 1` rows. */
  list(filter: CallFilter): Promise<CallRow[]>;
  /** The calls of the process's latest run. */
  countsOfLatestRun(processId: number): Promise<CallCounts>;
  /** Deletes the calls that started before `startedBefore` (ISO-8601); how many. */
  prune(startedBefore: string): Promise<number>;
}
