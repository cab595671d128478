/**
 * Approvals: a call of a tool whose policy is `ask` waits here until an
 * operator approves or denies it, or until `CYRNEL_APPROVAL_TIMEOUT_MS`
 * passes. The waiting call is a promise in this process; the approval is a
 * row, so it outlives the wait as a record. While any approval of a process
 * is pending, the process is suspended (the `approvalsPending` notice: the
 * process runner pauses its deadline); every creation and decision is
 * noticed too (`approvalChanged`, the process's event stream). Both are
 * `ProcessEvents` notices (domain/processes/process-events.ts).
 *
 * Nothing survives a restart but the rows: pending ones are expired at
 * start, since the calls that waited for them are gone. With many hosts
 * (PostgreSQL) the call may wait on another host than the one that decides:
 * the decision is written, then the `approvalDecided` event tells the other
 * hosts, and the host where the call waits settles it from the row
 * (`settleFromStore`); pending approvals of a lost host are expired by the
 * reaper, not at start.
 *
 * What code can make big is bounded: an approval's parameters are at most
 * `parametersLimitBytes` of JSON (else the call fails 413, nothing sent);
 * each key has at most `maxPendingPerKey` approvals pending (else the call
 * fails 429 `too_many_pending_approvals`); and only `get` reads the whole
 * parameters — lists, events, decisions and the waiting calls here hold a
 * summary with a preview of at most APPROVAL_PREVIEW_CHARS characters, the
 * whole value's size and its SHA-256.
 *
 * A key that is revoked takes its pending approvals with it (`expireKey`,
 * on the `keyRevoked` event), and the tool gate reads the key again after
 * any approval, so an approval never sends a call for a key that is gone.
 */
import { createHash } from "node:crypto";
import { APPROVAL_PREVIEW_CHARS, type Approval } from "../../contract/governance.js";
import { CyrnelError, messageOf, notFound } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import type { ProcessEvents } from "../processes/process-events.js";
import { boundedJson } from "../secrets/secret-masks.js";
import type { ApprovalFilter, ApprovalListRow, ApprovalStore, ApprovalSummary, Decision } from "./approval-store.js";

/** Most pending approvals one expiry sweep looks at (oldest first). */
const SWEEP_BATCH = 1000;

/** Seconds a call refused for too many pending approvals is told to wait (`Retry-After`): decisions are people's. */
export const PENDING_RETRY_AFTER_SECONDS = 60;

/** A pending approval in a list says when it expires; decided ones have null. */
export type ApprovalListItem = ApprovalListRow & { expiresAt: string | null };

/** One id of a bulk decision: the decided approval, or why it was not decided. */
export interface BulkDecisionResult {
  id: number;
  approval: ApprovalSummary | null;
  error: { code: string; message: string } | null;
}

export interface ApprovalRequest {
  processId: number;
  keyId: string | null;
  serviceId: string;
  toolId: string;
  /** What the operator sees: the call's parameters with the service's secret values masked. */
  parameters: Record<string, unknown>;
  /** The journaled call that asks (its run and issue order): a resumed run asking again gets the same approval. */
  call?: { executionId: number; index: number };
  /** What the operator is asked, when it is not the policy's usual question. */
  question?: string;
}

export interface ApprovalsOptions {
  store: ApprovalStore;
  logger: HostLogger;
  /** `CYRNEL_APPROVAL_TIMEOUT_MS`. */
  timeoutMs: number;
  /** A service's own timeout, when its policy sets one (null: `timeoutMs`). */
  timeoutOf?(serviceId: string): Promise<number | null>;
  /** `CYRNEL_PENDING_APPROVALS_LIMIT`: approvals one key (null: the bootstrap key, no auth) may have pending. */
  maxPendingPerKey: number;
  /** Largest JSON text of an approval's parameters, in UTF-8 bytes (`CYRNEL_BODY_LIMIT_BYTES`). */
  parametersLimitBytes: number;
  /** Where approvals are noticed (`approvalChanged`, `approvalsPending`) and decisions told (`approvalDecided`). */
  events: ProcessEvents;
}

interface Waiting {
  row: ApprovalSummary;
  processId: number;
  timer: NodeJS.Timeout;
  settle(approval: ApprovalSummary): void;
  /** Stops waiting without a decision (the run was let go of; the approval stays pending). */
  abandon(error: CyrnelError): void;
}

export class Approvals {
  private readonly waiting = new Map<number, Waiting>();
  private readonly byProcess = new Map<number, Set<number>>();

  constructor(private readonly options: ApprovalsOptions) {}

