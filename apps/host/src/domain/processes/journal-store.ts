/**
 * The journal store: what a run did that a resumed attempt must not do
 * again (run-journal.ts). Every write names the attempt it belongs to and
 * lands only while that attempt is the run's latest, so a host that lost a
 * run (its lease expired, another host resumed it) cannot add to the journal
 * the new attempt replays.
 */

/** One tool call of a run, by its issue order. */
export interface JournalCall {
  index: number;
  /** SHA-256 of the call's service, tool and parameters (run-journal.ts `callDigest`). */
  digest: string;
  serviceId: string;
  toolId: string;
  /** `started`: it was sent to its adapter and no answer was recorded (in flight, or the host died). */
  state: "started" | "ok" | "error";
  /** The result (`ok`) or the error (`error`) as JSON text; null while started. */
  payload: string | null;
}

/** A run's journal as a resumed attempt reads it. */
export interface JournalRecord {
  calls: JournalCall[];
  /** The environment's entries, in the order they were recorded. */
  replay: string[];
  /** The bytes its payloads take (counted against the limit). */
  bytes: number;
  /** Why the run cannot be resumed; null: it can. */
  notDurable: string | null;
  /** Which attempt is the latest (1: the first). */
  attempts: number;
}

/** One write of the journal: the environment's entries so far, then a call's entry (new, or its answer). */
export interface JournalWrite {
  replay?: readonly string[];
  call?: JournalCall;
  /** The payload bytes this write adds. */
  bytes: number;
}

/** A run left unfinished by a host that stopped, as the host that resumes it finds it. */
export interface UnfinishedRun {
  processId: number;
  executionId: number;
  notDurable: string | null;
  /** Its process's state: `suspended` for a run that waits for an approval (maybe evicted, holding nothing). */
  state: string;
  /** When a run let go of while it slept is due to resume (ISO); null: it was not asleep. */
  wakeAt: string | null;
}

export interface JournalStore {
  read(executionId: number): Promise<JournalRecord>;
  /**
   * Writes in one transaction, if `attempt` is still the run's latest; resolves false (nothing written) when it is
   * not. A call entry replaces the one of the same index.
   */
  write(executionId: number, attempt: number, write: JournalWrite): Promise<boolean>;
  /** The run's journal outgrew its limit: it says why, and is never resumed. */
  markNotDurable(executionId: number, reason: string): Promise<void>;
  /** A new attempt of the run begins (it is resumed; it sleeps no more): resolves its number. */
  beginAttempt(executionId: number): Promise<number>;
  /** The host let go of the run while it sleeps: it is due to resume at `wakeAt` (ISO). */
  sleepUntil(executionId: number, wakeAt: string): Promise<void>;
  /**
   * The runs of this database that have not ended and whose process is not idle (one host, at its start), or only
   * that process's (a kill of a run let go of).
   */
  unfinished(processId?: number): Promise<UnfinishedRun[]>;
}
