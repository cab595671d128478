import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Inbox } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { NotificationListener, quoteChannel } from "./notification-listener.js";

const postgres = usePostgres();

describe("NotificationListener", () => {
  let pool: pg.Pool;
  let listener: NotificationListener;
  const notify = (channel: string, payload: string) => pool.query("SELECT pg_notify($1, $2)", [channel, payload]);

  beforeEach(async () => {
    const url = await postgres.server.createDatabase();
    pool = new pg.Pool({ connectionString: url, max: 2 });
    listener = new NotificationListener({
      connection: { connectionString: url, application_name: "the-listener" },
      minReconnectDelayMs: 20,
    });
  });

  afterEach(async () => {
    await listener.stop();
    await pool.end();
  });

  it("delivers a channel's payloads to each of its handlers until that handler closes", async () => {
    const first = new Inbox<string>();
    const second = new Inbox<string>();
    const firstSubscription = await listener.listen("Mixed Case.channel", first.push);
    await listener.listen("Mixed Case.channel", second.push);

    await notify("Mixed Case.channel", "one");
    expect(await first.next()).toBe("one");
    expect(await second.next()).toBe("one");

    await firstSubscription.close();
    await notify("Mixed Case.channel", "two");
    expect(await second.next()).toBe("two");
    expect(first.pending).toEqual([]);
  });

  it("keeps delivering to other handlers when one throws", async () => {
    const received = new Inbox<string>();
    await listener.listen("c", () => {
      throw new Error("a broken handler");
    });
    await listener.listen("c", received.push);

    await notify("c", "still delivered");

    expect(await received.next()).toBe("still delivered");
  });

  it("after a drop, listens on every channel again and reports the gap", async () => {
    const onA = new Inbox<string>();
    const onB = new Inbox<string>();
    const gaps = new Inbox<"gap">();
    await listener.listen("a", onA.push);
    await listener.listen("b", onB.push);
    listener.onGap(() => gaps.push("gap"));

    await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'the-listener'");

    expect(await gaps.next()).toBe("gap");
    expect(listener.connected).toBe(true);
    await notify("a", "after");
    await notify("b", "after");
    expect(await onA.next()).toBe("after");
    expect(await onB.next()).toBe("after");
  });

  it("refuses channel names PostgreSQL cannot take", () => {
    expect(quoteChannel("cyrnel_run_12")).toBe('"cyrnel_run_12"');
    expect(() => quoteChannel("")).toThrow(/invalid/);
    expect(() => quoteChannel('a"b')).toThrow(/invalid/);
    expect(() => quoteChannel("x".repeat(64))).toThrow(/invalid/);
  });
});
