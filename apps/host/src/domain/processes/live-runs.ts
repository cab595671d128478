/**
 * The runs this host executes, and the `EnvironmentBindings` through which
 * environments reach them. A run is found by its execution id from its
 * hand-over until it ends (what the environment reports later changes
 * nothing), and by its process until its final row is written (readers of
 * the process are shown the live run until then). Both paths start their
 * runs here: runs this host admitted, and runs it took from the queue.
 */
import type {
  EnvironmentBindings,
  EnvironmentModule,
  ExecutionExitState,
  InvokeInput,
  ServiceCatalog,
} from "@cyrnel/sdk";
import { CyrnelError } from "../../errors.js";
import type { CallContext, Caller } from "../governance/caller.js";
import type { JournalCall, JournalRecord } from "./journal-store.js";
import { type LivePhase, LiveRun, type LiveRunContext, type RunRecorder, type RunToStart } from "./live-run.js";

export interface LiveRunsOptions extends LiveRunContext {
  /** Tool calls from code go through the same gate as `POST /tools/.../invoke`, naming the run they come from. */
  invokeTool(input: InvokeInput, call: CallContext): Promise<unknown>;
  /** Snapshot of the services and tool ids this caller can reach, for discovery inside the sandbox. */
  catalog(caller: Caller): Promise<ServiceCatalog>;
  /**
   * Who a process's tool calls run as, asked at each call: the key that created it as it is now (its allow-list
   * narrowed or widened since), or a `forbidden` error once that key is revoked or expired.
   */
  caller(keyId: string | null): Promise<Caller>;
  /** One service's reachable tools with their schemas, as JSON text (see EnvironmentBindings.serviceTools). */
  serviceTools(serviceId: string, toolIds?: readonly string[]): Promise<{ revision: string; toolsJson: string[] }>;
  /**
   * A resumed run's calls that were in flight when its host stopped: they are recorded with the outcome `unknown`
   * (they may or may not have reached their service), so call records show them.
   */
  unknownCalls?(run: { processId: number; executionId: number; keyId: string | null }, calls: JournalCall[]): void;
  /** A run was evicted while it waited for an approval, and its sandbox is let go of (see `LiveRun.evict`). */
  evicted?(run: { processId: number; executionId: number }): void;
  /** A run was let go of while it slept (see `LiveRun.sleeping`); it is due to resume at `wakeAt` (ms since epoch). */
  asleep?(run: { processId: number; executionId: number }, wakeAt: number): void;
}

export class LiveRuns {
  /** Runs that have not ended, by execution id. */
  private readonly executing = new Map<number, LiveRun>();
  /** Runs whose final row is not written yet, by process id. */
  private readonly byProcess = new Map<number, LiveRun>();

  constructor(private readonly options: LiveRunsOptions) {}

  /** Hands a recorded run to the environment. */
  start(
    run: RunToStart,
    environment: { id: string; module: EnvironmentModule },
    services: ServiceCatalog,
    recorder: RunRecorder,
  ): LiveRun {
    const live = new LiveRun(run, environment, recorder, this.options, {
      ended: (ended) => this.executing.delete(ended.executionId),
      recorded: (recorded) => {
        if (this.byProcess.get(recorded.processId) === recorded) this.byProcess.delete(recorded.processId);
        if (recorded.wasEvicted) this.options.evicted?.(recorded);
        const wakeAt = recorded.sleepsUntil;
        if (wakeAt !== null) this.options.asleep?.(recorded, wakeAt);
      },
    });
    this.executing.set(run.executionId, live);
    this.byProcess.set(run.processId, live);
    live.start(services);
    return live;
  }

