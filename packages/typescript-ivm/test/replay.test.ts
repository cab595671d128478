import type { ExecutionExitState, InvokeInput, ServiceCatalog } from "@cyrnel/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, type Recorded, waitFor } from "./support/fake-host.js";

/**
 * Durable runs, the environment's half: a run records what it read from the
 * clock and `Math.random()` and which answer or timer reached it next
 * (`bindings.recordReplay`), and a resumed run given those entries
 * (`input.replay`) sees the same values and the same order, without waiting
 * for recorded timers, however the host's answers arrive this time.
 */

/** One thing the environment did through its bindings, in the order it did them. */
type Event = { kind: "record"; entries: string[] } | { kind: "invoke"; input: InvokeInput } | { kind: "stdout" };

/**
 * The bindings double: tool calls wait until the test answers them (or are
 * answered at once by `answer`), and every `recordReplay`, `invokeTool`
 * and `emitStdout` lands in one timeline per execution.
 */
class ReplayHost extends FakeHost {
  readonly timeline = new Map<number, Event[]>();
  /** Calls waiting for the test to answer them, by `parameters.n`. */
  readonly waiting = new Map<number, (value: unknown) => void>();
  /** When set, calls are answered at once with what it returns; otherwise they wait in `waiting`. */
  answer: ((input: InvokeInput) => unknown) | null = null;

  events(executionId: number): Event[] {
    let events = this.timeline.get(executionId);
    if (events === undefined) {
      events = [];
      this.timeline.set(executionId, events);
    }
    return events;
  }

  /** What `sleeping` reported, by execution. */
  readonly sleeps = new Map<number, number[]>();

  sleeping(executionId: number, wakeAt: number): void {
    this.sleeps.set(executionId, [...(this.sleeps.get(executionId) ?? []), wakeAt]);
  }

  recordReplay(executionId: number, entries: readonly string[]): void {
    this.events(executionId).push({ kind: "record", entries: [...entries] });
  }

  override async invokeTool(executionId: number, input: InvokeInput): Promise<unknown> {
    this.events(executionId).push({ kind: "invoke", input });
    if (this.answer !== null) return this.answer(input);
    return new Promise((resolve) => this.waiting.set(Number(input.parameters.n), resolve));
  }

  override emitStdout(executionId: number, chunk: string): void {
    this.events(executionId).push({ kind: "stdout" });
    super.emitStdout(executionId, chunk);
  }

  /** Every entry passed to `recordReplay` for the execution, in order. */
  entries(executionId: number): string[] {
    return this.events(executionId).flatMap((event) => (event.kind === "record" ? event.entries : []));
  }

  execute(
    code: string,
    replay?: string[],
  ): { executionId: number; result: Promise<Recorded & { exit: ExecutionExitState }> } {
    const env = this.env;
    if (env === null) throw new Error("start() first");
    const executionId = this.newId();
    const services: ServiceCatalog = { svc: { tools: ["slow"], revision: "1" } };
    const result = env
      .execute({
        executionId,
        processId: executionId,
        code,
        options: { timeoutMs: 120_000 },
        services,
        ...(replay === undefined ? {} : { replay }),
      })
      .then((exit) => ({ ...this.record(executionId), exit }));
    return { executionId, result };
  }
}

/**
 * The kinds of the entries one by one, a run of clock readings (`c<ms>*<n>`)
 * spelled out: `c` a clock reading, `r` a random number, `a<id>` / `t<id>`
 * the answer to a tool call / a timer reaching the program.
 */
