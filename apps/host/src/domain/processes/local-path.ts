/**
 * The local path (SQLite): this host runs what it admits, on its own active
 * environment. A run is admitted, recorded and handed over in one turn
 * (`ProcessAdmission.admitted`); its end, a kill, its readers and the
 * approvals its calls wait for are all in this process, so the database is
 * asked for nothing but the rows.
 */
import { CyrnelError } from "../../errors.js";
import type { Tracing } from "../../telemetry/tracing.js";
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { JournalStore } from "./journal-store.js";
import type { RunRecorder, RunToStart, StreamReader } from "./live-run.js";
import type { LiveRuns } from "./live-runs.js";
import type { ActiveEnvironment, ProcessAdmission, Submission } from "./process-admission.js";
import type { ProcessRow, ProcessStore } from "./process-store.js";
import type { RunFeed, RunPath } from "./run-path.js";

export interface LocalPathOptions {
  store: ProcessStore;
  admission: ProcessAdmission;
  runs: LiveRuns;
  /** The approvals a process waits for right now, oldest first (its calls wait in this process). */
  pendingApprovals(processId: number): readonly ApprovalSummary[];
  /**
   * The pending approvals of a process, by the rows, oldest first: those of a run that was let go of (evicted while
   * it waits) no call of this host holds.
   */
  storedApprovals?(processId: number): Promise<ApprovalSummary[]>;
  /** Ends a let-go run's approvals by their rows (it was killed while evicted). */
  expireStoredApprovals?(processId: number, reason: string): Promise<void>;
  /** Where the run's journal says which runs are unfinished (a let-go run has no live run here), and which sleep. */
  journal: Pick<JournalStore, "unfinished" | "sleepUntil">;
  /** A run let go of while it slept was killed: its wake-up is dropped. */
  forgetSleeper?(processId: number): void;
  /** Whose current context (the request's) a run continues. */
  tracing: Pick<Tracing, "carrier">;
}

/** How often a resumed run that found the environment full asks again for room. */
const ROOM_POLL_MS = 100;

export class LocalPath implements RunPath {
  /** Resumed runs waiting for room in the environment, one after the other. */
  private resuming: Promise<void> = Promise.resolve();
  /** Processes whose runs are being resumed (until they start). */
  private readonly resumingIds = new Set<number>();

  constructor(private readonly options: LocalPathOptions) {}

  async create(submission: Submission, keyId: string | null, typecheck: boolean | undefined) {
    const { store, admission, runs } = this.options;
    const trace = this.options.tracing.carrier();
    const services = await runs.catalogOf(keyId);
    const processId = await admission.admitted(typecheck, async (environment) => {
      const { processId, executionId } = await store.create({ ...submission, keyId }, environment.id);
      const { code, timeoutMs } = submission;
      const run = { processId, executionId, code, timeoutMs, keyId, typecheck, trace };
      return { processId, start: () => runs.start(run, environment, services, this.recorder(run)) };
    });
    return { processId };
  }

  async run(row: ProcessRow, typecheck: boolean | undefined): Promise<void> {
    const { store, admission, runs } = this.options;
    const trace = this.options.tracing.carrier();
    const services = await runs.catalogOf(row.keyId);
    await admission.admitted(typecheck, async (environment) => {
      // Idle when asked, but another request may have started a run since: one run at a time.
      if (runs.has(row.id)) throw new CyrnelError("conflict", `process ${row.id} is running; it must be idle to run`);
      const executionId = await store.startRun(row.id, environment.id);
      const { code, timeoutMs, keyId } = row;
      const run = { processId: row.id, executionId, code, timeoutMs, keyId, typecheck, trace };
      return { processId: row.id, start: () => runs.start(run, environment, services, this.recorder(run)) };
    });
  }

  /**
   * Resumes a run the host left unfinished when it stopped (it died, or let go of the run): run again from the
   * start on the active environment, answered from its journal. Without an environment it ends `failed`.
   */
  async resume(processId: number, executionId: number, environment: ActiveEnvironment | null): Promise<void> {
    // Asked twice (a restart and a decision, two decisions): resumed once.
    if (this.resumingIds.has(processId)) return;
    this.resumingIds.add(processId);
    try {
      await this.resumeOnce(processId, executionId, environment);
    } finally {
      this.resumingIds.delete(processId);
    }
  }

