/**
 * Processes through a durable queue: `POST /processes` enqueues a run, and
 * the hosts that execute code take runs when they have room. Built on
 * graphile-worker (see the README for why, against pg-boss): jobs are rows
 * in PostgreSQL, a job added in the caller's transaction commits with the
 * process row, and idle workers learn of a new job through LISTEN/NOTIFY,
 * so pickup takes milliseconds while polling (`pollIntervalMs`, 60 s by
 * default) is only a backstop.
 *
 * The rules, and how they are kept:
 * - **At most once.** Jobs are added with `max_attempts = 1` and the
 *   handler never lets an error escape, so the library never retries a run.
 *   Before running, the handler claims the execution (`RunClaims.claim`, a
 *   conditional UPDATE fenced by the host's lease): a job delivered twice,
 *   re-enqueued by the stranded sweep, or left over from a crash finds it
 *   taken and ends without running anything.
 * - **Nothing lost.** A host that dies after the library locked a job but
 *   before it claimed the execution leaves a job no-one will take again
 *   (its attempt is used up). The stranded sweep (`requeueStranded`, run by
 *   every worker host) finds such jobs — locked longer than the lease,
 *   their execution still unclaimed — and runs with no live job at all, and
 *   enqueues the run again; the claim keeps that safe even if the slow host
 *   wakes up. A host that dies after
 *   claiming is the lease reaper's: its runs end `failed` with
 *   `interrupted: worker lost` and are never re-run.
 * - **Capacity.** A worker runs at most `concurrency` runs and fetches a job
 *   only while `hasRoom()` says yes (the environment's `admit()`, as
 *   process-cluster.ts passes it) and its lease is alive: otherwise it asks the library to skip
 *   run jobs (graphile-worker's `forbiddenFlags`), so a job waits in the
 *   queue for a host with room. A slot that finishes a run fetches the next
 *   at once, so runs waiting for room are taken as room frees up.
 * - **Roles.** An `api` host only calls `enqueue`; `start` is for `all` and
 *   `worker` hosts.
 * - **Workers outlive database faults.** graphile-worker ends a worker for
 *   good when marking its job done fails (a connection terminated, the
 *   server restarting) and never replaces it, so each fault would take
 *   capacity away until the host took no runs at all. When one ends so, the
 *   host starts a fresh set of workers and lets the old set finish the runs
 *   it holds (`replaceWorkers`), and deletes the job the lost worker left
 *   locked (its run has ended; the claim keeps it from running again anyway).
 */
import { EventEmitter } from "node:events";
import type { Logger } from "@cyrnel/sdk";
import {
  Logger as GraphileLogger,
  type LogLevel as GraphileLogLevel,
  type Runner,
  run,
  runMigrations,
  type Task,
  type WorkerEvents,
} from "graphile-worker";
import type pg from "pg";
import { timerUntil } from "../lib/timer-until.js";
import type { QueuedRun, RunClaims } from "./run-claims.js";
import { inTransaction, messageOf, type Queryable, silentLogger } from "./sql.js";

/** The graphile-worker task name of a process run. */
export const RUN_TASK = "cyrnel_run";
/** The flag every run job carries, so a worker without room can skip them. */
export const RUN_FLAG = "cyrnel_run";
/** Hosts starting together take turns migrating the queue's schema (`migrate`); any fixed number of our own. */
const QUEUE_SCHEMA_LOCK = 0x63_71_75_65; // "cque"
/** Polling is only the backstop behind LISTEN/NOTIFY. */
export const DEFAULT_POLL_INTERVAL_MS = 60_000;

export interface ProcessQueueOptions {
  pool: pg.Pool;
  hostId: string;
  claims: RunClaims;
  /** Whether this host holds its lease (`HostLeases.isAlive`); a host that does not takes no work. */
  isAlive?: () => boolean;
  logger?: Logger;
  /** How often idle workers look for jobs they were not told of (default 60 s; NOTIFY wakes them at once). */
  pollIntervalMs?: number;
  /** A job locked this long without its execution claimed is stranded and enqueued again (default 15 s: the lease). */
  strandedAfterMs?: number;
}

export interface WorkerStart {
  /** Runs at most this many executions at once (`CYRNEL_WORKER_CONCURRENCY`). */
  concurrency: number;
  /** Runs one claimed execution; resolves when it has ended. Errors are logged, never retried. */
  handler(run: QueuedRun): Promise<void>;
  /** Asked before each fetch: false leaves jobs in the queue for hosts with room (the environment's `admit()`). */
  hasRoom?: () => boolean;
}