function kinds(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    const kind = entry[0];
    if (kind === "c") {
      const star = entry.indexOf("*");
      return Array<string>(star === -1 ? 1 : Number(entry.slice(star + 1))).fill("c");
    }
    if (kind === "r") return ["r"];
    return [entry];
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads the clock three ways and a random number, starts two calls at once,
 * a timer, then awaits both calls, sleeps, and reports what it saw in the
 * order it saw it.
 */
const PROGRAM = `
  const seen: unknown[] = [];
  seen.push(Date.now(), new Date().toISOString(), typeof Date(), Math.random());
  const first = cyrnel.services.svc.tools.slow.invoke({ n: 1 }).then((v) => { seen.push(["first", v, Date.now(), Math.random()]); });
  const second = cyrnel.services.svc.tools.slow.invoke({ n: 2 }).then((v) => { seen.push(["second", v, Math.random()]); });
  setTimeout(() => seen.push(["timer", Date.now()]), 5);
  await Promise.all([first, second]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  seen.push(Math.random());
  console.log(JSON.stringify(seen));
  cyrnel.output({ seen });
`;

/** What PROGRAM reads and receives, in order, when call 2 is answered before call 1 and after the 5 ms timer. */
const PROGRAM_KINDS = ["c", "c", "c", "r", "c", "t1", "c", "a2", "r", "a1", "c", "r", "c", "t2", "r"];

const host = new ReplayHost();

beforeAll(async () => {
  await host.start({ maxExecutions: 4, memoryLimitMb: 64 });
});

afterAll(async () => {
  await host.stop();
});

/** Runs PROGRAM live, answering call 2 once the timer has fired, then call 1. */
async function recordProgram(): Promise<{ executionId: number; output: Record<string, unknown>; stdout: string }> {
  host.answer = null;
  const { executionId, result } = host.execute(PROGRAM);
  await waitFor(() => host.waiting.size === 2);
  await sleep(50);
  host.waiting.get(2)?.("two");
  await sleep(20);
  host.waiting.get(1)?.("one");
  host.waiting.clear();
  const recorded = await result;
  expect(recorded.errors).toEqual([]);
  expect(recorded.exit).toBe("success");
  return { executionId, output: recorded.output, stdout: recorded.stdout };
}

describe("durable runs: record and replay", () => {
  it("records every value read and every delivery, each before what the program did after it", async () => {
    const { executionId } = await recordProgram();
    const events = host.events(executionId);
    expect(kinds(host.entries(executionId))).toEqual(PROGRAM_KINDS);

    // Everything read before a call was asked for has reached the host by the time the call does.
    const before = (index: number) =>
      kinds(events.slice(0, index).flatMap((event) => (event.kind === "record" ? event.entries : [])));
    const invokes = events.flatMap((event, index) => (event.kind === "invoke" ? [index] : []));
    expect(invokes).toHaveLength(2);
    for (const index of invokes) expect(before(index).slice(0, 4)).toEqual(["c", "c", "c", "r"]);
    // The line printed at the end comes after every entry.
    const printed = events.findIndex((event) => event.kind === "stdout");
    expect(before(printed)).toEqual(PROGRAM_KINDS);
  });

  it("gives a resumed run the same values and order, with answers arriving instantly in the other order", async () => {
    const recorded = await recordProgram();
    const entries = host.entries(recorded.executionId);

    // The journal answers at once, call 1 first: the record has call 2's answer reaching the program first.
    host.answer = (input) => (input.parameters.n === 1 ? "one" : "two");
    const { executionId, result } = host.execute(PROGRAM, entries);
    const replayed = await result;
    expect(replayed.errors).toEqual([]);
    expect(replayed.exit).toBe("success");
    expect(replayed.output).toEqual(recorded.output);
    expect(replayed.stdout).toBe(recorded.stdout);
    // Everything came from the record: nothing new to record, and nothing replayed is sent again.
    expect(host.entries(executionId)).toEqual([]);
  });

  it("goes on live once the record runs out, recording only what is new", async () => {
    const recorded = await recordProgram();
    const entries = host.entries(recorded.executionId);
    // An earlier attempt that died right after call 2's answer reached the program.
    const cut = entries.indexOf("a2") + 1;
    expect(cut).toBeGreaterThan(0);

    host.answer = (input) => (input.parameters.n === 1 ? "one" : "two");
    const { executionId, result } = host.execute(PROGRAM, entries.slice(0, cut));
    const resumed = await result;
    expect(resumed.errors).toEqual([]);
    expect(resumed.exit).toBe("success");
    const seen = resumed.output.seen as unknown[];
    const before = recorded.output.seen as unknown[];
    // Up to call 2's answer the values are the record's (the clock and random numbers included).
    expect(seen.slice(0, 5)).toEqual(before.slice(0, 5));
    // The random number call 2's handler drew was not in the record: it is a new one.
    expect(seen[5]).toEqual(["second", "two", expect.any(Number)]);
    expect((seen[5] as unknown[])[2]).not.toBe((before[5] as unknown[])[2]);
    // From there on they are new, and recorded: exactly the rest of the program's reads, nothing replayed again.
    expect(kinds(host.entries(executionId))).toEqual(PROGRAM_KINDS.slice(PROGRAM_KINDS.indexOf("a2") + 1));
    expect(seen.at(-1)).not.toBe(before.at(-1));
  });

  it("records crypto's random bytes before the next call and gives a resumed run the same ones", async () => {
    const code = `
      const words = crypto.getRandomValues(new Uint32Array(4));
      const id = crypto.randomUUID();
      const empty = crypto.getRandomValues(new Uint8Array(0));
      const sent = await cyrnel.services.svc.tools.slow.invoke({ n: 1, id });
      cyrnel.output({ words: [...words], id, empty: empty.length, sent, after: crypto.randomUUID() });
    `;
    host.answer = (input) => input.parameters.id;
    const live = host.execute(code);
    const recorded = await live.result;
    expect(recorded.errors).toEqual([]);
    const entries = host.entries(live.executionId);
    // 16 bytes for the four words, 16 for each UUID: the empty array draws nothing.
    expect(entries.map((entry) => `${entry[0]}${entry.length - 1}`)).toEqual(["b32", "b32", "a1", "b32"]);
    // The UUID the call was sent with was journaled before the call left the sandbox.
    const events = host.events(live.executionId);
    const invoked = events.findIndex((event) => event.kind === "invoke");
    const before = events.slice(0, invoked).flatMap((event) => (event.kind === "record" ? event.entries : []));
    expect(before).toEqual(entries.slice(0, 2));
    const output = recorded.output as { id: string; words: number[]; after: string };
    expect(output.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(output.after).not.toBe(output.id);
    expect(output.words.some((word) => word !== 0)).toBe(true);

    // Resumed from the whole record: the same bytes, nothing drawn anew.
    const resumed = host.execute(code, entries);
    const replayed = await resumed.result;
    expect(replayed.errors).toEqual([]);
    expect(replayed.output).toEqual(recorded.output);
    expect(host.entries(resumed.executionId)).toEqual([]);

    // Resumed from a record cut after the call's answer: the last UUID is drawn afresh, and recorded.
    const partial = host.execute(code, entries.slice(0, 3));
    const goneOn = await partial.result;
    expect(goneOn.errors).toEqual([]);
    const partialOutput = goneOn.output as { id: string; after: string };
    expect(partialOutput.id).toBe(output.id);
    expect(partialOutput.after).not.toBe(output.after);
    expect(host.entries(partial.executionId).map((entry) => entry.length)).toEqual([33]);
  });

  it("keeps Date a Date, and replays the clock Intl formats", async () => {
    const code = `
      class Stamp extends Date {}
      const now = new Stamp();
      const format = new Intl.DateTimeFormat("en", { timeZone: "UTC", timeStyle: "full", dateStyle: "full" });
      cyrnel.output({
        surface: [Date.name, Date.length, new Date(0).toISOString(), Date.UTC(2020, 0, 1), Date.parse("2020-01-01T00:00:00Z"),
          now instanceof Date, now instanceof Stamp, new Date() instanceof Date, Date.prototype.constructor === Date,
          Object.getPrototypeOf(new Date()) === Date.prototype, typeof Date()],
        formatted: [format.format(), format.formatToParts().length, format.format(0)],
        at: now.getTime(),
      });
    `;
    host.answer = () => "x";
    const { executionId: first, result: recording } = host.execute(code);
    const recorded = await recording;
    expect(recorded.errors).toEqual([]);
    expect(recorded.output.surface).toEqual([
      "Date",
      7,
      "1970-01-01T00:00:00.000Z",
      1577836800000,
      1577836800000,
      true,
      true,
      true,
      true,
      true,
      "string",
    ]);
    // new Stamp(), two new Date() and Date() in the surface, then format() and formatToParts().
    expect(kinds(host.entries(first))).toEqual(["c", "c", "c", "c", "c", "c"]);

    // Replayed a second later, the formatted clock is the record's.
    await sleep(1_100);
    const { result } = host.execute(code, host.entries(first));
    const replayed = await result;
    expect(replayed.errors).toEqual([]);
    expect(replayed.output).toEqual(recorded.output);
  });

  it("does not sleep again through a timer the record has firing", async () => {
    const code = `
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 600_000));
      cyrnel.output({ slept: Date.now() - start, draw: Math.random() });
    `;
    // The first attempt, ended while it slept (its host died): what it recorded up to then.
    const { executionId: first, result: interrupted } = host.execute(code);
    await waitFor(() => kinds(host.entries(first)).length >= 2);
    await host.env?.kill(first);
    expect((await interrupted).exit).toBe("canceled");
    const partial = host.entries(first);
    expect(kinds(partial)).toEqual(["c", "c"]);
    const start = Number.parseInt(partial[0]?.slice(1) ?? "", 10);
    // What a later attempt would have added had it slept the whole 10 minutes: the timer fired, the clock read 10
    // minutes on.
    const entries = [...partial, "t1", `c${start + 600_000}`, "r0.25"];

    const { result } = host.execute(code, entries);
    const replayed = await result;
    expect(replayed.errors).toEqual([]);
    // Its deadline is 120 s: a replay that waited the 10 minutes would have ended `timeout`.
    expect(replayed.exit).toBe("success");
    expect(replayed.output).toEqual({ slept: 600_000, draw: 0.25 });
  });

  it("fires a timer the record does not have at its remaining time by the replayed clock", async () => {
    const code = `
      await new Promise((resolve) => setTimeout(resolve, 600_000));
      cyrnel.output({ woke: true });
    `;
    // Set 10 minutes less 50 ms ago by the record's clock: 50 ms are left. Its deadline is 120 s: a timer that
    // waited its whole delay again would end the run `timeout`.
    const entries = [`c${Date.now() - 600_000 + 50}`];
    const { executionId, result } = host.execute(code, entries);
    const resumed = await result;
    expect(resumed.errors).toEqual([]);
    expect(resumed.exit).toBe("success");
    expect(resumed.output).toEqual({ woke: true });
    expect(kinds(host.entries(executionId))).toEqual(["t1"]);
  });

  it("reports a run that sleeps — only timers pending, its isolate idle — once, with when it wakes", async () => {
    host.answer = null;
    // A call in flight with a long timer: not asleep. Answered, it then sleeps 10 minutes; before that, a busy
    // second (the timer is set, but the isolate runs) is not sleep either.
    const code = `
      const timer = new Promise((resolve) => setTimeout(resolve, 600_000));
      await cyrnel.services.svc.tools.slow.invoke({ n: 7 });
      const until = Date.now() + 1_500;
      while (Date.now() < until) {}
      await timer;
    `;
    const { executionId, result } = host.execute(code);
    await waitFor(() => host.waiting.has(7));
    const before = Date.now();
    await sleep(400);
    expect(host.sleeps.get(executionId)).toBeUndefined();
    host.waiting.get(7)?.("done");
    host.waiting.delete(7);
    await waitFor(() => (host.sleeps.get(executionId) ?? []).length > 0);
    const answeredBy = Date.now();
    const [wakeAt, ...more] = host.sleeps.get(executionId) ?? [];
    expect(more).toEqual([]);
    // Due 10 minutes after the timer was set, which was before the call was answered.
    expect(wakeAt).toBeGreaterThanOrEqual(before - 5_000 + 600_000);
    expect(wakeAt).toBeLessThanOrEqual(answeredBy + 600_000);
    // The busy second was over before the sleep was reported: the clock the program read says so.
    const [firstClock] = host.entries(executionId).filter((entry) => entry.startsWith("c"));
    expect(Date.now()).toBeGreaterThanOrEqual(Number.parseInt(firstClock?.slice(1) ?? "0", 10) + 1_500);
    await host.env?.kill(executionId);
    expect((await result).exit).toBe("canceled");
    expect(host.sleeps.get(executionId)).toHaveLength(1);
  });

  it("reports no sleep shorter than a second, nor one with a call in flight", async () => {
    host.answer = null;
    const code = `
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 300));
      setTimeout(() => {}, 600_000);
      await cyrnel.services.svc.tools.slow.invoke({ n: 8 });
    `;
    const { executionId, result } = host.execute(code);
    await waitFor(() => host.waiting.has(8));
    await sleep(500);
    expect(host.sleeps.get(executionId)).toBeUndefined();
    await host.env?.kill(executionId);
    expect((await result).exit).toBe("canceled");
    host.waiting.delete(8);
  });

  it.each([
    [
      "reads another kind of value",
      `const r = Math.random(); cyrnel.output({ r });`,
      ["c1700000000000"],
      "nondeterministic replay: the record has a clock reading next, but the program drew a random number",
    ],
    [
      "waits for an answer to a call it never made",
      `await new Promise(() => {});`,
      ["a1"],
      "nondeterministic replay: the record has the answer to tool call 1 next, but the program waits with no tool call 1 in flight",
    ],
    [
      "waits for a timer it never set",
      `await new Promise(() => {});`,
      ["t1"],
      "nondeterministic replay: the record has timer 1 firing next, but the program waits with no timer 1 set",
    ],
    [
      "draws another number of random bytes than the record has",
      `crypto.getRandomValues(new Uint8Array(4));`,
      ["b0102"],
      "nondeterministic replay: the record has 2 random bytes next, but the program drew random bytes",
    ],
    [
      "draws a random number where the record has random bytes",
      `Math.random();`,
      ["b0102"],
      "nondeterministic replay: the record has 2 random bytes next, but the program drew a random number",
    ],
    [
      "finishes before the record does",
      `cyrnel.output({ done: true });`,
      ["r0.5"],
      "nondeterministic replay: the record has a random number next, but the program finished",
    ],
    [
      "clears a timer the record has firing",
      `const id = setTimeout(() => {}, 10); clearTimeout(id);`,
      ["c1700000000000", "t1"],
      "nondeterministic replay: the record has timer 1 firing next, but the program cleared timer 1",
    ],
  ])("fails a resumed run that %s", async (_label, code, entries, message) => {
    host.answer = () => "x";
    const { result } = host.execute(code, entries);
    const resumed = await result;
    expect(resumed.exit).toBe("failed");
    expect(resumed.errors).toEqual([message]);
  });
});
