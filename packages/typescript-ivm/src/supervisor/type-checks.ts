import { createHash } from "node:crypto";
import type { EnvironmentBindings, Logger } from "@cyrnel/sdk";
import { formatTypeErrors, type TypeErrorLine } from "../checker/code-file.js";
import type { CheckedService, RenderedService } from "../checker/protocol.js";
import {
  serviceNotTypeChecked,
  typecheckCrashed,
  typecheckOutOfMemory,
  typecheckTimedOut,
  typecheckUnavailable,
} from "../messages.js";
import { type CheckerAnswer, CheckerThread, renderInThread } from "./checker-thread.js";

/** What the check decided: run the code (first writing `notes` to its stderr), or fail it with `error`. */
export type CheckOutcome = { run: true; notes: string[] } | { run: false; error: string };

/** A service the code can reach, from its run's catalog. */
export interface ReachableService {
  serviceId: string;
  revision: string;
  tools: string[];
}

/** The services of one catalog, with a digest of them for the result cache. */
export interface CheckScope {
  services: ReachableService[];
  digest: string;
}

type Declarations = { ok: true; rendered: RenderedService } | { ok: false; reason: string };

/** What became of one check, and whether the same code in the same scope may be answered from it later. */
type Decided = { outcome: CheckOutcome; cacheable: boolean };

interface QueuedCheck {
  code: string;
  scope: CheckScope;
  /** The declarations of `scope.services`, in order. */
  prepared: Declarations[];
  resolve(decided: Decided): void;
}

/** Most programs checked in one request, and most characters of code in it (a program is at most the host's code limit). */
const MAX_BATCH = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;

/** How long parsing one service's declarations may take in the checker thread (not part of a check's budget). */
const DECLARE_TIMEOUT_MS = 60_000;
/** Checks remembered by code and scope: the same program submitted again is not checked again. */
const RESULT_CACHE_SIZE = 256;

/**
 * Type checks of process code, seen from the supervisor: which
 * declarations each check needs, where they come from and how long they
 * are kept, and what a check that cannot finish means.
 *
 * - A service's declarations are rendered from its tools' schemas
 *   (`bindings.serviceTools`) in a thread of their own, once per revision
 *   of the service, and parsed once by the checker thread (again only after
 *   the thread restarted).
 * - Checks run one at a time in the checker thread, each within
 *   `typecheckTimeoutMs`; the time to prepare a changed service is not
 *   counted. A check past its budget, out of the thread's memory, or one the
 *   compiler throws on fails the code without running it: the check is
 *   about this code, and `typecheck: false` runs it unchecked.
 * - When types are not available — the thread cannot start, a service's
 *   declarations cannot be had — the code runs, with a note on its stderr:
 *   that is the environment's failure, not the code's. A service without
 *   declarations is typed `any`, so the rest is still checked.
 * - Results are kept by code and scope (services, revisions, tools), so
 *   the same program submitted again (or a thousand times at once) is
 *   checked once.
 */
export class TypeChecks {
  private readonly thread: CheckerThread;
  private readonly declarations = new Map<string, { revision: string; result: Promise<Declarations> }>();
  private readonly results = new Map<string, CheckOutcome>();
  private readonly inFlight = new Map<string, Promise<CheckOutcome>>();
  private readonly queue: QueuedCheck[] = [];
  private pumping = false;
  /** Renders run one after another: each can take seconds of CPU and hundreds of megabytes. */
  private renders: Promise<unknown> = Promise.resolve();
  private readonly closing = new AbortController();

  constructor(
    private readonly limits: { timeoutMs: number; memoryMb: number },
    private readonly bindings: Pick<EnvironmentBindings, "serviceTools">,
    private readonly logger: Logger,
  ) {
    this.thread = new CheckerThread(limits.memoryMb);
  }

  warm(): void {
    this.thread.warm();
  }

  check(code: string, scope: CheckScope): Promise<CheckOutcome> {
    const key = `${createHash("sha256").update(code).digest("base64")}:${scope.digest}`;
    const known = this.results.get(key);
    if (known !== undefined) {
      // Most recently used last: the oldest entry is the first to go.
      this.results.delete(key);
      this.results.set(key, known);
      return Promise.resolve(known);
    }
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const checked = this.run(code, scope).then(({ outcome, cacheable }) => {
      this.inFlight.delete(key);
      if (cacheable) {
        this.results.set(key, outcome);
        if (this.results.size > RESULT_CACHE_SIZE) this.results.delete(this.results.keys().next().value as string);
      }
      return outcome;
    });
    this.inFlight.set(key, checked);
    return checked;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.thread.close();
  }

  private async run(code: string, scope: CheckScope): Promise<{ outcome: CheckOutcome; cacheable: boolean }> {
    const prepared = await Promise.all(scope.services.map((service) => this.prepare(service)));
    return new Promise((resolve) => {
      this.queue.push({ code, scope, prepared, resolve });
      void this.pump();
    });
  }

