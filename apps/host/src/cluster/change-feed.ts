/**
 * What one host changes, every other host hears of: a typed, small change
 * (`{kind, id}`: ids, never data) sent with `pg_notify` on one channel and
 * delivered to every host that LISTENs on it. Receivers reload what the
 * change names from the database; the notification is only the nudge.
 *
 * Publishing inside the caller's transaction (pass its client) ties the
 * notification to the commit: PostgreSQL sends it only if and when the
 * transaction commits, so no host reloads a change that was rolled back or
 * reads the database before the change is visible.
 *
 * Every change carries the publishing host's id. The host that made a
 * change has usually applied it already, so by default a subscriber does not
 * receive its own host's changes; `includeOwn` asks for them too, with `own`
 * set, for handlers that want one code path for every change.
 *
 * Notifications sent while a host's listening connection is down are lost.
 * After a reconnect the feed calls `onMissed`: the host must reload
 * everything it caches, since it cannot know what it missed.
 */
import type { Logger } from "@cyrnel/sdk";
import type pg from "pg";
import type { NotificationListener } from "./notification-listener.js";
import { messageOf, NOTIFY_PAYLOAD_LIMIT, type Queryable, silentLogger } from "./sql.js";

/** The channel every host listens on for changes. */
export const CHANGES_CHANNEL = "cyrnel_changes";

/**
 * What changed, by what the receiving host caches (change-sync.ts says what
 * each kind refreshes):
 * - `service`: a service was installed, updated, enabled, disabled, deleted, or its config or secrets changed;
 * - `tools`: tools of a service were switched on or off (`id` is the service id);
 * - `module`: a module was installed, updated, enabled, disabled, deleted, or its config or secrets changed;
 * - `policy`: a service's tool policy changed (`id` is the service id);
 * - `key`: an API key was created, changed or revoked;
 * - `registry`: a registry was added or removed;
 * - `settings`: a host-wide setting changed (`id` names it). The host has no host-wide setting, so nothing sends
 *   it; a receiver has nothing to refresh for it.
 */
export type ChangeKind = "service" | "tools" | "module" | "policy" | "key" | "registry" | "settings";

export const CHANGE_KINDS: readonly ChangeKind[] = [
  "service",
  "tools",
  "module",
  "policy",
  "key",
  "registry",
  "settings",
];

export interface Change {
  kind: ChangeKind;
  /** The id of what changed (a service, module, key, …). */
  id: string;
  /** What happened to it, when a receiver can do less work knowing it (e.g. `deleted`). */
  action?: "created" | "updated" | "deleted";
}

/** A change as a subscriber receives it. */
export interface ReceivedChange extends Change {
  /** The host that published it. */
  origin: string;
  /** Published by this host. */
  own: boolean;
}

export interface ChangeSubscription {
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  /** Where changes are published (a pool; a transaction's client can be passed per publish). */
  pool: pg.Pool;
  /** Where changes are heard (the host's one listening connection). */
  listener: NotificationListener;
  /** This host's id, carried by every change it publishes. */
  hostId: string;
  logger?: Logger;
}

/** The wire form: short keys, since every byte of a payload counts against PostgreSQL's limit. */
interface WireChange {
  o: string;
  k: ChangeKind;
  i: string;
  a?: Change["action"];
}

export class ChangeFeed {
  private readonly logger: Logger;

  constructor(private readonly options: ChangeFeedOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Sends a change to every host. With `tx` (a client inside the caller's
   * open transaction) it goes out when that transaction commits, and never if
   * it rolls back; without, at once.
   */
  async publish(change: Change, tx?: Queryable): Promise<void> {
    const payload = encodeChange(change, this.options.hostId);
    await (tx ?? this.options.pool).query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, payload]);
  }

  /**
   * Delivers every change published from now on (once the promise resolves,
   * the connection listens), in the order PostgreSQL committed them;
   * `onMissed` after a reconnect, when changes may have been lost.
   */
  async subscribe(
    handler: (change: ReceivedChange) => void,
    options: { onMissed: () => void; includeOwn?: boolean },
  ): Promise<ChangeSubscription> {
    const { hostId } = this.options;
    const offGap = this.options.listener.onGap(options.onMissed);
    const subscription = await this.options.listener.listen(CHANGES_CHANNEL, (payload) => {
      let change: ReceivedChange;
      try {
        change = decodeChange(payload, hostId);
      } catch (error) {
        // A newer host may publish a kind this one does not know: reloading everything is the safe answer.
        this.logger.warn("an unreadable change was received; reloading everything", { error: messageOf(error) });
        options.onMissed();
        return;
      }
      if (change.own && !options.includeOwn) return;
      handler(change);
    });
    return {
      close: async () => {
        offGap();
        await subscription.close();
      },
    };
  }
}

export function encodeChange(change: Change, origin: string): string {
  if (!CHANGE_KINDS.includes(change.kind)) throw new Error(`unknown change kind "${change.kind}"`);
  const wire: WireChange = { o: origin, k: change.kind, i: change.id };
  if (change.action !== undefined) wire.a = change.action;
  const payload = JSON.stringify(wire);
  if (Buffer.byteLength(payload) > NOTIFY_PAYLOAD_LIMIT) {
    throw new Error(`a change must fit in ${NOTIFY_PAYLOAD_LIMIT} bytes: send ids, not data (the id is too long)`);
  }
  return payload;
}

export function decodeChange(payload: string, hostId: string): ReceivedChange {
  const wire = JSON.parse(payload) as Partial<WireChange>;
  if (typeof wire.o !== "string" || typeof wire.i !== "string" || !CHANGE_KINDS.includes(wire.k as ChangeKind)) {
    throw new Error(`not a change: ${payload.slice(0, 200)}`);
  }
  const change: ReceivedChange = { kind: wire.k as ChangeKind, id: wire.i, origin: wire.o, own: wire.o === hostId };
  if (wire.a !== undefined) change.action = wire.a;
  return change;
}