export class ProcessQueue {
  private runner: Runner | null = null;
  /** What `start` was given: a fresh set of workers is started with it (`replaceWorkers`). */
  private worker: WorkerStart | null = null;
  /** Sets of workers being stopped after a replacement: they finish the runs they hold. */
  private readonly retired = new Set<Promise<void>>();
  private replaceTimer: NodeJS.Timeout | undefined;
  /** The job each worker took last (graphile-worker's worker id → job id), for a worker that ends on a fault. */
  private readonly jobOfWorker = new Map<string, string>();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** What cancels each timer that wakes the workers when a run let go of while it slept is due (`nudgeAt`). */
  private readonly nudges = new Set<() => void>();
  private stopKicking: () => void = () => {};
  private readonly logger: Logger;

  constructor(private readonly options: ProcessQueueOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Creates or upgrades graphile-worker's schema; every host runs it at start. Hosts take turns under an advisory
   * lock of their own: graphile-worker locks only once its schema exists, so two hosts starting on a new database
   * both ran its CREATE SCHEMA and one failed (a duplicate key in `pg_namespace`).
   */
  static async migrate(pool: pg.Pool, logger: Logger = silentLogger): Promise<void> {
    const holder = await pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock($1)", [QUEUE_SCHEMA_LOCK]);
      try {
        // Through the pool: the holder's connection only keeps the turn.
        await runMigrations({ pgPool: pool, logger: graphileLogger(logger) });
      } finally {
        await holder.query("SELECT pg_advisory_unlock($1)", [QUEUE_SCHEMA_LOCK]);
      }
    } finally {
      holder.release();
    }
  }

  /**
   * Queues a run. Pass the transaction that writes the process and
   * execution rows: the job commits with them (and workers are notified on
   * commit), or not at all. The job's key names the run, so enqueueing the
   * same run again while its job waits replaces that job rather than adding
   * a second.
   */
  /** `runAt` (ISO): not before then (a run let go of while it sleeps); absent: at once. */
  async enqueue(run: QueuedRun, tx?: Queryable, runAt?: string): Promise<void> {
    await (tx ?? this.options.pool).query(
      `SELECT graphile_worker.add_job(
         identifier => $1, payload => $2::json, job_key => $3, max_attempts => 1, flags => ARRAY[$4]::text[],
         run_at => coalesce($5::timestamptz, now()))`,
      [RUN_TASK, JSON.stringify(run), runKey(run), RUN_FLAG, runAt ?? null],
    );
  }

  /**
   * At `at` (ms since the epoch), wakes idle workers of every host to look for jobs (graphile-worker's own
   * `jobs:insert` notification): a job added to run later is otherwise found only by their next poll.
   */
  nudgeAt(at: number): void {
    const cancel = timerUntil(at, () => {
      this.nudges.delete(cancel);
      this.options.pool.query(`SELECT pg_notify('jobs:insert', '{"count":1}')`).catch((error) =>
        this.logger.warn("could not tell the workers of a run that is due; their next poll takes it", {
          error: messageOf(error),
        }),
      );
    });
    this.nudges.add(cancel);
  }

  /**
   * The SQL expression that adds a run's job, given SQL expressions of its
   * process and execution ids (integers): the same job as `enqueue`, for a
   * caller that writes the run's rows and its job in one statement.
   */
  addJobSql(processId: string, executionId: string): string {
    return `graphile_worker.add_job(
      identifier => '${RUN_TASK}',
      payload => json_build_object('processId', ${processId}, 'executionId', ${executionId}),
      job_key => '${RUN_TASK}:' || ${processId} || ':' || ${executionId},
      max_attempts => 1,
      flags => ARRAY['${RUN_FLAG}']::text[])`;
  }

  /** Starts taking runs (worker and all hosts). */
  async start(worker: WorkerStart): Promise<void> {
    if (this.runner) throw new Error("the process queue is already started");
    if (!Number.isInteger(worker.concurrency) || worker.concurrency < 1) {
      throw new Error("concurrency must be an integer ≥ 1");
    }
    this.worker = worker;
    const listening = this.kickAfterEveryListen(worker.concurrency);
    this.events.on("job:start", this.noteJob);
    this.events.on("worker:fatalError", this.workerLost);
    this.events.on("worker:stop", this.forgetWorker);
    this.runner = await this.startWorkers(worker);
    // Started means "notified of new runs": a caller may enqueue and expect a prompt pickup from here on.
    await listening;
    const sweepEvery = Math.max(50, Math.floor(this.strandedAfterMs / 2));
    this.sweepTimer = setInterval(() => {
      this.requeueStranded().catch((error) =>
        this.logger.warn("the stranded-run sweep failed; it runs again", { error: messageOf(error) }),
      );
    }, sweepEvery);
    this.sweepTimer.unref();
  }

