import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { usePostgres } from "../../../test/support/cluster-postgres.js";
import { callDigest, RunJournal } from "../../domain/processes/run-journal.js";
import { CyrnelError } from "../../errors.js";
import { createLogger } from "../../log.js";
import type { Store } from "../store.js";
import { openPgStore } from "../store-pg.js";
import { openSqliteStore } from "../store-sqlite.js";

/**
 * The journal (domain/processes/run-journal.ts) over the journal store written once (journal-store.ts), on both
 * dialects: what one attempt writes is what the next reads, in order; a resumed attempt's calls are answered from it
 * or refused as a divergence without reaching `live`; an attempt that is no longer the latest writes nothing.
 */
const postgres = usePostgres();

const dialects: [string, () => Promise<Store>][] = [
  ["SQLite", async () => openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-journal-store-")), () => undefined)],
  ["PostgreSQL", async () => openPgStore(await postgres.server.createDatabase(), () => undefined, 4)],
];

const logger = createLogger("silent");
const pay = (amount: number) => ({ serviceId: "ledger", toolId: "pay", parameters: { body: { amount, key: "k" } } });

describe("callDigest", () => {
  it("is the same for the same call whatever the order of its keys, and differs for any other", () => {
    const a = callDigest({ serviceId: "s", toolId: "t", parameters: { b: 1, a: { y: [1, 2], x: null } } });
    const b = callDigest({ serviceId: "s", toolId: "t", parameters: { a: { x: null, y: [1, 2] }, b: 1 } });
    expect(a).toBe(b);
    expect(callDigest({ serviceId: "s", toolId: "t", parameters: { a: { x: null, y: [2, 1] }, b: 1 } })).not.toBe(a);
    expect(callDigest({ serviceId: "s", toolId: "u", parameters: { b: 1, a: { y: [1, 2], x: null } } })).not.toBe(a);
  });
});

describe.each(dialects)("the run journal on %s", (_name, open) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  async function run(): Promise<number> {
    const { executionId } = await store.processes.create(
      { code: "x", ref: null, timeoutMs: null, keyId: null },
      "typescript-ivm",
    );
    return executionId;
  }

  const journal = (
    executionId: number,
    attempt: number,
    record: Awaited<ReturnType<Store["journal"]["read"]>> | null,
  ) => {
    const diverged: string[] = [];
    const made = new RunJournal({
      store: store.journal,
      logger,
      executionId,
      attempt,
      record,
      limitBytes: 1 << 20,
      diverged: (message) => diverged.push(message),
    });
    return { journal: made, diverged };
  };

  it("answers a resumed attempt from what the first wrote, in order, and sends only what is past it", async () => {
    store = await open();
    const executionId = await run();
    const first = journal(executionId, 1, null).journal;
    first.recordReplay(["c1700000000000", "r0.25"]);
    const sent: string[] = [];
    const live = (answer: unknown) => async (call: { sending(): Promise<void>; index: number }) => {
      await call.sending();
      sent.push(`#${call.index}`);
      return answer;
    };
    expect(await first.call(pay(1), live({ receipt: "one" }))).toEqual({ receipt: "one" });
    await expect(
      first.call(pay(2), async (call) => {
        await call.sending();
        throw new CyrnelError("adapter_error", "the ledger said no", { status: 402 });
      }),
    ).rejects.toThrow("the ledger said no");
    // In flight when the host died: started, no answer.
    void first.call(pay(3), async (call) => {
      await call.sending();
      return new Promise(() => {});
    });
    await expect.poll(async () => (await store.journal.read(executionId)).calls.length).toBe(3);

    const attempt = await store.journal.beginAttempt(executionId);
    expect(attempt).toBe(2);
    const record = await store.journal.read(executionId);
    expect(record.replay).toEqual(["c1700000000000", "r0.25"]);
    expect(record.calls.map((call) => [call.index, call.state])).toEqual([
      [0, "ok"],
      [1, "error"],
      [2, "started"],
    ]);
    const second = journal(executionId, attempt, record);
    const never = async () => {
      throw new Error("a journaled call reached the gate");
    };
    expect(await second.journal.call(pay(1), never)).toEqual({ receipt: "one" });
    await expect(second.journal.call(pay(2), never)).rejects.toMatchObject({
      code: "adapter_error",
      message: "the ledger said no",
      details: { status: 402 },
    });
    let inFlight = false;
    expect(
      await second.journal.call(pay(3), async (call) => {
        inFlight = call.inFlight;
        await call.sending();
        return { receipt: "three" };
      }),
    ).toEqual({ receipt: "three" });
    expect(inFlight).toBe(true);
    expect(await second.journal.call(pay(4), live({ receipt: "four" }))).toEqual({ receipt: "four" });
    expect(sent).toEqual(["#0", "#3"]);
    expect(second.diverged).toEqual([]);

    // The first attempt, still about, can journal (and so send) nothing more.
    await expect(first.call(pay(5), live({}))).rejects.toThrow("resumed elsewhere");
    expect(sent).toEqual(["#0", "#3"]);
  });

  it("refuses a call that differs from the journal, naming it, and never reaches live", async () => {
    store = await open();
    const executionId = await run();
    const first = journal(executionId, 1, null).journal;
    await first.call(pay(1), async (call) => {
      await call.sending();
      return {};
    });
    const attempt = await store.journal.beginAttempt(executionId);
    const second = journal(executionId, attempt, await store.journal.read(executionId));
    let reached = false;
    await expect(
      second.journal.call(pay(9), async () => {
        reached = true;
      }),
    ).rejects.toThrow("nondeterministic replay: call #1 of the resumed run called ledger.pay with other parameters");
    expect(reached).toBe(false);
    expect(second.diverged).toHaveLength(1);
  });

  it("stops journaling past its limit and says so in the run's record", async () => {
    store = await open();
    const executionId = await run();
    const small = new RunJournal({
      store: store.journal,
      logger,
      executionId,
      attempt: 1,
      record: null,
      limitBytes: 300,
      diverged: () => {},
    });
    const big = "x".repeat(400);
    expect(
      await small.call(pay(1), async (call) => {
        await call.sending();
        return { big };
      }),
    ).toEqual({ big });
    expect(small.isDurable).toBe(false);
    expect((await store.journal.read(executionId)).notDurable).toContain("CYRNEL_JOURNAL_LIMIT_BYTES");
  });
});
