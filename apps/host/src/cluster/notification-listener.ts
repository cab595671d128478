/**
 * One dedicated connection per host that LISTENs on the channels its parts
 * ask for (the change feed, process signals, the runs a reader follows) and
 * survives losing its connection.
 *
 * A pooled connection cannot LISTEN: the pool hands it to someone else
 * between queries. So this owns a `pg.Client` of its own. When that
 * connection drops (the server restarted, an operator ran
 * `pg_terminate_backend`, the network broke), it reconnects with a growing
 * delay and LISTENs on every channel again. PostgreSQL does not keep
 * notifications for a session that is gone, so anything sent meanwhile is
 * lost: after every reconnect the listener reports a *gap*, and each
 * subscriber must then read what it needs from the database again.
 *
 * A connection that dies silently (a half-open TCP connection) would never
 * report an error on its own, so a ping runs every `pingIntervalMs` and a
 * ping that fails or takes too long counts as a drop.
 */
import type { Logger } from "@cyrnel/sdk";
import pg from "pg";
import { messageOf, silentLogger } from "./sql.js";

export type NotificationHandler = (payload: string) => void;

export interface NotificationListenerOptions {
  /** Where to connect (a connection string or pg client config). */
  connection: string | pg.ClientConfig;
  logger?: Logger;
  /** How often the connection is checked (default 10 s). */
  pingIntervalMs?: number;
  /** First and longest wait before reconnecting (defaults 100 ms and 5 s); the wait doubles per failed attempt. */
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

export interface ListenSubscription {
  /** Stops delivering to this handler; the channel is UNLISTENed once its last handler is gone. */
  close(): Promise<void>;
}

export class NotificationListener {
  private client: pg.Client | null = null;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly gapHandlers = new Set<() => void>();
  /** Channels LISTENed on the current connection. */
  private readonly listening = new Set<string>();
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private everConnected = false;
  private stopped = false;
  /** Serialises LISTEN/UNLISTEN on the connection, so a quick listen-unlisten-listen ends in the right state. */
  private commands: Promise<unknown> = Promise.resolve();
  private readonly logger: Logger;

  constructor(private readonly options: NotificationListenerOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Connects (once; later calls wait for the same connection). Rejects if the first connection fails. */
  start(): Promise<void> {
    this.connecting ??= this.connect().catch((error) => {
      // Let a later start() try again rather than keep answering the first failure.
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  /**
   * Calls `handler` with every payload sent on `channel`, from the moment
   * the returned promise resolves: by then the connection LISTENs, so a
   * notification committed afterwards is delivered (a reader can subscribe,
   * then read the database, and miss nothing in between). While the
   * connection is down it resolves at once; the reconnect LISTENs and then
   * reports a gap, which subscribers answer by reading the database again.
   */
  async listen(channel: string, handler: NotificationHandler): Promise<ListenSubscription> {
    await this.start();
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    await this.sync(channel);
    return {
      close: async () => {
        const current = this.handlers.get(channel);
        if (!current?.delete(handler)) return;
        if (current.size === 0) this.handlers.delete(channel);
        await this.sync(channel);
      },
    };
  }

  /** Called after each reconnect: notifications may have been missed, read the truth from the database. */
  onGap(handler: () => void): () => void {
    this.gapHandlers.add(handler);
    return () => this.gapHandlers.delete(handler);
  }

  /** Whether the connection is up right now (between a drop and the reconnect it is not). */
  get connected(): boolean {
    return this.client !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = null;
    this.listening.clear();
    await client?.end().catch(() => undefined);
  }

  // ---- internals ------------------------------------------------------------------

  private async connect(): Promise<void> {
    const client = new pg.Client(
      typeof this.options.connection === "string"
        ? { connectionString: this.options.connection, keepAlive: true }
        : { keepAlive: true, ...this.options.connection },
    );
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.lost(error);
      client.end().catch(() => undefined);
    };
    client.on("error", drop);
    client.on("end", () => drop(new Error("the connection ended")));
    client.on("notification", (message) => {
      const handlers = this.handlers.get(message.channel);
      for (const handler of [...(handlers ?? [])]) {
        try {
          handler(message.payload ?? "");
        } catch (error) {
          this.logger.error("a notification handler failed", { channel: message.channel, error: messageOf(error) });
        }
      }
    });
    await client.connect();
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.listening.clear();
    // One statement for every channel, so a reconnect is listening everywhere before the gap is reported.
    const channels = [...this.handlers.keys()];
    if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${quoteChannel(c)}`).join("; "));
    for (const channel of channels) this.listening.add(channel);
    this.failures = 0;
    this.startPing(client, drop);
    if (this.everConnected) {
      this.logger.warn("the notification connection is back; changes sent meanwhile were missed");
      for (const handler of [...this.gapHandlers]) {
        try {
          handler();
        } catch (error) {
          this.logger.error("a notification gap handler failed", { error: messageOf(error) });
        }
      }
    }
    this.everConnected = true;
  }

  /** Makes the connection's LISTEN state for `channel` match whether anyone handles it. */
  private sync(channel: string): Promise<void> {
    const run = this.commands.then(async () => {
      const client = this.client;
      // Not connected: the reconnect LISTENs on every channel that has handlers by then.
      if (!client) return;
      const wanted = this.handlers.has(channel);
      if (wanted === this.listening.has(channel)) return;
      await client.query(`${wanted ? "LISTEN" : "UNLISTEN"} ${quoteChannel(channel)}`);
      if (wanted) this.listening.add(channel);
      else this.listening.delete(channel);
    });
    // A failed LISTEN means the connection is going away; the reconnect does it again.
    this.commands = run.catch(() => undefined);
    return run.catch((error) => {
      if (this.client !== null) throw error;
    });
  }

  private startPing(client: pg.Client, drop: (error?: unknown) => void): void {
    clearInterval(this.pingTimer);
    const interval = this.options.pingIntervalMs ?? 10_000;
    this.pingTimer = setInterval(() => {
      const timeout = setTimeout(() => drop(new Error(`no answer to a ping within ${interval} ms`)), interval);
      client.query("SELECT 1").then(
        () => clearTimeout(timeout),
        (error) => {
          clearTimeout(timeout);
          drop(error);
        },
      );
    }, interval);
    this.pingTimer.unref();
  }

  private lost(error: unknown): void {
    this.client = null;
    this.listening.clear();
    clearInterval(this.pingTimer);
    if (this.stopped) return;
    this.logger.warn("the notification connection dropped; reconnecting", { error: messageOf(error) });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const min = this.options.minReconnectDelayMs ?? 100;
    const max = this.options.maxReconnectDelayMs ?? 5_000;
    const delay = Math.min(max, min * 2 ** this.failures);
    this.failures++;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.connect().catch((error) => {
        this.logger.warn("reconnecting the notification connection failed; trying again", {
          error: messageOf(error),
        });
        this.scheduleReconnect();
      });
    }, delay);
  }
}

/** Channel names are identifiers in LISTEN; quoting keeps their case and allows any character but `"`. */
export function quoteChannel(channel: string): string {
  if (channel.length === 0 || channel.length > 63 || channel.includes('"') || channel.includes("\0")) {
    throw new Error(`invalid notification channel name: ${JSON.stringify(channel)}`);
  }
  return `"${channel}"`;
}
