import { createHash } from "node:crypto";
import type { EnvironmentBindings, Logger } from "@cyrnel/sdk";
import { formatTypeErrors, type TypeErrorLine } from "../checker/code-file.js";
import type { CheckedService, RenderedService } from "../checker/protocol.js";
import { renderTools } from "../checker/render-tools.js";
import { renderServiceFile } from "../docs/types-file.js";
import {
  serviceNotTypeChecked,
  typecheckCrashed,
  typecheckNotRetried,
  typecheckOutOfMemory,
  typecheckTimedOut,
  typecheckUnavailable,
} from "../messages.js";
import {
  type CheckerAnswer,
  CheckerThread,
  jsonLength,
  MAX_INLINE_RENDER_CHARS,
  renderInThread,
} from "./checker-thread.js";

/** What the check decided: run the code (first writing `notes` to its stderr), or fail it with `error`. */
export type CheckOutcome = { run: true; notes: string[] } | { run: false; error: string };

/** A service the code can reach, from its run's catalog. */
export interface ReachableService {
  serviceId: string;
  revision: string;
  tools: string[];
  /** Declared for these tools only (the ones the code names), not from the service's whole declarations. */
  named?: true;
  /** The code never writes the service's id: it is typed `any` and its declarations are not needed. */
  unreferenced?: true;
  /** Of `tools`, those the service's policy denies: a call to one fails the check. */
  denied?: string[];
}

/**
 * What a check is doing now, for the message of a run that times out before
 * its code started: preparing the declarations of services (named), waiting
 * for a checker thread, or being checked.
 */
export interface CheckProgress {
  phase: string;
}

/** The services of one catalog, with a digest of them for the result cache. */
export interface CheckScope {
  services: ReachableService[];
  digest: string;
}

/** `tooLarge`: the host refused the service's tools as too large to hand out at once (see `serviceTools`). */
type Declarations = { ok: true; rendered: RenderedService } | { ok: false; reason: string; tooLarge?: boolean };

/**
 * What became of one check, and whether the same code in the same scope may
 * be answered from it later; `checked`: the compiler answered (the outcome
 * is about the code's types, not a budget, the heap or a crash).
 */
type Decided = { outcome: CheckOutcome; cacheable: boolean; checked?: boolean };

interface QueuedCheck {
  code: string;
  scope: CheckScope;
  /** Who submitted it: checks are shared fairly between callers. */
  caller: string;
  /** The declarations of `scope.services`, in order (none for an unreferenced service). */
  prepared: (Declarations | null)[];
  resolve(decided: Decided): void;
  progress: CheckProgress;
}

/** Nothing to declare: a service the code does not reference. */
const UNNEEDED = null;

/** Who a render is for: a check waiting for it, or the work ahead of checks (see TypeChecks.prepareAhead). */
type RenderLane = "check" | "ahead";

/** The limits of the checks (see the module's config: typecheckTimeoutMs, typecheckMemoryMb, typecheckThreads). */
export interface CheckLimits {
  timeoutMs: number;
  memoryMb: number;
  /** Checker threads (each with a heap of `memoryMb`). */
  threads: number;
}

/** What the checks did so far, for tests and health: requests sent to the threads, and those that ran past their budget. */
export interface CheckCounts {
  requests: number;
  timeouts: number;
}

/** The caller of checks whose execution names none (a host without keys, an older host). */
export const ANONYMOUS_CALLER = "";

/** Most programs checked in one request, and most characters of code in it (a program is at most the host's code limit). */
const MAX_BATCH = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;
/**
 * A batch that failed as a whole is checked again one program at a time,
 * each with this share of the budget; after this many of those re-checks
 * failed too, the rest of the batch fails without another check. So a
 * batch costs at most one budget, then at most one more budget of
 * re-checks (and as many thread restarts), however many programs it held
 * and however many of them are to blame.
 */
const MAX_FAILED_RECHECKS = 2;

