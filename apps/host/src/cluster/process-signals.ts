/**
 * Reaching the host that executes a process, from any host: kill it, tell
 * it an approval was decided, and follow its run's live events.
 *
 * Control signals go to every host on one channel, `cyrnel_signals`, and
 * the host that has the process attached acts; the others ignore them. A
 * broadcast needs no lookup of who runs what, so it has no race with a
 * claim in flight, and kills and decisions are rare enough that every host
 * reading them costs nothing. A host's own signals reach it too: the sender
 * need not know whether it runs the process itself.
 *
 * | signal | payload |
 * |---|---|
 * | kill | `{o: origin, k: "kill", p: processId, r: reason or null}` |
 * | approval decided | `{o: origin, k: "approval", p: processId, a: approvalId, d: "approved"\|"denied"\|"expired"}` |
 *
 * A notification is the fast path, never the only one: what a signal says
 * is always in the database first, and the executing host reads it there
 * whenever its listening connection had a gap (`RunControl.resync`), so a
 * lost notification delays nothing but itself.
 * - **Kill.** The sender records the kill first (`ExecutionRuns.requestKill`
 *   in execution-runs.ts): a run nobody claimed yet is ended `canceled` there
 *   and never claimed (a claim refuses a run with a kill mark); a claimed run
 *   is marked, and the signal goes out in the same transaction, on commit.
 *   The executing host attaches a run as soon as it has claimed it.
 * - **Approvals.** The deciding host writes the decision (a conditional
 *   UPDATE of the approval row), then signals; the executing host re-reads
 *   the row and settles the call that waits for it.
 *
 * Live events: see run-events.ts.
 */
import type { Logger } from "@cyrnel/sdk";
import type pg from "pg";
import type { ListenSubscription, NotificationListener } from "./notification-listener.js";
import type { QueuedRun } from "./run-claims.js";
import {
  type FollowEvent,
  type FollowedRun,
  followRun,
  RunPublisher,
  type RunSnapshot,
  sendRunEnded,
} from "./run-events.js";
import { messageOf, type Queryable, silentLogger } from "./sql.js";

export const SIGNALS_CHANNEL = "cyrnel_signals";

export type ApprovalDecision = "approved" | "denied" | "expired";

/** What the executing host does when a signal for an attached process arrives. */
export interface RunControl {
  kill(reason: string | null): void;
  approvalDecided(approvalId: number, decision: ApprovalDecision): void;
  /**
   * Signals may have been missed (the listening connection dropped): read
   * the run's kill mark and its pending approvals from the database and act
   * on them. Also what the executing host calls right after attaching.
   */
  resync?(): void;
}

type Signal =
  | { o: string; k: "kill"; p: number; r: string | null }
  | { o: string; k: "approval"; p: number; a: number; d: ApprovalDecision };

export interface ProcessSignalsOptions {
  pool: pg.Pool;
  listener: NotificationListener;
  hostId: string;
  /** How often an attached run's text so far is written to its row, at most (default 250 ms). */
  flushIntervalMs?: number;
  logger?: Logger;
}

export interface AttachedRun {
  /** Sends the run's text and events, and persists its text (see run-events.ts). */
  publisher: RunPublisher;
  /** Stops taking signals for it without ending its stream (the claim failed: another host runs it). */
  detach(): void;
}

export class ProcessSignals {
  private readonly attached = new Map<number, RunControl>();
  private subscription: ListenSubscription | null = null;
  private offGap: (() => void) | null = null;
  private readonly logger: Logger;

  constructor(private readonly options: ProcessSignalsOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Starts receiving control signals (every host that executes runs). */
  async start(): Promise<void> {
    if (this.subscription) return;
    this.offGap = this.options.listener.onGap(() => {
      for (const [processId, control] of [...this.attached]) this.call(processId, () => control.resync?.());
    });
    this.subscription = await this.options.listener.listen(SIGNALS_CHANNEL, (payload) => this.receive(payload));
  }

  async stop(): Promise<void> {
    this.offGap?.();
    this.offGap = null;
    await this.subscription?.close();
    this.subscription = null;
  }

  // ---- any host -------------------------------------------------------------------

  /** Asks the host that runs the process to kill it (record the kill in the database first; see the file comment). */
  async kill(processId: number, reason: string | null = null, tx?: Queryable): Promise<void> {
    await this.send({ o: this.options.hostId, k: "kill", p: processId, r: reason }, tx);
  }

  /** Tells the host that runs the process that one of its approvals was decided (after the row was written). */
  async approvalDecided(
    processId: number,
    approvalId: number,
    decision: ApprovalDecision,
    tx?: Queryable,
  ): Promise<void> {
    await this.send({ o: this.options.hostId, k: "approval", p: processId, a: approvalId, d: decision }, tx);
  }

  /** Follows the process's current run from this host (see `followRun`). */
  follow(
    processId: number,
    read: () => Promise<RunSnapshot>,
    onEvent: (event: FollowEvent) => void,
    catchUp = false,
  ): Promise<FollowedRun> {
    return followRun({
      listener: this.options.listener,
      processId,
      read,
      onEvent,
      catchUp,
      retryMs: this.options.flushIntervalMs,
      logger: this.logger,
    });
  }

  /** Tells readers a run ended that no host will end (its host was lost); use the reaper's transaction. */
  async runEnded(run: QueuedRun, tx?: Queryable): Promise<void> {
    await sendRunEnded(tx ?? this.options.pool, run.processId, run.executionId);
  }

  // ---- the executing host ------------------------------------------------------------

  /**
   * Takes the signals for a process this host just claimed, and gives the
   * publisher of its live events; then call `control.resync()` once (see the
   * file comment). Ending the publisher detaches.
   */
  attach(
    run: QueuedRun,
    control: RunControl,
    persist: (text: { stdout: string; stderr: string }) => Promise<void>,
  ): AttachedRun {
    if (this.attached.has(run.processId)) throw new Error(`process ${run.processId} is already attached`);
    this.attached.set(run.processId, control);
    const detach = () => {
      if (this.attached.get(run.processId) === control) this.attached.delete(run.processId);
    };
    const publisher = new RunPublisher({
      pool: this.options.pool,
      processId: run.processId,
      executionId: run.executionId,
      persist,
      ...(this.options.flushIntervalMs === undefined ? {} : { flushIntervalMs: this.options.flushIntervalMs }),
      logger: this.logger,
      onEnded: detach,
    });
    return { publisher, detach };
  }

  // ---- internals ------------------------------------------------------------------

  private async send(signal: Signal, tx?: Queryable): Promise<void> {
    await (tx ?? this.options.pool).query("SELECT pg_notify($1, $2)", [SIGNALS_CHANNEL, JSON.stringify(signal)]);
  }

  private receive(payload: string): void {
    let signal: Signal;
    try {
      signal = JSON.parse(payload) as Signal;
    } catch {
      this.logger.warn("an unreadable process signal was dropped");
      return;
    }
    const control = this.attached.get(signal.p);
    if (!control) return;
    this.call(signal.p, () => {
      if (signal.k === "kill") control.kill(signal.r ?? null);
      else if (signal.k === "approval") control.approvalDecided(signal.a, signal.d);
    });
  }

  /** A control's failure is the run's business; it must not reach the listener (or the other runs). */
  private call(processId: number, act: () => unknown): void {
    try {
      const result = act();
      if (result instanceof Promise) {
        result.catch((error) =>
          this.logger.error("handling a process signal failed", { process: processId, error: messageOf(error) }),
        );
      }
    } catch (error) {
      this.logger.error("handling a process signal failed", { process: processId, error: messageOf(error) });
    }
  }
}
