/**
 * Processes across hosts: the composition of the cluster blocks for the
 * process path, built by `app.ts` when the host's database is PostgreSQL
 * (whatever its role: one code path, so an `all` host alone on PostgreSQL
 * runs its processes through the queue too).
 *
 * - Every host: its lease (`HostLeases`) and the reaper, which ends a lost
 *   host's runs `failed` (`interrupted: worker lost`) and expires their
 *   approvals; the sweep that ends runs that waited for a host past their
 *   timeout; signals and run events (`ProcessSignals`), so that kills,
 *   decisions, `block: true` and `GET /processes/:id/events` work from any
 *   host; call record ids from the database's sequence.
 * - Hosts that run processes (`all`, `worker`): the queue's worker
 *   (`ProcessQueue.start`), taking a run only while this host's environment
 *   admits one (`hasRoom`), claiming it at most once, and running it through
 *   `ProcessRunner.runClaimed` with its writes fenced by the claim and its
 *   text and events published to readers everywhere.
 *
 * A host that finds its own lease lost stops taking runs, cancels the ones
 * it has (their final rows are written only if nobody reaped them yet) and
 * reports it through `lost`: the server then exits non-zero, and its
 * supervisor starts it again as a new host.
 *
 * The listening connection is a parameter: a host has one for everything
 * it listens to (this and the change feed, whose subscription connects it
 * first); the host stops it after both.
 */
import type { ExecutionExitState, Logger } from "@cyrnel/sdk";
import type { ClusterConfig } from "../config-cluster.js";
import type { PgDb } from "../db/client-pg.js";
import type { ApprovalSummary } from "../domain/governance/approval-store.js";
import type { Approvals } from "../domain/governance/approvals.js";
import type { ProcessRunner, RemoteRun, RunQueue, RunRecorder } from "../domain/processes/process-runner.js";
import { atCapacity } from "../errors.js";
import { ExecutionClaims, ExecutionRuns } from "./execution-runs.js";
import { HostLeases, type HostRole } from "./host-leases.js";
import type { NotificationListener } from "./notification-listener.js";
import { ProcessQueue } from "./process-queue.js";
import { ProcessSignals, type RunControl } from "./process-signals.js";
import type { QueuedRun } from "./run-claims.js";
import { RunEnds } from "./run-events.js";
import { inTransaction, messageOf } from "./sql.js";

export interface ProcessClusterOptions {
  db: PgDb;
  config: ClusterConfig;
  logger: Logger;
  /** The host's one LISTEN connection, shared with the change feed (started here; the host stops it). */
  listener: NotificationListener;
  /** This host's id in the cluster (its lease, its claims, its signals). */
  hostId: string;
}

/** What the process path needs that only exists once the host is built. */
export interface ProcessClusterParts {
  runner: ProcessRunner;
  approvals: Approvals;
  /** Whether this host's active environment takes one more run now (its `admit()`). */
  hasRoom(): boolean;
  /** Writes the call records this host holds (a run's calls are written before its end, for `calls` anywhere). */
  flushCalls(): Promise<void>;
  /**
   * A run this host ended for another (the queue-timeout sweep: `timeout`, never started; the reaper: `failed`, a
   * lost host's), once its transaction committed: the host's `runEnded` notice, so its metrics count it. The
   * conditional update that ends a run returns it to one host only, so no two hosts count it.
   */
  runEnded(processId: number, exitState: ExecutionExitState, ran: boolean): void;
}

export interface ClusterHealth {
  role: HostRole;
  hostId: string;
  /** Whether this host holds its lease (a host that lost it exits). */
  leaseAlive: boolean;
}

/** Where a count of the queue for the metrics stops: far past any CYRNEL_QUEUE_LIMIT, so it is exact in practice. */
const QUEUE_DEPTH_COUNTED = 1_000_000;
/** How long a count of the waiting runs is used for admission before it is counted again. */
const QUEUE_COUNT_MS = 250;
/**
 * How long past its timeout a claimed run may stay unended before the sweep ends it: well past the executing host's
 * own backstop (1 s) and kill grace (2 s), so a host that is merely slow or briefly cut off from the database ends
 * and records its run itself.
 */