  /**
   * Checks what is queued, one request to the thread at a time. Checks that
   * waited together for the same scope go as one batch: a program per file
   * of one compiler program, so the cost of a check that is not the code
   * itself (a new type checker, the library's types) is paid once per batch
   * rather than per check — ~4 ms per check alone, ~0.5 ms in a batch of 100
   * (a small service, warm). A batch that fails as a whole (its budget, the
   * heap) is checked again one program at a time, so the program to blame
   * fails alone.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const { digest } = (this.queue[0] as QueuedCheck).scope;
        const batch: QueuedCheck[] = [];
        let chars = 0;
        for (let i = 0; i < this.queue.length && batch.length < MAX_BATCH && chars < MAX_BATCH_CHARS; ) {
          const queued = this.queue[i] as QueuedCheck;
          if (queued.scope.digest !== digest) {
            i++;
            continue;
          }
          batch.push(queued);
          chars += queued.code.length;
          this.queue.splice(i, 1);
        }
        const outcomes = await this.checkBatch(batch);
        if (outcomes === null) {
          for (const queued of batch) queued.resolve((await this.checkBatch([queued]))?.[0] as Decided);
        } else {
          for (const [index, queued] of batch.entries()) queued.resolve(outcomes[index] as Decided);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** One request for programs of one scope: their outcomes, or null when a batch of several failed as a whole. */
  private async checkBatch(batch: readonly QueuedCheck[]): Promise<Decided[] | null> {
    const { scope, prepared } = batch[0] as QueuedCheck;
    const notes: string[] = [];
    const checked: CheckedService[] = [];
    for (const [index, service] of scope.services.entries()) {
      const declarations = prepared[index] as Declarations;
      let declared = declarations.ok;
      if (declarations.ok && this.thread.declared.get(service.serviceId) !== declarations) {
        const { namespace, tools, text } = declarations.rendered;
        const answer = await this.thread.request(
          { type: "declare", serviceId: service.serviceId, namespace, tools, text },
          DECLARE_TIMEOUT_MS,
        );
        if (answer.ok) this.thread.declared.set(service.serviceId, declarations);
        else {
          declared = false;
          notes.push(
            serviceNotTypeChecked(service.serviceId, `its declarations could not be parsed: ${answer.message}`),
          );
        }
      }
      if (!declarations.ok) notes.push(serviceNotTypeChecked(service.serviceId, declarations.reason));
      checked.push({ serviceId: service.serviceId, tools: service.tools, declared });
    }
    const answer = await this.thread.request(
      { type: "check", programs: batch.map((queued) => queued.code), services: checked },
      this.limits.timeoutMs,
    );
    if (answer.ok) return answer.errors.map((errors) => this.decide({ ok: true, errors }, notes));
    if (batch.length > 1 && answer.reason !== "unavailable") return null;
    return batch.map(() => this.decide(answer, notes));
  }

  private decide(
    answer: { ok: true; errors: TypeErrorLine[] } | Exclude<CheckerAnswer, { ok: true }>,
    notes: string[],
  ): Decided {
    if (answer.ok) {
      const outcome: CheckOutcome =
        answer.errors.length === 0 ? { run: true, notes } : { run: false, error: formatTypeErrors(answer.errors) };
      return { outcome, cacheable: notes.length === 0 };
    }
    switch (answer.reason) {
      case "unavailable":
        return { outcome: { run: true, notes: [typecheckUnavailable(answer.message)] }, cacheable: false };
      case "timeout":
        return { outcome: { run: false, error: typecheckTimedOut(this.limits.timeoutMs) }, cacheable: false };
      case "memory":
        return { outcome: { run: false, error: typecheckOutOfMemory(this.limits.memoryMb) }, cacheable: false };
      default:
        return { outcome: { run: false, error: typecheckCrashed(answer.message) }, cacheable: false };
    }
  }

  /** A service's declarations at its revision: kept while the revision stays the same. */
  private prepare(service: ReachableService): Promise<Declarations> {
    const known = this.declarations.get(service.serviceId);
    if (known?.revision === service.revision) return known.result;
    const result = this.render(service.serviceId, service.revision).catch((error: unknown): Declarations => {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn("typescript-ivm: a service's types are unavailable; code calling it runs unchecked", {
        serviceId: service.serviceId,
        error: reason,
      });
      return { ok: false, reason };
    });
    this.declarations.set(service.serviceId, { revision: service.revision, result });
    return result;
  }

  private async render(serviceId: string, requested: string): Promise<Declarations> {
    const { revision, toolsJson } = await this.bindings.serviceTools(serviceId);
    const rendered = this.renders.then(() => renderInThread({ serviceId, toolsJson }, this.closing.signal));
    this.renders = rendered.catch(() => {});
    const declarations: Declarations = { ok: true, rendered: await rendered };
    // The service changed since the run's catalog: these are its declarations at the newer revision.
    const entry = this.declarations.get(serviceId);
    if (revision !== requested && entry?.revision === requested) {
      this.declarations.set(serviceId, { revision, result: entry.result });
    }
    return declarations;
  }
}
