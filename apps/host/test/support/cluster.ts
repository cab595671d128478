/**
 * Helpers the cluster tests share: a "host" (its pool and its listening
 * connection) on a test database, and waiting for something to happen
 * without timing assertions (the test's own timeout is the only clock).
 */
import pg from "pg";
import { NotificationListener } from "../../src/cluster/notification-listener.js";

export interface TestHostConnections {
  hostId: string;
  pool: pg.Pool;
  listener: NotificationListener;
  close(): Promise<void>;
}

/** A pool and a started listener for `hostId`; the listener's connection is named `listen-<hostId>`. */
export async function connectHost(url: string, hostId: string): Promise<TestHostConnections> {
  const pool = new pg.Pool({ connectionString: url, max: 8, application_name: `pool-${hostId}` });
  const listener = new NotificationListener({
    connection: { connectionString: url, application_name: `listen-${hostId}` },
    minReconnectDelayMs: 20,
  });
  await listener.start();
  return {
    hostId,
    pool,
    listener,
    async close() {
      await listener.stop();
      await pool.end();
    },
  };
}

/** Resolves once `check` returns a value other than undefined/false, asking again every `everyMs`. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, everyMs = 20) {
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A queue of values that tests await one by one. */
export class Inbox<T> {
  private readonly items: T[] = [];
  private waiters: Array<(item: T) => void> = [];

  push = (item: T): void => {
    const waiter = this.waiters.shift();
    if (waiter) waiter(item);
    else this.items.push(item);
  };

  next(): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** What arrived and was not taken yet. */
  get pending(): readonly T[] {
    return this.items;
  }
}