  /**
   * The library's events (job started, worker found nothing, …), for
   * observing the queue; subscribe before `start` to see its first fetches.
   */
  readonly events: WorkerEvents = new EventEmitter() as WorkerEvents;

  /**
   * The sweep every worker host runs: enqueues again every run that should
   * be waiting for a worker but has no job that will ever deliver it —
   * - its job was locked longer than `strandedAfterMs` while nobody claimed
   *   its execution (the worker that locked it died before claiming), or
   * - it has no live job at all (an enqueue that could not be repeated when
   *   the database failed under a claim) and waited longer than that.
   * The claim keeps this safe if the job was merely slow. Resolves the runs
   * enqueued again.
   */
  async requeueStranded(): Promise<QueuedRun[]> {
    const { pool, claims } = this.options;
    const { rows } = await pool.query(
      `SELECT key FROM graphile_worker.jobs
       WHERE task_identifier = $1 AND key IS NOT NULL AND locked_at < now() - $2 * interval '1 millisecond'`,
      [RUN_TASK, this.strandedAfterMs],
    );
    const locked = rows.flatMap((row: { key: string }) => parseRunKey(row.key) ?? []);
    const unclaimed = new Set(await claims.unclaimed(locked.map((run) => run.executionId)));
    const stranded = locked.filter((run) => unclaimed.has(run.executionId));

    const waiting = await claims.waiting(this.strandedAfterMs);
    if (waiting.length > 0) {
      // A job that is available or locked will deliver its run; one that failed for good (attempts used, unlocked) not.
      const { rows: live } = await pool.query(
        `SELECT key FROM graphile_worker.jobs
         WHERE key = ANY($1) AND (locked_at IS NOT NULL OR attempts < max_attempts)`,
        [waiting.map(runKey)],
      );
      const delivered = new Set(live.map((row: { key: string }) => row.key));
      const known = new Set(stranded.map((run) => run.executionId));
      stranded.push(...waiting.filter((run) => !delivered.has(runKey(run)) && !known.has(run.executionId)));
    }

    for (const run of stranded) {
      this.logger.warn("a run had no job that would deliver it (a host died before claiming it); queued again", {
        ...run,
      });
      // The dead job goes with the fresh one's arrival, so nothing of it is left in the queue's tables.
      await inTransaction(pool, async (tx) => {
        await this.dropJobs([run], tx);
        await this.enqueue(run, tx);
      });
    }
    return stranded;
  }