  private async resumeOnce(processId: number, executionId: number, environment: ActiveEnvironment | null) {
    const { store, runs } = this.options;
    const row = await store.get(processId);
    if (!row || row.state === "idle" || runs.has(processId)) return;
    const { code, timeoutMs, keyId } = row;
    if (environment === null) {
      await store.finish(processId, executionId, {
        exitState: "failed",
        error: "interrupted: host restarted, and no environment is active to resume the run on",
        output: {},
        stdout: "",
        stderr: "",
      });
      return;
    }
    const resume = await runs.resumeOf({ processId, executionId, keyId });
    const services = await runs.catalogOf(keyId);
    const run = { processId, executionId, code, timeoutMs, keyId, trace: null, resume };
    // Admitted like a submission, so it waits for room in the environment rather than be refused: many runs may
    // resume at once (a restart, a bulk decision). One resume waits at a time; submissions go on meanwhile.
    const turn = this.resuming.then(async () => {
      for (;;) {
        try {
          await this.options.admission.admitted(undefined, async (active) => ({
            processId,
            start: () => runs.start(run, active, services, this.recorder(run)),
          }));
          return;
        } catch (error) {
          if (!(error instanceof CyrnelError && error.code === "at_capacity")) throw error;
          await new Promise((resolve) => setTimeout(resolve, ROOM_POLL_MS));
        }
      }
    });
    this.resuming = turn.catch(() => undefined);
    await turn;
  }

  async kill(processId: number): Promise<void> {
    const run = this.options.runs.ofProcess(processId);
    if (!run && (await this.killLetGo(processId))) return;
    if (!run) throw new CyrnelError("conflict", `process ${processId} is idle; nothing to kill`);
    run.force("canceled", null);
    await run.done;
  }

  async waitEnded(processId: number, signal?: AbortSignal): Promise<void> {
    const run = this.options.runs.ofProcess(processId);
    if (!run) return;
    await new Promise<void>((resolve) => {
      run.done.then(resolve);
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  }

  async pendingApprovals(rows: readonly ProcessRow[]): Promise<Map<number, readonly ApprovalSummary[]>> {
    const live = rows.filter((row) => row.state !== "idle");
    const pending = new Map<number, readonly ApprovalSummary[]>();
    for (const row of live) {
      // A run evicted while it waits holds its approvals as rows only.
      const letGo = !this.options.runs.has(row.id) && row.state === "suspended" && this.options.storedApprovals;
      pending.set(row.id, letGo ? await letGo(row.id) : this.options.pendingApprovals(row.id));
    }
    return pending;
  }

  /**
   * A kill of a run this host let go of without ending it (evicted while it waits, or left by the last stop and
   * not resumed yet): it ends `canceled` by its rows, its approvals expire. Resolves false when there is none.
   */
  private async killLetGo(processId: number): Promise<boolean> {
    const [unfinished] = await this.options.journal.unfinished(processId);
    if (!unfinished || this.options.runs.has(processId)) return false;
    this.options.forgetSleeper?.(processId);
    await this.options.expireStoredApprovals?.(processId, "the process was canceled");
    await this.options.store.finish(processId, unfinished.executionId, {
      exitState: "canceled",
      error: "canceled",
      output: {},
      stdout: "",
      stderr: "",
    });
    return true;
  }

  isLive(row: ProcessRow): boolean {
    return this.options.runs.has(row.id);
  }

  async follow(row: ProcessRow, send: StreamReader): Promise<RunFeed> {
    const run = this.options.runs.ofProcess(row.id);
    // Asked in the turn `isLive` answered, so the run is there; were it not, its row says all.
    if (!run) return { stdout: row.stdout, stderr: row.stderr, approvals: [], done: Promise.resolve(), close() {} };
    return {
      ...run.addReader(send),
      approvals: this.options.pendingApprovals(row.id),
      done: run.done,
      close: () => run.removeReader(send),
    };
  }

  /** Nothing waits elsewhere: the runs to cancel are this host's. */
  async cancel(): Promise<void> {}

  /** Runs start in the turn they are admitted: none is ever on its way. */
  async settled(): Promise<void> {}

  /** A run this host admitted writes its process row in the store. */
  private recorder(run: Pick<RunToStart, "processId" | "executionId">): RunRecorder {
    const { store } = this.options;
    return {
      setState: (state) => store.setState(run.processId, state),
      setRunning: (startedAt) => store.setRunning(run.processId, startedAt),
      finish: (result) => store.finish(run.processId, run.executionId, result),
      // Its row says when it is due, for this host's next start; until then a timer of this host resumes it.
      sleep: (wakeAt) => this.options.journal.sleepUntil(run.executionId, wakeAt),
    };
  }
}
