import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isUnauthorized } from "./connect.js";
import { abortable, type ServiceSession } from "./session.js";

/**
 * The sessions of one HTTP service for calls made for connected accounts
 * (`InvokeInput.accessToken`): one per distinct token.
 *
 * Why not the service's own session: an MCP session is authenticated once,
 * when it opens, and the server may tie what it keeps for the session (its
 * state, its subscriptions, the identity it resolved) to that credential. A
 * call for account B sent over a session opened with A's token — or a
 * token swapped into the headers of an open session — would act for the
 * wrong account or be refused. So each token gets a session of its own,
 * opened with `Authorization: Bearer <token>` by the first call that
 * carries it, and reused by every later call with the same token.
 *
 * The simplest bound that stays sound: at most {@link MAX_ACCOUNT_SESSIONS}
 * sessions, least recently used dropped first. A dropped session is closed
 * (a Streamable HTTP `DELETE`) once the calls still using it have ended,
 * never under them; a token that is used again opens a new one. A refreshed
 * token is a new token, so the old one's session ages out the same way,
 * and a session whose server answered 401 (its token expired or was
 * revoked) is dropped at once. One that cannot be opened is not kept: the
 * call fails with the reason, and the next call with that token tries
 * again. `stop` (dehydrate, teardown) closes them all.
 */
export const MAX_ACCOUNT_SESSIONS = 8;

interface Entry {
  session: ServiceSession;
  started: Promise<void>;
  /** Calls using the session now: a dropped session is closed when the last one ends. */
  calls: number;
  dropped: boolean;
}

export class AccountSessions {
  /** By token, least recently used first (a Map keeps insertion order; a use moves the entry to the end). */
  private readonly sessions = new Map<string, Entry>();
  /** Every session not closed yet, dropped ones still in use included: what `stop` closes. */
  private readonly live = new Set<Entry>();
  private stopped = false;

  constructor(
    /** A new, not yet started session that sends `accessToken` as its bearer token. */
    private readonly open: (accessToken: string) => ServiceSession,
    private readonly limit = MAX_ACCOUNT_SESSIONS,
  ) {}

  /** `tools/call` over the session of `accessToken`, opened first if it has none. */
  async call(
    accessToken: string,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<CallToolResult> {
    if (this.stopped) throw new Error("the service's account sessions were closed");
    signal?.throwIfAborted();
    const entry = this.entryOf(accessToken);
    entry.calls++;
    try {
      // A caller that stops waiting stops waiting for the opening too (as on the service's own session).
      await abortable(entry.started, signal);
      return await entry.session.call(name, args, signal, headers);
    } catch (error) {
      if (isUnauthorized(error)) this.drop(accessToken, entry);
      throw error;
    } finally {
      entry.calls--;
      if (entry.dropped && entry.calls === 0) this.close(entry);
    }
  }

  /** Closes every session; calls still using one fail, as on the service's own session. */
  async stop(): Promise<void> {
    this.stopped = true;
    const entries = [...this.live];
    this.sessions.clear();
    this.live.clear();
    await Promise.all(entries.map((entry) => entry.session.stop()));
  }

  private entryOf(accessToken: string): Entry {
    const found = this.sessions.get(accessToken);
    if (found !== undefined) {
      this.sessions.delete(accessToken);
      this.sessions.set(accessToken, found);
      return found;
    }
    const session = this.open(accessToken);
    const entry: Entry = { session, started: session.start(), calls: 0, dropped: false };
    // A session that could not be opened has stopped itself: forget it, so the next call tries afresh.
    entry.started.catch(() => this.drop(accessToken, entry));
    this.sessions.set(accessToken, entry);
    this.live.add(entry);
    for (const [token, oldest] of this.sessions) {
      if (this.sessions.size <= this.limit) break;
      this.drop(token, oldest);
    }
    return entry;
  }

  private drop(accessToken: string, entry: Entry): void {
    if (this.sessions.get(accessToken) === entry) this.sessions.delete(accessToken);
    if (entry.dropped) return;
    entry.dropped = true;
    if (entry.calls === 0) this.close(entry);
  }

  private close(entry: Entry): void {
    if (!this.live.delete(entry)) return;
    void entry.session.stop();
  }
}