  /**
   * Deletes every job of these runs, locked or not: the runs of a lost host
   * (ended by the reaper) and stranded runs about to be queued again.
   * graphile-worker would keep a job locked by a dead worker for 4 hours,
   * then keep it as a failed job for good. Each of its workers holds one job
   * at a time, so unlocking the workers that hold these jobs unlocks nothing
   * else; a worker that was only frozen finds its job gone when it wakes,
   * and its claim (or its lost lease) stops it from running anything.
   */
  async dropJobs(runs: readonly QueuedRun[], tx: Queryable): Promise<number> {
    if (runs.length === 0) return 0;
    const { rows } = await tx.query(
      'SELECT id, locked_by AS "lockedBy" FROM graphile_worker.jobs WHERE task_identifier = $1 AND key = ANY($2)',
      [RUN_TASK, runs.map(runKey)],
    );
    const jobs = rows as { id: string; lockedBy: string | null }[];
    if (jobs.length === 0) return 0;
    const lockers = [...new Set(jobs.flatMap((job) => job.lockedBy ?? []))];
    if (lockers.length > 0) await tx.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [lockers]);
    const { rows: deleted } = await tx.query("SELECT id FROM graphile_worker.complete_jobs($1::bigint[])", [
      jobs.map((job) => job.id),
    ]);
    return deleted.length;
  }

  /** Stops fetching; resolves once the runs in progress have ended (end them first for a quick stop). */
  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    for (const cancel of this.nudges) cancel();
    this.nudges.clear();
    clearTimeout(this.replaceTimer);
    this.stopKicking();
    this.events.off("job:start", this.noteJob);
    this.events.off("worker:fatalError", this.workerLost);
    this.events.off("worker:stop", this.forgetWorker);
    const runner = this.runner;
    this.runner = null;
    this.worker = null;
    await runner?.stop();
    await Promise.all(this.retired);
  }

  // ---- internals ------------------------------------------------------------------

  private startWorkers(worker: WorkerStart): Promise<Runner> {
    const task: Task = async (payload) => this.take(payload, worker.handler);
    return run({
      pgPool: this.options.pool,
      concurrency: worker.concurrency,
      pollInterval: this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      // The host owns shutdown: it ends its runs first, then stops the queue.
      noHandleSignals: true,
      logger: graphileLogger(this.logger),
      taskList: { [RUN_TASK]: task },
      events: this.events,
      forbiddenFlags: () => (this.alive() && (worker.hasRoom?.() ?? true) ? null : [RUN_FLAG]),
    });
  }

  private readonly noteJob = ({ worker, job }: { worker: { workerId: string }; job: { id: string } }) => {
    this.jobOfWorker.set(worker.workerId, job.id);
  };

  private readonly forgetWorker = ({ worker }: { worker: { workerId: string } }) => {
    this.jobOfWorker.delete(worker.workerId);
  };

  /** A worker ended on a fault: its job is deleted and, once the burst of losses is over, the workers replaced. */
  private readonly workerLost = ({ worker, error }: { worker: { workerId: string }; error: unknown }) => {
    const jobId = this.jobOfWorker.get(worker.workerId);
    this.jobOfWorker.delete(worker.workerId);
    this.logger.warn("a queue worker ended on a database fault; this host's workers are replaced", {
      worker: worker.workerId,
      error: messageOf(error),
    });
    if (jobId !== undefined) void this.deleteLeftJob(worker.workerId, jobId);
    this.replaceTimer ??= setTimeout(() => void this.replaceWorkers(), 1_000);
  };

  /** A fresh set of workers takes over; the old set stops fetching and finishes the runs it holds. */
  private async replaceWorkers(): Promise<void> {
    this.replaceTimer = undefined;
    const worker = this.worker;
    if (!worker || !this.runner) return;
    let fresh: Runner;
    try {
      fresh = await this.startWorkers(worker);
    } catch (error) {
      this.logger.warn("starting fresh queue workers failed; tried again", { error: messageOf(error) });
      this.replaceTimer = setTimeout(() => void this.replaceWorkers(), 2_000);
      return;
    }
    const old = this.runner;
    if (old === null) {
      await fresh.stop();
      return;
    }
    this.runner = fresh;
    const retiring: Promise<void> = old
      .stop()
      .catch((error) => this.logger.warn("stopping replaced queue workers failed", { error: messageOf(error) }))
      .finally(() => this.retired.delete(retiring));
    this.retired.add(retiring);
  }

  /** The job a lost worker left locked, deleted once the database answers (a few tries, backing off). */
  private async deleteLeftJob(workerId: string, jobId: string): Promise<void> {
    for (let attempt = 0; attempt < 8; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
      try {
        await inTransaction(this.options.pool, async (tx) => {
          await tx.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [[workerId]]);
          await tx.query("SELECT graphile_worker.complete_jobs($1::bigint[])", [[jobId]]);
        });
        return;
      } catch {}
    }
    this.logger.warn("the job of a lost queue worker could not be deleted; graphile-worker keeps it", { job: jobId });
  }

  private get strandedAfterMs(): number {
    return this.options.strandedAfterMs ?? 15_000;
  }

  private alive(): boolean {
    return this.options.isAlive?.() ?? true;
  }

  /**
   * A claim that failed may still have committed (the connection dropped
   * before its answer came): read who has the run. This host: its claim
   * went through, run it. Another: drop the job. Nobody: claim again. If
   * the database stays unreachable, queue the run again for any host
   * (null: nothing more to do here).
   */
  private async settleUncertainClaim(run: QueuedRun, error: unknown): Promise<boolean | null> {
    this.logger.warn("claiming a run failed; reading who has it", { ...run, error: messageOf(error) });
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const owner = await this.options.claims.claimedBy(run.executionId);
        if (owner === this.options.hostId) return true;
        if (owner !== null) return false;
        return this.alive() && (await this.options.claims.claim(run, this.options.hostId));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
    this.logger.error("the run's claim could not be settled; it is queued again for any host", { ...run });
    await this.enqueue(run).catch((failure) =>
      this.logger.error("queueing the run again failed too", { ...run, error: messageOf(failure) }),
    );
    return null;
  }

  /**
   * graphile-worker's workers make their first fetch while its LISTEN
   * connection is still being set up (and it sets one up again after a
   * drop): a run enqueued in between would wait for the poll (60 s). So,
   * each time its LISTEN is in place, this host sends one `jobs:insert`
   * notification of its own (the library's channel and payload), which
   * wakes idle workers to fetch once more. Resolves after the first time,
   * or after 10 s without a listening connection (polling still works).
   */
  private kickAfterEveryListen(concurrency: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const giveUp = setTimeout(resolve, 10_000);
      giveUp.unref();
      this.stopKicking = () => this.events.off("pool:listen:success", kick);
      const kick = ({ client }: { client: pg.PoolClient }) => {
        // The library sends its LISTEN on this client right after this event: a query queued behind it on the same
        // connection completes after the LISTEN has.
        setImmediate(() => {
          client
            .query("SELECT 1")
            .then(() =>
              this.options.pool.query("SELECT pg_notify('jobs:insert', $1)", [JSON.stringify({ count: concurrency })]),
            )
            .catch((error) =>
              this.logger.warn("waking the queue's workers after it started listening failed", {
                error: messageOf(error),
              }),
            )
            .finally(() => {
              clearTimeout(giveUp);
              resolve();
            });
        });
      };
      this.events.on("pool:listen:success", kick);
    });
  }

  /** One delivered job: claim, run, and never let an error reach the library (it would record a failed attempt). */
  private async take(payload: unknown, handler: WorkerStart["handler"]): Promise<void> {
    const run = parseRun(payload);
    if (!run) {
      this.logger.error("a run job with an unreadable payload was dropped", { payload: String(payload) });
      return;
    }
    let claimed: boolean;
    try {
      // A host that lost its lease takes nothing; the claim's lease fence refuses it anyway.
      claimed = this.alive() && (await this.options.claims.claim(run, this.options.hostId));
    } catch (error) {
      const settled = await this.settleUncertainClaim(run, error);
      if (settled === null) return;
      claimed = settled;
    }
    if (!claimed) {
      if (this.alive()) {
        this.logger.debug("a run was already claimed or canceled; its job is dropped", { ...run });
      } else {
        // Fetched just before the lease ran out: hand it back for a live host.
        await this.enqueue(run).catch(() => undefined);
      }
      return;
    }
    try {
      await handler(run);
    } catch (error) {
      this.logger.error("a run's handler failed; runs are never retried", { ...run, error: messageOf(error) });
    }
  }
}