const OVERDUE_GRACE_MS = 30_000;

export class ProcessCluster {
  readonly leases: HostLeases;
  readonly signals: ProcessSignals;
  readonly queue: ProcessQueue;
  readonly runs: ExecutionRuns;
  private readonly ends: RunEnds;
  private readonly claims: ExecutionClaims;
  /** The queue's length as last counted, and when (see `admit`). */
  private waiting = { count: 0, at: Number.NEGATIVE_INFINITY };
  /** The queue as `ProcessRunner` uses it (`ProcessRunnerOptions.queue`). */
  readonly runQueue: RunQueue;
  /** Resolves (with why) when this host lost its lease: it has stopped taking runs and must exit. */
  readonly lost: Promise<string>;
  private reportLost!: (reason: string) => void;
  private readonly listener: NotificationListener;
  private readonly logger: Logger;
  private parts: ProcessClusterParts | null = null;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(private readonly options: ProcessClusterOptions) {
    const { db, config, logger } = options;
    const pool = db.$client;
    this.logger = logger;
    this.listener = options.listener;
    this.lost = new Promise((resolve) => {
      this.reportLost = resolve;
    });
    this.runs = new ExecutionRuns(db);
    this.ends = new RunEnds(this.listener, (processId) => this.runs.snapshot(processId), logger);
    this.leases = new HostLeases({
      pool,
      hostId: options.hostId,
      role: config.role,
      address: config.advertiseUrl,
      leaseMs: config.leaseMs,
      logger,
      onHostsLost: async (hosts, tx) => {
        const ids = hosts.map((host) => host.id);
        // Durable runs go back in the queue, to be resumed from their journals by another host; the rest end.
        const requeued = await this.runs.requeueDurable(ids, tx);
        const ended = await this.runs.endRunsOfLostHosts(ids, tx);
        // Their jobs would stay locked by the dead host's workers (for graphile-worker's 4 hours, then for good).
        await this.queue.dropJobs([...ended, ...requeued], tx);
        for (const run of requeued) await this.queue.enqueue(run, tx);
        if (requeued.length > 0) {
          logger.warn("the durable runs of lost hosts were queued again, to resume from their journals", {
            hosts: ids,
            processes: requeued.map((run) => run.processId),
          });
        }
        if (ended.length > 0) {
          logger.warn("the runs of lost hosts ended failed (interrupted: worker lost)", {
            hosts: hosts.map((host) => host.id),
            processes: ended.map((run) => run.processId),
          });
        }
        // Counted once the round committed (a reaper round only: a host leaving counted its own runs as they ended).
        return () => {
          for (const run of ended) this.parts?.runEnded(run.processId, "failed", true);
        };
      },
    });
    this.signals = new ProcessSignals({
      pool,
      listener: this.listener,
      hostId: this.leases.hostId,
      flushIntervalMs: config.processFlushMs,
      logger,
    });
    this.claims = new ExecutionClaims(pool);
    this.queue = new ProcessQueue({
      pool,
      hostId: this.leases.hostId,
      claims: this.claims,
      isAlive: () => this.leases.isAlive(),
      logger,
      pollIntervalMs: config.queuePollMs,
      strandedAfterMs: config.leaseMs,
    });
    this.runQueue = {
      admitsLocally: config.role === "all",
      admit: async () => {
        // Counted at most every QUEUE_COUNT_MS (a burst of submissions must not each count the queue), and always
        // again once the last count came near the limit.
        const limit = config.queueLimit;
        const stale = performance.now() - this.waiting.at > QUEUE_COUNT_MS;
        if (stale || this.waiting.count >= limit * 0.9) {
          this.waiting = { count: await this.runs.waitingCount(limit), at: performance.now() };
        }
        if (this.waiting.count >= limit) {
          throw atCapacity(`${limit} processes already wait for a host (CYRNEL_QUEUE_LIMIT)`, 1);
        }
      },
      addJob: (processId, executionId) => this.queue.addJobSql(processId, executionId),
      pendingApprovals: (processIds) => this.runs.pendingApprovals(processIds),
      follow: (processId, onEvent, text) => this.follow(processId, onEvent, text),
      waitEnded: (processId, signal) => this.ends.wait(processId, signal),
      kill: (processId) => this.runs.requestKill(processId, (tx) => this.signals.kill(processId, null, tx)),
      cancelWaiting: async (environmentId, reason) => {
        const canceled = await this.runs.cancelWaiting(environmentId, reason);
        if (canceled > 0) logger.info("queued processes of a stopped environment were canceled", { canceled });
      },
    };
  }