/**
 * Services with more tools than this are declared per program, with only
 * the tools its code names (and so are services whose tools the host
 * refused as too large): rendering and parsing Microsoft Graph's 22,000
 * tools for every check is out of the question, and their schemas do not
 * even fit in one string. GitHub's ~1,100 and Stripe's 452 are declared whole.
 */
export const MAX_WHOLE_SERVICE_TOOLS = 2_000;
/** Declarations of named tools kept (by service, revision and tools), most recently used last. */
const NAMED_DECLARATIONS_KEPT = 64;
/** A word of code: what a tool id (an ASCII identifier) can be, wherever it is written (`.x`, `{ x }`, `"x"`). */
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** What the work ahead yields to (see TypeChecks.untilRunsAreDone): whether runs are in flight, and how long at most. */
export interface AheadOfRuns {
  busy(): boolean;
  maxDeferMs: number;
}

/** How often the work ahead looks again whether the runs it waits for are done. */
const AHEAD_POLL_MS = 25;

/** Callers whose last turn is remembered; past it, those without work are forgotten (they then count as never served). */
const MAX_REMEMBERED_CALLERS = 4096;

/** How long parsing one service's declarations may take in the checker thread (not part of a check's budget). */
const DECLARE_TIMEOUT_MS = 60_000;
/** Checks remembered by code and scope: the same program submitted again is not checked again. */
const RESULT_CACHE_SIZE = 256;

/**
 * Type checks of process code, seen from the supervisor: which
 * declarations each check needs, where they come from and how long they
 * are kept, how checks share the checker threads between callers, and what
 * a check that cannot finish means.
 *
 * - A service's declarations are rendered from its tools' schemas
 *   (`bindings.serviceTools`) in a thread of their own, once per revision
 *   of the service, and parsed once by each checker thread (again only
 *   after the thread restarted).
 * - Fairness. Each caller (the host's key) has a queue of its own; a free
 *   checker thread serves the callers in turn (round-robin), one batch of
 *   one caller's checks per turn, and one caller holds at most all threads
 *   but one when there are several — so one caller's slow checks delay
 *   another's by at most one turn per caller with work ahead of it, and not
 *   at all while a thread is left for them. Checks of different callers are
 *   never batched together: a batch's time is its caller's own.
 * - Budgets. Each request to a thread has `typecheckTimeoutMs`, counted
 *   from when the thread starts on it (waiting for a thread, starting one
 *   and preparing a changed service's declarations do not count). A batch
 *   that fails as a whole is checked again one program at a time with half
 *   the budget each, and after {@link MAX_FAILED_RECHECKS} of those failed
 *   the rest of it fails unchecked: the re-checks never multiply the
 *   culprit's cost by the size of its batch.
 * - A check past its budget, out of the thread's memory, or one the
 *   compiler throws on fails the code without running it: the check is
 *   about this code, and `typecheck: false` runs it unchecked.
 * - When types are not available — the thread cannot start, a service's
 *   declarations cannot be had — the code runs, with a note on its stderr:
 *   that is the environment's failure, not the code's. A service without
 *   declarations is typed `any`, so the rest is still checked.
 * - Results are kept by code and scope (services, revisions, tools), so
 *   the same program submitted again (or a thousand times at once, by one
 *   caller) is checked once.
 */
export class TypeChecks {
  private readonly threads: CheckerThread[];
  private readonly idle: CheckerThread[];
  private readonly declarations = new Map<string, { revision: string; result: Promise<Declarations> }>();
  private readonly named = new Map<string, Promise<Declarations>>();
  /** Services whose whole declarations the host refused as too large, at that revision. */
  private readonly tooLarge = new Map<string, string>();
  private readonly results = new Map<string, CheckOutcome>();
  private readonly inFlight = new Map<string, Promise<CheckOutcome>>();
  /** Each caller's checks waiting for a thread, in order. */
  private readonly queues = new Map<string, QueuedCheck[]>();
  /** When each caller's last turn began (a count of turns), oldest first: the caller served longest ago goes next. */
  private readonly served = new Map<string, number>();
  private turns = 0;
  /** Threads each caller holds now. */
  private readonly holding = new Map<string, number>();
  private readonly maxPerCaller: number;
  /** Renders for checks run one after another: each can take seconds of CPU and hundreds of megabytes. */
  private renders: Promise<unknown> = Promise.resolve();
  /** Services to prepare ahead of the checks that will need them (see prepareAhead), next first. */
  private ahead: ReachableService[] = [];
  /** Whether the work ahead is under way (one service at a time). */
  private workingAhead = false;
  /** Checks waiting for declarations: the work ahead starts nothing new meanwhile. */
  private preparing = 0;
  /** The thread the work ahead holds (parsing a service's declarations), if any. */
  private aheadThread: CheckerThread | null = null;
  private readonly closing = new AbortController();
  readonly counts: CheckCounts = { requests: 0, timeouts: 0 };