  /**
   * Start: approvals left pending by the previous run of the host, but those of the runs it resumes (`resumed`,
   * execution ids): their calls ask again and wait for the same approval.
   */
  async expireLeftovers(resumed: readonly number[] = []): Promise<number> {
    return (await this.options.store.expirePending("the host restarted before a decision", resumed)).length;
  }

  /**
   * Creates a pending approval and resolves (with it, decided) once it is approved; rejects
   * with `approval_denied` (the operator's reason in the message) or
   * `approval_expired`. Refuses at once (nothing stored) parameters past
   * the size limit (413) and a key that has too many pending (429).
   */
  async request(request: ApprovalRequest): Promise<ApprovalSummary> {
    const call = `${request.serviceId}.${request.toolId}`;
    const json = JSON.stringify(request.parameters);
    const bytes = Buffer.byteLength(json, "utf8");
    const { parametersLimitBytes: limit, maxPendingPerKey } = this.options;
    if (bytes > limit) {
      throw new CyrnelError(
        "payload_too_large",
        `the parameters of this call to ${call} are ${bytes} bytes of JSON; a call that waits for approval may ` +
          `carry at most ${limit} (CYRNEL_BODY_LIMIT_BYTES, as a direct invoke); nothing was sent`,
        { bytes, limitBytes: limit },
      );
    }
    // A resumed run asks again for what its earlier attempt asked: the same approval, decided or still pending. Not
    // for another question (the policy's approval does not approve a re-send), and a re-send asks anew each time its
    // call was in flight again: only a re-send question nobody answered yet is the same.
    const found =
      request.call === undefined
        ? undefined
        : await this.options.store.forCall(request.processId, request.call.executionId, request.call.index);
    const question = request.question ?? null;
    const earlier =
      found !== undefined && found.question === question && (question === null || found.state === "pending")
        ? found
        : undefined;
    if (earlier !== undefined && earlier.state !== "pending") {
      if (earlier.state === "approved") return earlier;
      throw refusal(earlier.id, call, earlier);
    }
    const { call: asking, question: _question, ...fields } = request;
    const inserted =
      earlier ??
      (await this.options.store.insert(
        {
          ...fields,
          question,
          executionId: asking?.executionId ?? null,
          callIndex: asking?.index ?? null,
          parametersPreview: boundedJson(request.parameters, APPROVAL_PREVIEW_CHARS, []).value,
          parametersBytes: bytes,
          parametersSha256: createHash("sha256").update(json, "utf8").digest("hex"),
        },
        maxPendingPerKey,
      ));
    if ("pending" in inserted) {
      const whose = request.keyId === null ? "the bootstrap key" : `API key ${request.keyId}`;
      throw new CyrnelError(
        "too_many_pending_approvals",
        `the call to ${call} was not made: ${whose} already has ${inserted.pending} approvals pending, the most ` +
          `allowed (CYRNEL_PENDING_APPROVALS_LIMIT); wait for decisions before making more calls that need one`,
        { pending: inserted.pending, limit: maxPendingPerKey, retryAfterSeconds: PENDING_RETRY_AFTER_SECONDS },
      );
    }
    const row = inserted;
    const { id, processId } = row;
    const timeoutMs = await this.timeoutOf(row.serviceId);
    // A resumed run waits for what is left of its approval's time.
    const left = Math.max(0, Date.parse(row.createdAt) + timeoutMs - Date.now());
    return new Promise<ApprovalSummary>((resolve, reject) => {
      const timer = setTimeout(() => void this.expire(id, `nobody decided within ${timeoutMs} ms`), left);
      timer.unref();
      this.waiting.set(id, {
        row,
        processId,
        timer,
        settle: (approval) => {
          if (approval.state === "approved") resolve(approval);
          else reject(refusal(id, call, approval));
        },
        abandon: reject,
      });
      const pending = this.byProcess.get(processId) ?? new Set<number>();
      this.byProcess.set(processId, pending.add(id));
      this.options.logger.info("a tool call waits for approval", { approval: id, process: processId, tool: call });
      this.options.events.notice("approvalChanged", { approval: row });
      this.options.events.notice("approvalsPending", { processId, pending: [...pending] });
      // An approval found pending may have been decided before this call waited for it (nobody was there to tell):
      // its row says so.
      if (earlier !== undefined) {
        this.settleFromStore(id).catch((error) =>
          this.options.logger.warn("could not read a decision again", { approval: id, error: messageOf(error) }),
        );
      }
    });
  }

  approve(id: number, decidedBy: string | null, reason: string | null): Promise<ApprovalSummary> {
    return this.decideAndTell(id, { state: "approved", decidedBy, reason });
  }

  deny(id: number, decidedBy: string | null, reason: string | null): Promise<ApprovalSummary> {
    return this.decideAndTell(id, { state: "denied", decidedBy, reason });
  }