  /**
   * The queue's schema, created or upgraded under a lock (hosts may start together); the cluster's own tables come
   * with the host's migrations, applied when its store opened.
   */
  static async open(options: ProcessClusterOptions): Promise<ProcessCluster> {
    await ProcessQueue.migrate(options.db.$client, options.logger);
    return new ProcessCluster(options);
  }

  get hostId(): string {
    return this.leases.hostId;
  }

  get role(): HostRole {
    return this.options.config.role;
  }

  /** Whether this host takes runs from the queue. */
  get executes(): boolean {
    return this.role !== "api";
  }

  /** Call record ids from the database's sequence: hosts sharing it never give one twice. */
  readonly callIds = async (count: number): Promise<number[]> => {
    const { rows } = await this.options.db.$client.query(
      "SELECT nextval('calls_id_seq')::bigint AS id FROM generate_series(1, $1)",
      [count],
    );
    return rows.map((row: { id: string }) => Number(row.id));
  };

  /**
   * A decision made through this host, for the host whose call waits for it; a run that was evicted while it
   * waited (no host has it) goes back in the queue once none of its approvals is pending.
   */
  readonly approvalDecided = async (approval: ApprovalSummary): Promise<void> => {
    if (approval.state === "pending") return;
    await this.signals.approvalDecided(approval.processId, approval.id, approval.state);
    const executionId = approval.executionId;
    if (executionId === null) return;
    await inTransaction(this.options.db.$client, async (tx) => {
      const woken = await this.runs.wakeEvicted(executionId, tx);
      await this.queue.dropJobs(woken, tx);
      for (const run of woken) await this.queue.enqueue(run, tx);
    });
  };

  /**
   * Joins the cluster: the lease first (a claim needs it), then signals, the
   * sweep, and — on hosts that run processes — the queue's worker.
   */
  async start(parts: ProcessClusterParts): Promise<void> {
    this.parts = parts;
    await this.listener.start();
    await this.leases.start();
    this.leases.onLost((reason) => void this.onLeaseLost(reason));
    await this.signals.start();
    await this.ends.start();
    const every = Math.max(100, Math.floor(this.options.config.leaseMs / 3));
    this.sweepTimer = setInterval(() => void this.sweepTimedOut(), every);
    this.sweepTimer.unref();
    if (this.executes) {
      await this.queue.start({
        concurrency: this.options.config.workerConcurrency,
        hasRoom: parts.hasRoom,
        handler: (run) => this.execute(run, parts),
      });
    }
    this.logger.info("joined the cluster", {
      hostId: this.hostId,
      role: this.role,
      leaseMs: this.options.config.leaseMs,
      ...(this.executes && { workerConcurrency: this.options.config.workerConcurrency }),
    });
  }

  /** How many runs wait for a host in the queue now, every host's (the metrics and `GET /stats`). */
  queueDepth(): Promise<number> {
    return this.runs.waitingCount(QUEUE_DEPTH_COUNTED);
  }

