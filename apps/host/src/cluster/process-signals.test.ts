import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectHost, Inbox, type TestHostConnections } from "../../test/support/cluster.js";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { type ApprovalDecision, ProcessSignals, type RunControl } from "./process-signals.js";
import type { FollowEvent, RunEvent, RunSnapshot, StreamName } from "./run-events.js";
import { inTransaction } from "./sql.js";

const postgres = usePostgres();

/** 100 KB of text mixing what changes sizes on the wire: newlines, quotes, controls, accents, CJK, emoji. */
function bigChunk(): string {
  const alphabet = ["line of output ", "\n", '"quoted"', "\\", "\u0007", "é", "中文", "😀", "\t"];
  let text = "";
  for (let i = 0; text.length < 100_000; i++) text += alphabet[(i * 7) % alphabet.length];
  return text;
}

describe("ProcessSignals", () => {
  let a: TestHostConnections;
  let b: TestHostConnections;
  let signalsA: ProcessSignals;
  let signalsB: ProcessSignals;

  beforeEach(async () => {
    const url = await postgres.server.createDatabase();
    a = await connectHost(url, "host-a");
    b = await connectHost(url, "host-b");
    await a.pool.query(
      "CREATE TABLE runs (process_id int PRIMARY KEY, execution_id int, stdout text, stderr text, ended boolean)",
    );
    signalsA = new ProcessSignals({ pool: a.pool, listener: a.listener, hostId: "host-a", flushIntervalMs: 100 });
    signalsB = new ProcessSignals({ pool: b.pool, listener: b.listener, hostId: "host-b", flushIntervalMs: 100 });
    await signalsA.start();
    await signalsB.start();
  });

  afterEach(async () => {
    await signalsA.stop();
    await signalsB.stop();
    await a.close();
    await b.close();
  });

  /** The process row as a reader on B reads it. */
  const readOnB = (processId: number) => async (): Promise<RunSnapshot> => {
    const { rows } = await b.pool.query(
      'SELECT execution_id AS "executionId", stdout, stderr, ended FROM runs WHERE process_id = $1',
      [processId],
    );
    return rows[0];
  };

  /** Host A starts a run of the process: the row, the attach, and the writes of its text so far and final text. */
  async function runOnA(processId: number, executionId: number, control: Partial<RunControl> = {}) {
    await a.pool.query("INSERT INTO runs VALUES ($1, $2, '', '', false)", [processId, executionId]);
    const { publisher } = signalsA.attach(
      { processId, executionId },
      { kill: () => {}, approvalDecided: () => {}, ...control },
      async (text) => {
        await a.pool.query("UPDATE runs SET stdout = $2, stderr = $3 WHERE process_id = $1 AND NOT ended", [
          processId,
          text.stdout,
          text.stderr,
        ]);
      },
    );
    const written = { stdout: "", stderr: "" };
    return {
      publisher,
      written,
      write(stream: StreamName, text: string) {
        publisher.write(stream, text);
        written[stream] += text;
      },
      end: () =>
        publisher.end(async () => {
          await a.pool.query("UPDATE runs SET stdout = $2, stderr = $3, ended = true WHERE process_id = $1", [
            processId,
            written.stdout,
            written.stderr,
          ]);
        }),
    };
  }

  /** Follows from B, collecting text and events. */
  async function followOnB(processId: number) {
    const text = { stdout: [] as string[], stderr: [] as string[] };
    const events: RunEvent[] = [];
    const followed = await signalsB.follow(processId, readOnB(processId), (event: FollowEvent) => {
      if (event.type === "stdout" || event.type === "stderr") text[event.type].push(event.text as string);
      else events.push(event);
    });
    return {
      followed,
      events,
      /** What the reader has: the text when it started, then every piece it was sent. */
      seen: () => ({ stdout: followed.stdout + text.stdout.join(""), stderr: followed.stderr + text.stderr.join("") }),
    };
  }

  it("a follower on host B sees every byte host A's run writes, in order, including a 100 KB chunk", async () => {
    const run = await runOnA(1, 11);
    for (let i = 0; i < 3; i++) run.write("stdout", `hello ${i}\n`);
    // Some text is in the row before the reader comes; some only in frames it never saw (a gap it must fill).
    await eventually(async () => (await readOnB(1)()).stdout === run.written.stdout);
    run.write("stdout", "written before the reader came, maybe not in the row yet\n");
    run.write("stderr", "a warning\n");

    const reader = await followOnB(1);
    run.write("stdout", bigChunk());
    const bigCall: RunEvent = { type: "call", id: 1, parameters: { body: "x".repeat(20_000), note: "é😀\n" } };
    run.publisher.publish(bigCall);
    const approval: RunEvent = { type: "approval", id: 7, state: "pending" };
    run.publisher.publish(approval);
    for (let i = 0; i < 300; i++) run.write(i % 3 === 0 ? "stderr" : "stdout", `line ${i}: ${"·".repeat(i % 50)}\n`);
    run.write("stdout", bigChunk());
    await run.end();

    const final = await reader.followed.done;
    expect(final.ended).toBe(true);
    expect(reader.seen().stdout).toBe(run.written.stdout);
    expect(reader.seen().stderr).toBe(run.written.stderr);
    expect(reader.events).toEqual([bigCall, approval]);
  });

  it("a follower that shows text reads the row a few times to catch up, not for as long as stderr stays silent", async () => {
    const run = await runOnA(3, 31);
    let reads = 0;
    const read = readOnB(3);
    const seen: string[] = [];
    const followed = await signalsB.follow(
      3,
      () => {
        reads++;
        return read();
      },
      (event) => {
        if (event.type === "stdout") seen.push(event.text as string);
      },
      true,
    );
    // Twenty flush intervals of stdout alone, each line received before the next is written.
    for (let i = 0; i < 20; i++) {
      run.write("stdout", `line ${i}\n`);
      await eventually(async () => seen.join("").endsWith(`line ${i}\n`));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The first read, at most four catch-up reads, and a few for gaps; reading on until stderr is framed would be ~20.
    expect(reads).toBeLessThanOrEqual(8);
    await run.end();
    await followed.done;
    expect(followed.stdout + seen.join("")).toBe(run.written.stdout);
  });

  it("a kill and an approval decision sent from B reach the host that runs the process", async () => {
    const kills = new Inbox<string | null>();
    const decisions = new Inbox<[number, ApprovalDecision]>();
    const run = await runOnA(2, 21, {
      kill: kills.push,
      approvalDecided: (approvalId, decision) => decisions.push([approvalId, decision]),
    });

    await signalsB.approvalDecided(2, 5, "approved");
    // A process nobody here runs is ignored; a host's own signal reaches it like anyone's.
    await signalsB.kill(999, "not running anywhere");
    await signalsA.kill(2, "from its own host");
    await inTransaction(b.pool, async (tx) => signalsB.kill(2, "canceled by an operator", tx));

    expect(await decisions.next()).toEqual([5, "approved"]);
    expect(await kills.next()).toBe("from its own host");
    expect(await kills.next()).toBe("canceled by an operator");

    // Once the run ended, signals for it are not delivered any more.
    await run.end();
    await signalsB.kill(2, "too late");
    await signalsB.kill(2, "still too late");
    await signalsB.approvalDecided(2, 6, "denied");
    // Signals arrive in the order they were sent: once a later one has arrived, the ones before were ignored.
    const sentinel = new Inbox<string | null>();
    await runOnA(20, 201, { kill: sentinel.push });
    await signalsB.kill(20, "sentinel");
    expect(await sentinel.next()).toBe("sentinel");
    expect(kills.pending).toEqual([]);
    expect(decisions.pending).toEqual([]);
  });

  it("after its connection dropped, the executing host re-reads what signals may have said", async () => {
    const resyncs = new Inbox<"resync">();
    await runOnA(5, 51, { resync: () => resyncs.push("resync") });

    await b.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listen-host-a'",
    );

    expect(await resyncs.next()).toBe("resync");
  });

  it("a follower whose connection dropped catches up from the database and still ends", async () => {
    const run = await runOnA(3, 31);
    run.write("stdout", "before\n");
    const reader = await followOnB(3);

    await a.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listen-host-b'",
    );
    for (let i = 0; i < 100; i++) run.write("stdout", `while the reader reconnects ${i}\n`);
    run.write("stderr", bigChunk());
    await run.end();

    await reader.followed.done;
    expect(reader.seen()).toEqual(run.written);
  });

  it("a run whose host was lost ends for its followers when the reaper says so", async () => {
    const run = await runOnA(4, 41);
    run.write("stdout", "working…\n");
    // What the lost host flushed survives it; what it had not flushed yet is lost with it.
    await eventually(async () => (await readOnB(4)()).stdout === "working…\n");
    const reader = await followOnB(4);

    // Host A is gone (its publisher never ends); the reaper, on B, ends the run and tells followers in one transaction.
    await inTransaction(b.pool, async (tx) => {
      await tx.query("UPDATE runs SET ended = true WHERE process_id = 4");
      await signalsB.runEnded({ processId: 4, executionId: 41 }, tx);
    });

    const final = await reader.followed.done;
    expect(final).toMatchObject({ ended: true, executionId: 41 });
    expect(reader.seen().stdout).toBe("working…\n");
  });
});

async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