  /**
   * Another host decided this approval (its row says how): the call waiting here, if any, goes on or fails.
   * Resolves whether a call of this host was settled.
   */
  async settleFromStore(id: number): Promise<boolean> {
    if (!this.waiting.has(id)) return false;
    const row = await this.options.store.get(id);
    if (!row || row.state === "pending" || !this.waiting.has(id)) return false;
    this.settleWaiting(id, row);
    return true;
  }

  /** The approvals calls of this host wait for, of one process (to settle from the rows after missed signals). */
  waitingOf(processId: number): number[] {
    return [...(this.byProcess.get(processId) ?? [])];
  }

  /**
   * The host let go of a run of the process without ending it (run-journal.ts): its calls stop waiting here and
   * their approvals stay pending; the resumed run's calls wait for them again, on whichever host resumes it.
   */
  releaseProcess(processId: number): void {
    for (const id of [...(this.byProcess.get(processId) ?? [])]) {
      const waiting = this.waiting.get(id);
      if (!waiting) continue;
      clearTimeout(waiting.timer);
      this.waiting.delete(id);
      waiting.abandon(new CyrnelError("call_canceled", "the run was let go of; it resumes from its journal"));
    }
    this.byProcess.delete(processId);
  }

  /** Expires a process's pending approvals by their rows (its run was let go of, then killed). */
  async expireStored(processId: number, reason: string): Promise<void> {
    for (const row of await this.options.store.list({ state: "pending", processId, limit: 1000 })) {
      await this.decide(row.id, { state: "expired", decidedBy: null, reason }).catch(() => undefined);
    }
  }

  /** Expires what a process still waits for (it was killed, or ended without awaiting its calls). */
  async expireProcess(processId: number, reason: string): Promise<void> {
    await Promise.all([...(this.byProcess.get(processId) ?? [])].map((id) => this.expire(id, reason)));
  }

  /**
   * The key was revoked: its pending approvals expire, saying so, and their calls fail `approval_expired` (here, or
   * on the host where they wait). Resolves how many there were.
   */
  async expireKey(keyId: string): Promise<number> {
    const expired = await this.options.store.expireKey(keyId, "the API key that started this process was revoked");
    for (const approval of expired) await this.settleAndTell(approval);
    if (expired.length > 0) {
      this.options.logger.info("the pending approvals of a revoked key expired", { key: keyId, count: expired.length });
    }
    return expired.length;
  }

  /** The process's pending approvals, oldest first. */
  pendingOf(processId: number): ApprovalSummary[] {
    return [...(this.byProcess.get(processId) ?? [])].flatMap((id) => this.waiting.get(id)?.row ?? []);
  }

  /** One approval with its parameters whole. */
  async get(id: number): Promise<Approval> {
    const row = await this.options.store.get(id);
    if (!row) throw notFound(`approval ${id}`);
    const { parametersPreview: _preview, ...approval } = row;
    return approval as Approval;
  }

  /** A page of approvals, each pending one with the time it expires (its service's timeout, or the host's). */
  async list(filter: ApprovalFilter): Promise<ApprovalListItem[]> {
    const rows = await this.options.store.list(filter);
    const timeouts = new Map<string, number>();
    for (const row of rows) {
      if (row.state === "pending" && !timeouts.has(row.serviceId)) {
        timeouts.set(row.serviceId, await this.timeoutOf(row.serviceId));
      }
    }
    return rows.map((row) => ({
      ...row,
      expiresAt:
        row.state === "pending"
          ? new Date(Date.parse(row.createdAt) + (timeouts.get(row.serviceId) ?? this.options.timeoutMs)).toISOString()
          : null,
    }));
  }