  health(): ClusterHealth {
    return { role: this.role, hostId: this.hostId, leaseAlive: this.leases.isAlive() };
  }

  /** Graceful stop, first half: no more runs taken (resolves once the runs this host has ended: cancel them). */
  stopTaking(): Promise<void> {
    clearInterval(this.sweepTimer);
    return this.queue
      .stop()
      .catch((error) => this.logger.warn("stopping the queue failed", { error: messageOf(error) }));
  }

  /**
   * Graceful stop, second half (after this host's runs ended and its requests were answered): the lease is given
   * up — nobody reports this host lost — and the signals and the listening connection close.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.stopTaking();
    await this.leases
      .stop()
      .catch((error) => this.logger.warn("giving up the lease failed; it runs out", { error: messageOf(error) }));
    await this.signals.stop();
    await this.ends.stop();
  }

  // ---- internals ------------------------------------------------------------------

  /** Follows the process's current run: the row first (after listening), then its frames, until it ends. */
  private async follow(
    processId: number,
    onEvent: Parameters<RunQueue["follow"]>[1],
    text: boolean,
  ): Promise<RemoteRun> {
    const followed = await this.signals.follow(
      processId,
      () => this.runs.snapshot(processId),
      // Frames carry the events the executing host published: text, ended calls and approvals.
      (event) => onEvent(event as Parameters<typeof onEvent>[0]),
      text,
    );
    return {
      stdout: followed.stdout,
      stderr: followed.stderr,
      done: followed.done.then(() => undefined),
      close: () => followed.close(),
    };
  }

