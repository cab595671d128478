/**
 * Which hosts are alive: each host holds a lease in `cluster_hosts` and
 * renews it every lease/3; a host that stops renewing (it crashed, was
 * SIGKILLed, lost its network, or stood still too long) is *lost* once its
 * lease expires, and its work must be ended by someone else.
 *
 * The reaper runs on every host. One round, in one transaction, deletes the
 * expired rows it could lock (`FOR UPDATE SKIP LOCKED`: reapers racing get
 * disjoint sets, so no host is reported twice) and hands them, with the
 * transaction, to `onHostsLost`. The host's callback (process-cluster.ts)
 * ends the lost hosts' processes `failed` (`interrupted: worker lost`) and
 * expires their approvals in that same transaction, so a host is removed exactly when its work is ended: if
 * the callback fails, everything rolls back and the next round (on any host)
 * tries again.
 *
 * A lease expires by the database's clock (`now()`): hosts' clocks never
 * have to agree. A host also keeps a conservative local deadline (when it
 * sent its last successful renewal, plus the lease): past it, the host
 * considers itself lost even before the database says so — it stood still
 * (a long GC, a paused VM, a stopped process) or could not reach the
 * database, and others may already have reaped it. A lost host never renews
 * again (renewal only extends a lease that has not expired); it must stop
 * claiming work and end what it runs. Its `onLost` handlers are told once.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "@cyrnel/sdk";
import type pg from "pg";
import { DEFAULT_LEASE_MS, type HostRole } from "../contract/cluster.js";
import { inTransaction, messageOf, silentLogger } from "./sql.js";

export type { HostRole };

export interface HostRecord {
  id: string;
  role: HostRole;
  address: string | null;
  startedAt: Date;
  heartbeatAt: Date;
  leaseExpiresAt: Date;
}

export interface HostLeasesOptions {
  pool: pg.Pool;
  role: HostRole;
  /** Defaults to a fresh random id: a host that restarts is a new host (its previous self is reaped). */
  hostId?: string;
  /** How other hosts reach this one, for operators (e.g. `http://10.0.0.5:8080`); informational. */
  address?: string | null;
  /** `CYRNEL_LEASE_MS`: how long a host may go without renewing before it is lost (default 15 s). */
  leaseMs?: number;
  /**
   * Hosts found lost in a reaper round, inside the round's transaction (use
   * `tx` for the writes that end their work, so they commit with the
   * removal). Throwing rolls the round back; the hosts are reported again.
   * It may answer what to do once a reaper round committed (e.g. count the
   * runs it ended, then and only then: never twice, never for a rollback);
   * a host leaving (`stop`) drops it, as it ended those runs itself.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a callback with nothing to do after the commit stays `async () => {…}`.
  onHostsLost?(hosts: HostRecord[], tx: pg.PoolClient): Promise<(() => void) | void>;
  logger?: Logger;
}

export function newHostId(): string {
  return `h${randomBytes(8).toString("hex")}`;
}

export class HostLeases {
  readonly hostId: string;
  readonly leaseMs: number;
  private readonly logger: Logger;
  private renewTimer: NodeJS.Timeout | undefined;
  private reapTimer: NodeJS.Timeout | undefined;
  /** `performance.now()` time until which the lease is surely held (see the file comment). */
  private deadline = 0;
  private state: "new" | "alive" | "lost" | "stopped" = "new";
  private readonly lostHandlers = new Set<(reason: string) => void>();
  private reaping: Promise<HostRecord[]> | null = null;

  constructor(private readonly options: HostLeasesOptions) {
    this.hostId = options.hostId ?? newHostId();
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isInteger(this.leaseMs) || this.leaseMs < 30) throw new Error("leaseMs must be an integer ≥ 30");
    this.logger = options.logger ?? silentLogger;
  }

  /** Registers this host with a fresh lease, then renews it and runs the reaper every lease/3. */
  async start(): Promise<void> {
    if (this.state !== "new") throw new Error(`host leases already ${this.state}`);
    const sent = performance.now();
    await this.options.pool.query(
      `INSERT INTO cluster_hosts (id, role, address, lease_expires_at)
       VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
      [this.hostId, this.options.role, this.options.address ?? null, this.leaseMs],
    );
    this.deadline = sent + this.leaseMs;
    this.state = "alive";
    const every = Math.max(10, Math.floor(this.leaseMs / 3));
    this.renewTimer = setInterval(() => void this.renew(), every);
    // Reapers on many hosts need not fire together; a jittered start spreads them out.
    this.reapTimer = setTimeout(
      () => {
        this.reapTimer = setInterval(() => void this.reapSafely(), every);
        void this.reapSafely();
      },
      Math.floor(Math.random() * every),
    );
  }

  /** Whether this host surely still holds its lease: only then may it claim work. */
  isAlive(): boolean {
    if (this.state !== "alive") return false;
    if (performance.now() >= this.deadline) {
      this.markLost(`the lease (${this.leaseMs} ms) ran out before it was renewed`);
      return false;
    }
    return true;
  }

  /** Called once when this host loses its lease (never after a graceful `stop`). Returns an unsubscribe. */
  onLost(handler: (reason: string) => void): () => void {
    this.lostHandlers.add(handler);
    return () => this.lostHandlers.delete(handler);
  }

  /**
   * Extends the lease by `leaseMs` from now, if it has not expired (an
   * expired lease is never revived: others may be ending this host's work).
   * Resolves whether this host is still alive.
   */
  async renew(): Promise<boolean> {
    if (!this.isAlive()) return false;
    const sent = performance.now();
    try {
      const { rowCount } = await this.options.pool.query(
        `UPDATE cluster_hosts
         SET heartbeat_at = now(), lease_expires_at = now() + $2 * interval '1 millisecond'
         WHERE id = $1 AND lease_expires_at > now()`,
        [this.hostId, this.leaseMs],
      );
      if (this.state !== "alive") return false;
      if (rowCount === 0) {
        this.markLost("the lease had expired (or the host was reaped) when it was renewed");
        return false;
      }
      this.deadline = sent + this.leaseMs;
      return true;
    } catch (error) {
      // The database is unreachable: the lease runs on; if this goes on past the deadline, the host is lost.
      this.logger.warn("renewing the host lease failed; retried", { error: messageOf(error) });
      return this.isAlive();
    }
  }

  /**
   * One reaper round: removes the hosts whose lease expired that no other
   * reaper is handling right now, and reports them to `onHostsLost` in the
   * same transaction. Resolves the hosts this round removed.
   */
  async reap(): Promise<HostRecord[]> {
    // One round at a time per host; a timer firing during a slow round joins it.
    this.reaping ??= this.reapRound().finally(() => {
      this.reaping = null;
    });
    return this.reaping;
  }

  /** The hosts whose lease is current. */
  async liveHosts(): Promise<HostRecord[]> {
    const { rows } = await this.options.pool.query(
      `SELECT ${HOST_COLUMNS} FROM cluster_hosts WHERE lease_expires_at > now() ORDER BY started_at, id`,
    );
    return rows as HostRecord[];
  }

  /**
   * Stops renewing and reaping. `leave` (the default, for a graceful
   * shutdown after the host ended its own work) deletes the lease so nobody
   * reports the host lost; without it the lease simply runs out. A run the
   * host could not record the end of (storage was out of reach until its
   * time was up) would have nobody left to end it once the lease is gone:
   * leaving ends such runs like the reaper does, in the same transaction.
   */
  async stop(options: { leave?: boolean } = {}): Promise<void> {
    const wasAlive = this.state === "alive";
    this.state = "stopped";
    clearInterval(this.renewTimer);
    clearTimeout(this.reapTimer);
    clearInterval(this.reapTimer);
    await this.reaping?.catch(() => undefined);
    if (wasAlive && options.leave !== false) {
      await inTransaction(this.options.pool, async (tx) => {
        const { rows } = await tx.query(`DELETE FROM cluster_hosts WHERE id = $1 RETURNING ${HOST_COLUMNS}`, [
          this.hostId,
        ]);
        if (rows.length > 0) await this.options.onHostsLost?.(rows as HostRecord[], tx);
      });
    }
  }

  // ---- internals ------------------------------------------------------------------

  private async reapRound(): Promise<HostRecord[]> {
    let committed: (() => void) | undefined;
    const lost = await inTransaction(this.options.pool, async (tx) => {
      const { rows } = await tx.query(
        `DELETE FROM cluster_hosts
         WHERE id IN (
           SELECT id FROM cluster_hosts WHERE lease_expires_at < now() AND id <> $1 FOR UPDATE SKIP LOCKED
         )
         RETURNING ${HOST_COLUMNS}`,
        [this.hostId],
      );
      const lost = rows as HostRecord[];
      if (lost.length > 0) {
        this.logger.warn("hosts lost their lease; ending their work", { hosts: lost.map((host) => host.id) });
        committed = (await this.options.onHostsLost?.(lost, tx)) ?? undefined;
      }
      return lost;
    });
    committed?.();
    return lost;
  }

  private async reapSafely(): Promise<void> {
    // A host that stood still must first notice its own lease ran out, not reap itself as someone else's loss.
    if (!this.isAlive()) return;
    try {
      await this.reap();
    } catch (error) {
      this.logger.error("a reaper round failed; the next round tries again", { error: messageOf(error) });
    }
  }

  private markLost(reason: string): void {
    if (this.state !== "alive") return;
    this.state = "lost";
    clearInterval(this.renewTimer);
    clearTimeout(this.reapTimer);
    clearInterval(this.reapTimer);
    this.logger.error("this host lost its lease: it stops taking work", { host: this.hostId, reason });
    for (const handler of [...this.lostHandlers]) {
      try {
        handler(reason);
      } catch (error) {
        this.logger.error("a lease-lost handler failed", { error: messageOf(error) });
      }
    }
  }
}

const HOST_COLUMNS = `id, role, address, started_at AS "startedAt", heartbeat_at AS "heartbeatAt",
  lease_expires_at AS "leaseExpiresAt"`;