  /**
   * Expires, every `intervalMs`, the pending approvals whose time is up that no call of this host waits for: the
   * calls of runs the host let go of (evicted while they waited, or left by a host that stopped) wait for their
   * approvals as rows only. The expiry is told like a decision, so the run resumes and its call fails
   * `approval_expired`. Resolves a function that stops it.
   */
  sweepEvery(intervalMs: number): () => void {
    let sweeping = false;
    const timer = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      this.expireOverdue()
        .catch((error) => this.options.logger.warn("the approvals' expiry sweep failed", { error: messageOf(error) }))
        .finally(() => {
          sweeping = false;
        });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** One round of `sweepEvery`; resolves how many it expired. */
  async expireOverdue(): Promise<number> {
    let expired = 0;
    for (const row of await this.options.store.oldestPending(SWEEP_BATCH)) {
      if (this.waiting.has(row.id)) continue;
      const timeoutMs = await this.timeoutOf(row.serviceId);
      if (Date.parse(row.createdAt) + timeoutMs > Date.now()) continue;
      try {
        await this.decideAndTell(row.id, {
          state: "expired",
          decidedBy: null,
          reason: `nobody decided within ${timeoutMs} ms`,
        });
        expired++;
      } catch (error) {
        if (!(error instanceof CyrnelError && error.code === "conflict")) throw error;
      }
    }
    return expired;
  }

  private async timeoutOf(serviceId: string): Promise<number> {
    return (await this.options.timeoutOf?.(serviceId).catch(() => null)) ?? this.options.timeoutMs;
  }

  /**
   * Decides many approvals with one verb and one reason, each exactly as `approve`/`deny` decides one (in the order
   * given, one after the other): a refusal of one (already decided, not found) is reported with its id and does not
   * stop the others. Resolves one result per distinct id.
   */
  async decideMany(
    ids: readonly number[],
    verb: "approve" | "deny",
    decidedBy: string | null,
    reason: string | null,
  ): Promise<BulkDecisionResult[]> {
    const results: BulkDecisionResult[] = [];
    for (const id of new Set(ids)) {
      try {
        results.push({ id, approval: await this[verb](id, decidedBy, reason), error: null });
      } catch (error) {
        // Only the API's own refusals are reported per id; anything else (the database failing) is the request's.
        if (!(error instanceof CyrnelError)) throw error;
        results.push({ id, approval: null, error: { code: error.code, message: error.message } });
      }
    }
    return results;
  }

  private async expire(id: number, reason: string): Promise<void> {
    try {
      await this.decide(id, { state: "expired", decidedBy: null, reason });
    } catch (error) {
      // Decided meanwhile (409), or the database is closing at shutdown: the waiting call still has to end.
      const waiting = this.waiting.get(id);
      if (waiting && !(error instanceof CyrnelError && error.code === "conflict")) {
        this.options.logger.warn("could not record an expired approval", { approval: id });
        this.settleWaiting(id, { ...waiting.row, state: "expired", reason, decidedAt: new Date().toISOString() });
      }
    }
  }

  private async decideAndTell(id: number, decision: Decision): Promise<ApprovalSummary> {
    const decided = await this.options.store.decide(id, decision);
    if (!decided) throw await this.alreadyDecided(id);
    this.options.logger.info("an approval was decided", { approval: id, state: decided.state });
    await this.settleAndTell(decided);
    return decided;
  }

  /** A decision written: the call waiting on this host goes on or fails; another host's is told. */
  private async settleAndTell(decided: ApprovalSummary): Promise<void> {
    const waitsHere = this.waiting.has(decided.id);
    this.settleWaiting(decided.id, decided);
    if (!waitsHere) {
      // The row holds the decision already; telling is the fast path (a host that misses it re-reads the rows).
      await this.options.events.emit("approvalDecided", { approval: decided }).catch((error) =>
        this.options.logger.warn("could not tell the other hosts of a decision", {
          approval: decided.id,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  }

  private async decide(id: number, decision: Decision): Promise<ApprovalSummary> {
    const decided = await this.options.store.decide(id, decision);
    if (!decided) throw await this.alreadyDecided(id);
    this.options.logger.info("an approval was decided", { approval: id, state: decided.state });
    this.settleWaiting(id, decided);
    return decided;
  }

  private async alreadyDecided(id: number): Promise<CyrnelError> {
    const row = await this.options.store.get(id);
    if (!row) return notFound(`approval ${id}`);
    return new CyrnelError("conflict", `approval ${id} is already ${row.state}`);
  }

  /** The process is told first (it resumes), then the event, then the waiting call goes on or fails. */
  private settleWaiting(id: number, approval: ApprovalSummary): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    if (waiting) {
      clearTimeout(waiting.timer);
      const pending = this.byProcess.get(waiting.processId);
      pending?.delete(id);
      if (pending?.size === 0) this.byProcess.delete(waiting.processId);
      this.options.events.notice("approvalsPending", { processId: waiting.processId, pending: [...(pending ?? [])] });
    }
    this.options.events.notice("approvalChanged", { approval });
    if (waiting) this.options.events.notice("approvalSettled", { approval });
    waiting?.settle(approval);
  }
}

function refusal(id: number, call: string, approval: ApprovalSummary): CyrnelError {
  if (approval.state === "denied") {
    const why = approval.reason ? `: ${approval.reason}` : " (no reason given)";
    return new CyrnelError("approval_denied", `the call to ${call} was denied by an operator${why}`, {
      approvalId: id,
      reason: approval.reason,
    });
  }
  return new CyrnelError("approval_expired", `the call to ${call} was not approved: ${approval.reason}`, {
    approvalId: id,
  });
}