  constructor(
    private readonly limits: CheckLimits,
    private readonly bindings: Pick<EnvironmentBindings, "serviceTools">,
    private readonly logger: Logger,
    private readonly runs: AheadOfRuns = { busy: () => false, maxDeferMs: 0 },
  ) {
    const count = Math.max(1, limits.threads);
    // Threads start on their first request: a second one only when checks wait while the first is busy.
    this.threads = Array.from({ length: count }, () => new CheckerThread(limits.memoryMb));
    this.idle = [...this.threads];
    this.maxPerCaller = Math.max(1, count - 1);
  }

  /** Starts the first checker thread; resolves once it is ready (or could not start: checks then say why). */
  warm(): Promise<void> {
    return this.threads[0]?.warm() ?? Promise.resolve();
  }

  /**
   * Prepares, in the background, the declarations of the services runs can
   * reach now (their catalog, at its revisions), smallest first, so that
   * the first check that needs one does not wait for it: each is rendered
   * once no check waits for a render, and parsed by a checker thread that
   * is running and has nothing else to do. A check needing a service jumps
   * ahead of this work. Services too large to declare whole are skipped
   * (they are declared per program, with the tools it names).
   */
  prepareAhead(services: readonly ReachableService[]): void {
    const wanted = services
      .filter((service) => service.tools.length > 0 && service.tools.length <= MAX_WHOLE_SERVICE_TOOLS)
      .filter((service) => this.tooLarge.get(service.serviceId) !== service.revision)
      .sort((a, b) => a.tools.length - b.tools.length);
    this.ahead = wanted;
    void this.workAhead();
  }