/** `cyrnel_run:<processId>:<executionId>`: the job key, readable from graphile-worker's `jobs` view. */
export function runKey(run: QueuedRun): string {
  return `${RUN_TASK}:${run.processId}:${run.executionId}`;
}

export function parseRunKey(key: string): QueuedRun | null {
  const match = /^cyrnel_run:(\d+):(\d+)$/.exec(key);
  return match ? { processId: Number(match[1]), executionId: Number(match[2]) } : null;
}

function parseRun(payload: unknown): QueuedRun | null {
  if (typeof payload !== "object" || payload === null) return null;
  const { processId, executionId } = payload as Record<string, unknown>;
  return Number.isSafeInteger(processId) && Number.isSafeInteger(executionId)
    ? { processId: processId as number, executionId: executionId as number }
    : null;
}

/** graphile-worker's log lines into the host's logger. */
function graphileLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger(() => (level: GraphileLogLevel, message: string, meta?: Record<string, unknown>) => {
    const fields = meta?.error ? { error: messageOf(meta.error) } : undefined;
    if (level === "error") logger.error(`queue: ${message}`, fields);
    // Its advice to have as many connections as workers assumes jobs that hold a connection; a run mostly awaits
    // tool calls and takes a pooled connection only per write, so the host sizes its pool by other means.
    else if (level === "warning" && message.includes("maxPoolSize")) logger.debug(`queue: ${message}`, fields);
    else if (level === "warning") logger.warn(`queue: ${message}`, fields);
    else if (level === "info") logger.info(`queue: ${message}`, fields);
    else logger.debug(`queue: ${message}`, fields);
  });
}
