/**
 * What governance (api keys, approvals, the call log) and the process
 * runner tell each other, as typed events instead of closures: neither
 * holds the other. The composition root (app.ts) builds one
 * `ProcessEvents` and subscribes the listeners each event names below.
 *
 * Two kinds, by what the publisher needs:
 * - events (`emit`, `ProcessEventMap`): the publisher awaits every listener
 *   before it goes on (`AwaitedEvents`): a run's final row is written only
 *   once what its calls waited for has expired;
 * - notices (`notice`, `ProcessNoticeMap`): delivered synchronously, in
 *   order, from code that cannot wait (`ImmediateEvents`): a run resumes
 *   before the call that waited for its approval goes on.
 */
import type { ExecutionExitState } from "@cyrnel/sdk";
import type { CallRecord } from "../../contract/governance.js";
import { AwaitedEvents, type Listener } from "../../lib/awaited-events.js";
import { ImmediateEvents, type ImmediateListener } from "../../lib/immediate-events.js";
import type { ApprovalSummary } from "../governance/approval-store.js";

/** Events whose publisher awaits its listeners. */
export interface ProcessEventMap {
  /**
   * A stored API key was revoked (its row is gone). Approvals expire what its processes wait for, saying so, and
   * their calls fail `approval_expired`; `ApiKeys.revoke` resolves after.
   */
  keyRevoked: { keyId: string };
  /**
   * A run ends, or is being ended (a kill, a deadline, its environment stopping): what its calls still wait for will
   * never be needed. Approvals expire it with `reason`; the run writes its final row only after. Published by the run
   * (`LiveRun`) once when the host decides the end and once when the run is over.
   */
  runEnding: { processId: number; reason: string };
  /**
   * The host let go of a run without ending it (it stops, or evicted a run that waits for an approval): the run will
   * be resumed from its journal. Approvals stop waiting here for its calls and leave their approvals pending, for
   * the resumed run to wait for again.
   */
  runDetached: { processId: number };
  /**
   * An approval was decided through this host and no call of this host waits for it (its row is written). The process
   * cluster (PostgreSQL) tells the hosts where its call may wait; without listeners (SQLite) nothing more is needed.
   * A failure is logged by the publisher (`Approvals`), not thrown: the row already holds the decision.
   */
  approvalDecided: { approval: ApprovalSummary };
}

/** Notices, delivered synchronously while the publisher waits for nothing. */
export interface ProcessNoticeMap {
  /**
   * An approval was created or decided (expiries included). The process runner sends it to the live readers of its
   * process's run (`{type: "approval"}`), and through the queue to readers on other hosts.
   */
  approvalChanged: { approval: ApprovalSummary };
  /**
   * The pending approvals of a process changed (`pending`: their ids; empty: none is left). The process runner
   * suspends its run while any is pending and resumes it with the time it had left. On a decision, noticed before
   * its `approvalChanged` and before the waiting call goes on.
   */
  approvalsPending: { processId: number; pending: readonly number[] };
  /**
   * A tool call ended (its record, noticed before it is written). The process runner sends a process's calls to the
   * live readers of its run (`{type: "call"}`).
   */
  callEnded: { record: CallRecord };
  /**
   * A call waiting on this host for an approval got its answer (`approval`: decided or expired), however and on
   * whichever host it was decided; noticed once per approval, on the host where the call waited. The host's metrics
   * count it (`cyrnel_approvals_total`, the wait).
   */
  approvalSettled: { approval: ApprovalSummary };
  /**
   * A run this host executed (or took from the queue and ended unrun, or, on PostgreSQL, ended for another: a
   * queue timeout its sweep found, a lost host's run its reaper ended) is over, with how it ended; `ran`: whether
   * its code started (false: it ended while queued — a queue timeout when `exitState` is `timeout`). The host's
   * metrics count it (`cyrnel_processes_ended_total`).
   */
  runEnded: { processId: number; exitState: ExecutionExitState; ran: boolean };
}

export class ProcessEvents {
  private readonly events = new AwaitedEvents<ProcessEventMap>();
  private readonly notices = new ImmediateEvents<ProcessNoticeMap>();

  /** Subscribes to an event; its publisher waits for `listener` (see `ProcessEventMap`). */
  on<K extends keyof ProcessEventMap>(name: K, listener: Listener<ProcessEventMap[K]>): void {
    this.events.on(name, listener);
  }

  /** Calls each listener in turn, awaiting each; rejects with the first error. */
  emit<K extends keyof ProcessEventMap>(name: K, payload: ProcessEventMap[K]): Promise<void> {
    return this.events.emit(name, payload);
  }

  /** Subscribes to a notice; `listener` runs synchronously in its publisher's turn (see `ProcessNoticeMap`). */
  onNotice<K extends keyof ProcessNoticeMap>(name: K, listener: ImmediateListener<ProcessNoticeMap[K]>): void {
    this.notices.on(name, listener);
  }

  /** Calls each listener synchronously, in order; throws the first error. */
  notice<K extends keyof ProcessNoticeMap>(name: K, payload: ProcessNoticeMap[K]): void {
    this.notices.emit(name, payload);
  }
}
