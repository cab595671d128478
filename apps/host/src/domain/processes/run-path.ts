/**
 * Where a process's runs go: the one seam between the process API
 * (process-runner.ts) and the two ways a run is carried out. A host on
 * SQLite runs what it admits, on its own environment (local-path.ts); hosts
 * sharing PostgreSQL put every run in the durable process queue, for any
 * host that runs processes to take (queued-path.ts). The API picks one when
 * it is built and never asks which it has; what is the same on both
 * (admission, following, views) stays in the API.
 */
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { StreamReader } from "./live-run.js";
import type { Submission } from "./process-admission.js";
import type { ProcessRow } from "./process-store.js";

export interface RunPath {
  /**
   * Writes a new process with its first run and hands the run on (the submission and its key are admitted).
   * `row`: the process as written, when the path has it without reading it again.
   */
  create(
    submission: Submission,
    keyId: string | null,
    typecheck: boolean | undefined,
  ): Promise<{ processId: number; row?: ProcessRow }>;
  /** Starts another run of an idle process (its checks done); a run started meanwhile makes this a conflict. */
  run(row: ProcessRow, typecheck: boolean | undefined): Promise<void>;
  /** Ends the process's current run `canceled`; resolves once it has ended (a conflict when there is none). */
  kill(processId: number): Promise<void>;
  /** Resolves once the process's current run has ended (at once if it has), or `signal` aborts. */
  waitEnded(processId: number, signal?: AbortSignal): Promise<void>;
  /** The approvals these processes wait for, oldest first; a process the path knows waits for none may be left out. */
  pendingApprovals(rows: readonly ProcessRow[]): Promise<Map<number, readonly ApprovalSummary[]>>;
  /** Whether the process has a run to follow live; if not, its row is all there is. */
  isLive(row: ProcessRow): boolean;
  /** The process's run as it goes on: what it has so far, then each new event through `send` until it ends. */
  follow(row: ProcessRow, send: StreamReader): Promise<RunFeed>;
  /**
   * The path's own part of canceling the runs of an environment (null: of all, the host stops), done before the
   * runs on this host are ended; resolves once it is done (a failure is logged).
   */
  cancel(environmentId: string | null, reason: string): Promise<void>;
  /** Resolves once no run of the environment is on its way to start on this host. */
  settled(environmentId: string): Promise<void>;
}

/** A run followed live (see `RunPath.follow`). */
export interface RunFeed {
  /** The text so far; `send` gets what comes after. */
  stdout: string;
  stderr: string;
  /** The approvals the run waits for now (their events came before the feed did). */
  approvals: readonly ApprovalSummary[];
  /** Resolves once the run has ended and its final row is written. */
  done: Promise<void>;
  /** Stops sending (the reader went away). */
  close(): void;
}