  /**
   * What a run resumed on this host replays: a new attempt is begun (the attempt before it can write no more), its
   * journal read, and its calls that were in flight recorded as `unknown`. `attempt`: the attempt already begun
   * (the process queue begins it when it re-queues the run).
   */
  async resumeOf(
    run: { processId: number; executionId: number; keyId: string | null },
    attempt?: number,
  ): Promise<{ attempt: number; record: JournalRecord }> {
    const { store } = this.options.journal;
    const begun = attempt ?? (await store.beginAttempt(run.executionId));
    const record = await store.read(run.executionId);
    const inFlight = record.calls.filter((call) => call.state === "started");
    if (inFlight.length > 0) this.options.unknownCalls?.(run, inFlight);
    return { attempt: begun, record };
  }

  /** The process's run on this host, until its final row is written. */
  ofProcess(processId: number): LiveRun | undefined {
    return this.byProcess.get(processId);
  }

  has(processId: number): boolean {
    return this.byProcess.has(processId);
  }

  /** How many runs that have not ended are in each state now (read at each metrics scrape: one pass, no I/O). */
  countByPhase(): Record<LivePhase, number> {
    const counts: Record<LivePhase, number> = { queued: 0, running: 0, suspended: 0, terminating: 0 };
    for (const run of this.executing.values()) counts[run.phase]++;
    return counts;
  }

  /** A run taken from the queue ended before it started (`QueuedPath`): noticed as `LiveRun` notices its end. */
  endedUnrun(processId: number, exitState: ExecutionExitState): void {
    this.options.processEvents.notice("runEnded", { processId, exitState, ran: false });
  }

  /** The runs on this environment (or on all) that have not ended. */
  unended(environmentId: string | null): LiveRun[] {
    return [...this.executing.values()].filter((run) => environmentId === null || run.environmentId === environmentId);
  }

  /** What the run's key sees now; nothing once the key is revoked or expired (its calls would be refused anyway). */
  async catalogOf(keyId: string | null): Promise<ServiceCatalog> {
    let caller: Caller;
    try {
      caller = await this.options.caller(keyId);
    } catch (error) {
      if (error instanceof CyrnelError && error.code === "forbidden") return {};
      throw error;
    }
    return this.options.catalog(caller);
  }

  /** Bindings handed to environment modules at setup. */
  readonly bindings: EnvironmentBindings = {
    invokeTool: async (executionId, input) => {
      const run = this.executing.get(executionId);
      if (!run?.makesCalls) throw new CyrnelError("conflict", `execution ${executionId} is not running`);
      // Matched against the run's journal first: a call an earlier attempt made is answered from it.
      return run.journal.call(input, async (journal) => {
        const caller = await this.options.caller(run.keyId);
        return this.options.invokeTool(input, {
          caller,
          processId: run.processId,
          executionId,
          ended: run.callsEnded,
          run: run.span,
          journal,
          note: (line) => run.emit("stderr", line),
        });
      });
    },
    recordReplay: (executionId, entries) => {
      if (Array.isArray(entries)) this.executing.get(executionId)?.journal.recordReplay(entries);
    },
    sleeping: (executionId, wakeAt) => {
      if (typeof wakeAt === "number" && Number.isFinite(wakeAt)) this.executing.get(executionId)?.sleeping(wakeAt);
    },
    streamDropped: (executionId, stream, bytes) => {
      if ((stream === "stdout" || stream === "stderr") && Number.isSafeInteger(bytes) && bytes >= 0) {
        this.executing.get(executionId)?.streamDropped(stream, bytes);
      }
    },
    setState: (executionId, state) => this.executing.get(executionId)?.setState(state),
    setError: (executionId, message) => this.executing.get(executionId)?.setError(message),
    emitStdout: (executionId, chunk) => this.executing.get(executionId)?.emit("stdout", chunk),
    emitStderr: (executionId, chunk) => this.executing.get(executionId)?.emit("stderr", chunk),
    serviceTools: async (serviceId, toolIds) => this.options.serviceTools(serviceId, toolIds),
    emitOutput: (executionId, patch) => this.executing.get(executionId)?.mergeOutput(patch),
  };
}