  /** One run this host claimed: attach it (kills and decisions reach it from here on), read it, run it. */
  private async execute(run: QueuedRun, parts: ProcessClusterParts): Promise<void> {
    const { runner, approvals } = parts;
    const hostId = this.hostId;
    let killed = false;
    const control: RunControl = {
      kill: (reason) => {
        killed = true;
        runner.killRun(run.processId, reason);
      },
      approvalDecided: (approvalId) => {
        approvals
          .settleFromStore(approvalId)
          .catch((error) =>
            this.logger.warn("could not settle a decided approval", { approval: approvalId, error: messageOf(error) }),
          );
      },
      // Signals may have been missed: the kill mark and the decisions are in the rows.
      resync: () => {
        this.runs
          .killRequested(run.executionId)
          .then((requested) => {
            if (requested) control.kill(null);
          })
          .catch((error) => this.logger.warn("could not read a run's kill mark", { error: messageOf(error) }));
        for (const approvalId of approvals.waitingOf(run.processId)) control.approvalDecided(approvalId, "expired");
      },
    };
    const { publisher } = this.signals.attach(run, control, (text) => this.runs.persistText(run, hostId, text));
    // A kill recorded after the claim was read and signalled before the run was attached reached nobody: the
    // mark is read once more now that signals reach the run (it ends the run however far it has got).
    this.runs
      .killRequested(run.executionId)
      .then((requested) => {
        if (requested) control.kill(null);
      })
      .catch((error) => this.logger.warn("could not read a run's kill mark", { error: messageOf(error) }));
    const recorder: RunRecorder = {
      setState: (state) => this.runs.setState(run, hostId, state),
      setRunning: (startedAt) => this.runs.setRunning(run, hostId, startedAt),
      write: (stream, text) => publisher.write(stream, text),
      publish: (event) => publisher.publish(event),
      finish: async (result) => {
        // Whoever reads the ended run (on any host) counts its calls from the database: they are there first.
        await parts.flushCalls();
        await publisher.end(async () => {
          const written = await this.runs.finish(run, hostId, result);
          if (!written) {
            this.logger.warn("a run had been ended elsewhere (this host was taken for lost); its results are dropped", {
              ...run,
            });
          }
        });
      },
      // Evicted while it waits for an approval: no host has it until the approval is decided.
      evict: async () => {
        await parts.flushCalls();
        await publisher.end(async () => {
          await inTransaction(this.options.db.$client, async (tx) => {
            const woken = await this.runs.evict(run, hostId, tx);
            await this.queue.dropJobs(woken, tx);
            for (const again of woken) await this.queue.enqueue(again, tx);
          });
        });
      },
      // Let go while it sleeps: its job waits in the queue until it is due, for any host to resume it then.
      sleep: async (wakeAt) => {
        await parts.flushCalls();
        await publisher.end(async () => {
          await inTransaction(this.options.db.$client, async (tx) => {
            const asleep = await this.runs.sleep(run, hostId, wakeAt, tx);
            await this.queue.dropJobs(asleep, tx);
            for (const again of asleep) await this.queue.enqueue(again, tx, wakeAt);
          });
        });
        // Workers learn of a due job by polling (CYRNEL_QUEUE_POLL_MS): this host nudges them when it is due. Were
        // this host gone by then, the next poll of any host takes it.
        this.queue.nudgeAt(Date.parse(wakeAt));
      },
      // Let go without ending (this host stops): the run goes back in the queue, for a host to resume it.
      release: async () => {
        await parts.flushCalls();
        await publisher.end(async () => {
          await inTransaction(this.options.db.$client, async (tx) => {
            const requeued = await this.runs.requeueDurable([hostId], tx, run.executionId);
            await this.queue.dropJobs(requeued, tx);
            for (const again of requeued) await this.queue.enqueue(again, tx);
          });
        });
      },
    };
    try {
      // Claimed: this host must run it or end it, so a storage fault while reading it is waited out.
      const stored =
        this.claims.take(run.executionId) ??
        (await runner.durably(run, "reading the claimed run", () => this.runs.read(run.executionId)));
      if (!stored) {
        await publisher.end();
        return;
      }
      killed ||= stored.killRequested;
      await runner.runClaimed({
        ...run,
        ...stored,
        killRequested: () => killed,
        recorder,
      });
    } catch (error) {
      // Whatever failed, the run must not stay `running` with nobody on it: it ends failed, once.
      this.logger.error("running a claimed process failed", { ...run, error: messageOf(error) });
      await runner
        .durably(run, "the end", () =>
          recorder.finish({
            exitState: "failed",
            error: `the host could not run it: ${messageOf(error)}`,
            output: {},
            stdout: publisher.stdout,
            stderr: publisher.stderr,
          }),
        )
        .catch(() => undefined);
    }
  }

  private async sweepTimedOut(): Promise<void> {
    if (!this.leases.isAlive()) return;
    try {
      const ended = await this.runs.endTimedOutWaiting();
      if (ended.length > 0) {
        this.logger.warn("processes waited for a host past their timeout and ended", { count: ended.length });
        for (const run of ended) this.parts?.runEnded(run.processId, "timeout", false);
      }
      // Not counted here: the host that lost track of such a run may have counted its end already (a run whose
      // final write it gave up), and the metrics would count it twice.
      const overdue = await this.runs.endOverdueClaimed(OVERDUE_GRACE_MS);
      if (overdue.length > 0) {
        this.logger.warn("processes whose host never recorded their end, long past their timeout, ended", {
          count: overdue.length,
        });
      }
    } catch (error) {
      this.logger.warn("the queue-timeout sweep failed; it runs again", { error: messageOf(error) });
    }
  }

  private async onLeaseLost(reason: string): Promise<void> {
    if (this.stopped) return;
    this.logger.error("this host lost its lease: it lets go of its runs and exits", { hostId: this.hostId, reason });
    clearInterval(this.sweepTimer);
    const queueStopped = this.queue.stop().catch(() => undefined);
    // Durable runs go back in the queue (fenced by this host's claim: what a reaper took already is not touched),
    // for another host to resume; the rest end canceled.
    await this.parts?.runner.release("canceled: the host running it lost its lease").catch(() => undefined);
    await queueStopped;
    this.reportLost(reason);
  }
}