  check(
    code: string,
    scope: CheckScope,
    caller: string = ANONYMOUS_CALLER,
    progress: CheckProgress = { phase: "" },
  ): Promise<CheckOutcome> {
    const key = `${createHash("sha256").update(code).digest("base64")}:${scope.digest}`;
    const known = this.results.get(key);
    if (known !== undefined) {
      // Most recently used last: the oldest entry is the first to go.
      this.results.delete(key);
      this.results.set(key, known);
      return Promise.resolve(known);
    }
    // Shared only within a caller: another caller's identical check must not wait in this caller's queue.
    const flightKey = `${JSON.stringify(caller)}:${key}`;
    const running = this.inFlight.get(flightKey);
    if (running !== undefined) {
      progress.phase = "waiting for the check of the same code, submitted before";
      return running;
    }
    const checked = this.run(code, scope, caller, progress).then(({ outcome, cacheable }) => {
      this.inFlight.delete(flightKey);
      if (cacheable) {
        this.results.set(key, outcome);
        if (this.results.size > RESULT_CACHE_SIZE) this.results.delete(this.results.keys().next().value as string);
      }
      return outcome;
    });
    this.inFlight.set(flightKey, checked);
    return checked;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private async run(code: string, catalogScope: CheckScope, caller: string, progress: CheckProgress): Promise<Decided> {
    let scope = this.programScope(code, catalogScope);
    let prepared = await this.prepareAll(scope, progress);
    if (prepared.some((declarations) => declarations !== UNNEEDED && !declarations.ok && declarations.tooLarge)) {
      // Refused whole (noted in tooLarge by prepare): declared with the tools the code names instead.
      scope = this.programScope(code, catalogScope);
      prepared = await this.prepareAll(scope, progress);
    }
    progress.phase = "waiting for a free type checker (other checks were ahead of it)";
    return new Promise((resolve) => {
      const queue = this.queues.get(caller);
      const queued = { code, scope, caller, prepared, resolve, progress };
      if (queue === undefined) this.queues.set(caller, [queued]);
      else queue.push(queued);
      this.pump();
    });
  }

  /**
   * Gives each idle thread the next caller's batch, in turn, while there is
   * work a thread may take. A running thread goes first; a new one is
   * started only when no running thread will be free soon (one busy with
   * the work ahead is: it parses one service and is back, sooner than a new
   * thread loads the compiler).
   */
  private pump(): void {
    while (this.idle.length > 0) {
      const running = this.idle.findIndex((thread) => thread.running);
      if (running === -1 && this.aheadThread?.running) return;
      const batch = this.nextBatch();
      if (batch === null) return;
      const thread = this.idle.splice(running === -1 ? this.idle.length - 1 : running, 1)[0] as CheckerThread;
      const { caller } = batch[0] as QueuedCheck;
      this.holding.set(caller, (this.holding.get(caller) ?? 0) + 1);
      void this.serve(thread, batch).finally(() => {
        const held = (this.holding.get(caller) ?? 1) - 1;
        if (held === 0) this.holding.delete(caller);
        else this.holding.set(caller, held);
        this.idle.push(thread);
        this.pump();
      });
    }
  }

  /**
   * The caller with checks waiting whose last turn is the oldest (one never
   * served first), among those that may take another thread, gives its
   * oldest checks of one scope (up to {@link MAX_BATCH} programs and
   * {@link MAX_BATCH_CHARS} of code), and goes to the back of the turn.
   * Checks that waited together go as one batch: a program per file of one
   * compiler program, so the cost that is not the code itself (a new type
   * checker, the library's types) is paid once per batch — ~4 ms per check
   * alone, ~0.5 ms in a batch of 100 (a small service, warm).
   */
  private nextBatch(): QueuedCheck[] | null {
    let caller: string | undefined;
    let queue: QueuedCheck[] | undefined;
    for (const [candidate, waiting] of this.queues) {
      if ((this.holding.get(candidate) ?? 0) >= this.maxPerCaller) continue;
      if (caller === undefined || this.servedAt(candidate) < this.servedAt(caller)) {
        caller = candidate;
        queue = waiting;
      }
    }
    if (caller === undefined || queue === undefined) return null;
    const { digest } = (queue[0] as QueuedCheck).scope;
    const batch: QueuedCheck[] = [];
    let chars = 0;
    for (let i = 0; i < queue.length && batch.length < MAX_BATCH && chars < MAX_BATCH_CHARS; ) {
      const queued = queue[i] as QueuedCheck;
      if (queued.scope.digest !== digest) {
        i++;
        continue;
      }
      batch.push(queued);
      chars += queued.code.length;
      queue.splice(i, 1);
    }
    if (queue.length === 0) this.queues.delete(caller);
    this.served.delete(caller);
    this.served.set(caller, ++this.turns);
    if (this.served.size > MAX_REMEMBERED_CALLERS) this.forgetIdleCallers();
    return batch;
  }

  /** When the caller's last turn began (0: never, or so long ago it was forgotten). */
  private servedAt(caller: string): number {
    return this.served.get(caller) ?? 0;
  }

  private forgetIdleCallers(): void {
    for (const caller of this.served.keys()) {
      if (this.served.size <= MAX_REMEMBERED_CALLERS / 2) return;
      if (!this.queues.has(caller) && !this.holding.has(caller)) this.served.delete(caller);
    }
  }

  /**
   * Checks one batch in `thread`. A batch of several that fails as a whole
   * (its budget, the heap, a crash) is checked again one program at a time
   * with half the budget each, so that the program to blame fails alone;
   * once {@link MAX_FAILED_RECHECKS} re-checks failed, the rest fail
   * without one.
   */
  private async serve(thread: CheckerThread, batch: readonly QueuedCheck[]): Promise<void> {
    const outcomes = await this.checkBatch(thread, batch, this.limits.timeoutMs);
    if (outcomes !== null) {
      for (const [index, queued] of batch.entries()) queued.resolve(outcomes[index] as Decided);
      return;
    }
    const recheckMs = Math.max(1, Math.ceil(this.limits.timeoutMs / MAX_FAILED_RECHECKS));
    let failed = 0;
    for (const queued of batch) {
      if (failed >= MAX_FAILED_RECHECKS) {
        queued.resolve({
          outcome: { run: false, error: typecheckNotRetried(this.limits.timeoutMs) },
          cacheable: false,
        });
        continue;
      }
      const decided = (await this.checkBatch(thread, [queued], recheckMs))?.[0] as Decided;
      if (!decided.outcome.run && !decided.checked) failed++;
      queued.resolve(decided);
    }
  }

  /** One request for programs of one scope: their outcomes, or null when a batch of several failed as a whole. */
  private async checkBatch(
    thread: CheckerThread,
    batch: readonly QueuedCheck[],
    budgetMs: number,
  ): Promise<Decided[] | null> {
    const { scope, prepared } = batch[0] as QueuedCheck;
    const notes: string[] = [];
    const checked: CheckedService[] = [];
    const phase = (text: string) => {
      for (const queued of batch) queued.progress.phase = text;
    };
    for (const [index, service] of scope.services.entries()) {
      const declarations = prepared[index] as Declarations | null;
      if (declarations === UNNEEDED) {
        // Typed `any`: the code never writes its id, so it cannot call it by name.
        checked.push({ serviceId: service.serviceId, tools: [], declared: false });
        continue;
      }
      let declared = declarations.ok;
      if (declarations.ok && thread.declared.get(service.serviceId) !== declarations) {
        phase(`parsing the types of service "${service.serviceId}" (once per change of the service)`);
        const answer = await this.declare(thread, service.serviceId, declarations);
        if (!answer.ok) {
          declared = false;
          notes.push(
            serviceNotTypeChecked(service.serviceId, `its declarations could not be parsed: ${answer.message}`),
          );
        }
      }
      if (!declarations.ok) notes.push(serviceNotTypeChecked(service.serviceId, declarations.reason));
      checked.push({
        serviceId: service.serviceId,
        tools: service.tools,
        declared,
        ...(service.denied !== undefined && { denied: service.denied }),
      });
    }
    this.counts.requests++;
    phase("checking the code");
    const answer = await thread.request(
      { type: "check", programs: batch.map((queued) => queued.code), services: checked },
      budgetMs,
    );
    if (!answer.ok && answer.reason === "timeout") this.counts.timeouts++;
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
      return { outcome, cacheable: notes.length === 0, checked: true };
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

  /**
   * The scope a program is checked in: its run's, with each large service
   * (more than {@link MAX_WHOLE_SERVICE_TOOLS} tools, or refused whole by the
   * host) narrowed to the tools whose ids appear in the code as words. A
   * tool the code reaches without writing its id (`tools[name]`) is then not
   * declared, as with a small service's `Pick` it would be an error anyway;
   * one it names that the service lacks is an error as it always was.
   */
  private programScope(code: string, scope: CheckScope): CheckScope {
    const large = (service: ReachableService) =>
      service.tools.length > MAX_WHOLE_SERVICE_TOOLS || this.tooLarge.get(service.serviceId) === service.revision;
    let words: Set<string> | undefined;
    let narrowed = false;
    const services = scope.services.map((service): ReachableService => {
      // A cheap scan: a service whose id is nowhere in the code is not called by name (`cyrnel.services.x`,
      // `["x"]`, `{ x }` all write it), so its declarations are not needed and it is typed `any`.
      if (!code.includes(service.serviceId)) {
        narrowed = true;
        return { serviceId: service.serviceId, revision: service.revision, tools: [], unreferenced: true };
      }
      if (!large(service)) return service;
      narrowed = true;
      words ??= new Set(code.match(WORD));
      const named = words;
      const denied = service.denied?.filter((tool) => named.has(tool));
      return {
        ...service,
        tools: service.tools.filter((tool) => named.has(tool)),
        named: true,
        ...(denied !== undefined && { denied }),
      };
    });
    if (!narrowed) return scope;
    // Programs are batched by digest, and a batch is checked in one scope: it says which services are declared how.
    const shape = services.map((service) =>
      service.unreferenced ? [service.serviceId] : [service.serviceId, service.named ? service.tools : true],
    );
    const digest = createHash("sha256").update(scope.digest).update(JSON.stringify(shape)).digest("base64");
    return { services, digest };
  }

  /**
   * The declarations of the services a program references (null for the
   * others), while `progress` names the services still being prepared; the
   * work ahead waits meanwhile.
   */
  private async prepareAll(scope: CheckScope, progress: CheckProgress): Promise<(Declarations | null)[]> {
    const pending = new Set<string>();
    const say = () => {
      progress.phase = `preparing the types of ${[...pending].map((id) => `service "${id}"`).join(", ")} (once per change of a service; a large API takes seconds)`;
    };
    this.preparing++;
    try {
      const all = Promise.all(
        scope.services.map((service) => {
          if (service.unreferenced) return UNNEEDED;
          pending.add(service.serviceId);
          return this.prepare(service).finally(() => {
            pending.delete(service.serviceId);
            if (pending.size > 0) say();
          });
        }),
      );
      if (pending.size > 0) say();
      return await all;
    } finally {
      if (--this.preparing === 0) void this.workAhead();
    }
  }

  /**
   * Prepares the services of {@link prepareAhead}, one at a time, while no
   * check waits for declarations: renders each (unless a check did), then
   * has each checker thread that is running and idle parse it.
   */
  private async workAhead(): Promise<void> {
    if (this.workingAhead) return;
    this.workingAhead = true;
    try {
      while (this.preparing === 0 && !this.closing.signal.aborted) {
        if (this.ahead.length === 0) return;
        await this.untilRunsAreDone();
        if (this.preparing > 0 || this.closing.signal.aborted) return;
        const service = this.ahead.shift();
        if (service === undefined) return;
        const declarations = await this.prepare(service, "ahead");
        if (!declarations.ok) continue;
        for (const thread of this.threads) {
          // Only a thread with nothing to do, and only while no check waits for one.
          if (!thread.running || this.queues.size > 0 || !this.idle.includes(thread)) continue;
          if (thread.declared.get(service.serviceId) === declarations) continue;
          this.idle.splice(this.idle.indexOf(thread), 1);
          this.aheadThread = thread;
          try {
            await this.declare(thread, service.serviceId, declarations);
          } finally {
            this.aheadThread = null;
            this.idle.push(thread);
            this.pump();
          }
        }
      }
    } finally {
      this.workingAhead = false;
    }
  }

  /**
   * Resolves once no run is in flight, or after `runs.maxDeferMs`: the
   * work ahead shares the host's event loop (reading a service's schemas,
   * handing them over) and its CPU (a render thread) with the runs, and a
   * host's first runs after a start came while it rendered large APIs.
   * Bounded, so runs that never stop cannot hold it off for good.
   */
  private async untilRunsAreDone(): Promise<void> {
    const deadline = performance.now() + this.runs.maxDeferMs;
    while (this.runs.busy() && performance.now() < deadline && !this.closing.signal.aborted) {
      // Unref'd: waiting to prepare declarations never keeps the host running.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(AHEAD_POLL_MS, deadline - performance.now())).unref(),
      );
    }
  }

  /** Has `thread` parse a service's declarations (kept in `thread.declared` when it did). */
  private async declare(
    thread: CheckerThread,
    serviceId: string,
    declarations: Extract<Declarations, { ok: true }>,
  ): Promise<CheckerAnswer> {
    const { namespace, tools, text } = declarations.rendered;
    const answer = await thread.request({ type: "declare", serviceId, namespace, tools, text }, DECLARE_TIMEOUT_MS);
    if (answer.ok) thread.declared.set(serviceId, declarations);
    return answer;
  }

  /** A service's declarations at its revision: kept while the revision stays the same. */
  private prepare(service: ReachableService, lane: RenderLane = "check"): Promise<Declarations> {
    if (service.named) return this.prepareNamed(service);
    const known = this.declarations.get(service.serviceId);
    if (known?.revision === service.revision) return known.result;
    const result = this.render(service.serviceId, service.revision, lane).catch((error: unknown): Declarations => {
      const reason = error instanceof Error ? error.message : String(error);
      const tooLarge = (error as { code?: unknown } | null)?.code === "types_too_large";
      if (tooLarge) {
        // Not a failure: from now on (at this revision) programs are checked against the tools they name.
        this.tooLarge.set(service.serviceId, service.revision);
        this.logger.info("typescript-ivm: a service is too large to declare whole; code is checked per program", {
          serviceId: service.serviceId,
          reason,
        });
      } else {
        this.logger.warn("typescript-ivm: a service's types are unavailable; code calling it runs unchecked", {
          serviceId: service.serviceId,
          error: reason,
        });
      }
      return { ok: false, reason, tooLarge };
    });
    this.declarations.set(service.serviceId, { revision: service.revision, result });
    return result;
  }

  /** Declarations of the tools a program names, kept by service, revision and tools. */
  private prepareNamed(service: ReachableService): Promise<Declarations> {
    const key = JSON.stringify([service.serviceId, service.revision, service.tools]);
    const known = this.named.get(key);
    if (known !== undefined) {
      this.named.delete(key);
      this.named.set(key, known);
      return known;
    }
    const result = this.renderNamed(service).catch((error: unknown): Declarations => {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn("typescript-ivm: the types of tools a program names are unavailable; it runs unchecked", {
        serviceId: service.serviceId,
        tools: service.tools.length,
        error: reason,
      });
      // Not kept: the next program naming them tries again.
      this.named.delete(key);
      return { ok: false, reason };
    });
    this.named.set(key, result);
    if (this.named.size > NAMED_DECLARATIONS_KEPT) this.named.delete(this.named.keys().next().value as string);
    return result;
  }

  private async renderNamed(service: ReachableService): Promise<Declarations> {
    if (service.tools.length === 0) return { ok: true, rendered: renderServiceFile(service.serviceId, []) };
    const { toolsJson } = await this.bindings.serviceTools(service.serviceId, service.tools);
    const rendered = this.renders.then(() =>
      renderInThread({ serviceId: service.serviceId, toolsJson }, this.closing.signal),
    );
    this.renders = rendered.catch(() => {});
    return { ok: true, rendered: await rendered };
  }

  /**
   * `check`: a check waits for it, after the other renders checks wait for.
   * `ahead`: at once (the work ahead renders one service at a time, and
   * never while a check waits for declarations).
   */
  private async render(serviceId: string, requested: string, lane: RenderLane): Promise<Declarations> {
    const { revision, toolsJson } = await this.bindings.serviceTools(serviceId);
    // A small service renders in a few milliseconds here, sooner than a render thread loads.
    const start = () =>
      jsonLength(toolsJson) <= MAX_INLINE_RENDER_CHARS
        ? Promise.resolve().then(() =>
            renderTools(serviceId, typeof toolsJson === "string" ? toolsJson : toolsJson.join("")),
          )
        : renderInThread({ serviceId, toolsJson, background: lane === "ahead" }, this.closing.signal);
    const rendered = lane === "ahead" ? start() : this.renders.then(start);
    if (lane === "check") this.renders = rendered.catch(() => {});
    const declarations: Declarations = { ok: true, rendered: await rendered };
    // The service changed since the run's catalog: these are its declarations at the newer revision.
    const entry = this.declarations.get(serviceId);
    if (revision !== requested && entry?.revision === requested) {
      this.declarations.set(serviceId, { revision, result: entry.result });
    }
    return declarations;
  }
}
