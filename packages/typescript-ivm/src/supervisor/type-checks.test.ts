import { afterEach, describe, expect, it } from "vitest";
import { type CheckOutcome, type CheckScope, TypeChecks } from "./type-checks.js";

/**
 * Fairness between callers, with the real checker threads (the package's
 * build output). Every assertion is about the order outcomes arrive in and
 * how many requests ran past their budget, never about how long anything
 * took: the slow program takes TypeScript tens of seconds, far past the
 * budget on any machine, and a trivial one a few milliseconds.
 */

/** A union of 125,000 tuples: tens of seconds of TypeScript, far past the budget below. */
const slow = (tag: string) => `type D = ${Array.from({ length: 50 }, (_, i) => i).join(" | ")};
type P = { [K in D]: { [L in D]: { [M in D]: [K, L, M] }[D] }[D] }[D];
const p: P = [1, 2, 3];
// ${tag}`;
const TRIVIAL = "const n: number = 1;\nconsole.log(n);";
const NO_SERVICES: CheckScope = { services: [], digest: "none" };
const BUDGET_MS = 2_000;

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const noTools = {
  serviceTools: async () => ({ revision: "0", toolsJson: "[]" }),
};

let checks: TypeChecks | undefined;
afterEach(async () => {
  await checks?.close();
  checks = undefined;
});

/** Submits the checks in order; resolves with the tags in the order their outcomes arrived, and the outcomes. */
async function inOrder(
  typeChecks: TypeChecks,
  submissions: { tag: string; code: string; caller: string }[],
): Promise<{ order: string[]; outcomes: Map<string, CheckOutcome> }> {
  const order: string[] = [];
  const outcomes = new Map<string, CheckOutcome>();
  await Promise.all(
    submissions.map(({ tag, code, caller }) =>
      typeChecks.check(code, NO_SERVICES, caller).then((outcome) => {
        order.push(tag);
        outcomes.set(tag, outcome);
      }),
    ),
  );
  return { order, outcomes };
}

describe("TypeChecks between callers", () => {
  it("serves callers in turn with one thread: B's trivial check waits for at most one of A's, not all of them", async () => {
    checks = new TypeChecks({ timeoutMs: BUDGET_MS, memoryMb: 512, threads: 1 }, noTools, silent);
    const slowOnes = Array.from({ length: 6 }, (_, i) => ({ tag: `A${i}`, code: slow(`A${i}`), caller: "A" }));
    const { order, outcomes } = await inOrder(checks, [...slowOnes, { tag: "B", code: TRIVIAL, caller: "B" }]);

    expect(outcomes.get("B")).toEqual({ run: true, notes: [] });
    // A0 was already on the thread when B came; B's turn is next, before any of A's re-checks.
    expect(order.indexOf("B")).toBeLessThanOrEqual(1);
    for (const { tag } of slowOnes) expect(outcomes.get(tag)?.run).toBe(false);
    // A0 alone, A1–A5 as a batch, then at most two re-checks alone at half the budget each, the rest unchecked:
    // never one timeout per program (the old re-check of each at the full budget made 1 + 1 + 5).
    expect(checks.counts.timeouts).toBeLessThanOrEqual(4);
    expect(checks.counts.timeouts).toBeLessThan(slowOnes.length);
  });

  it("keeps a thread for other callers when there are several: B is checked while A's checks hold the other", async () => {
    checks = new TypeChecks({ timeoutMs: BUDGET_MS, memoryMb: 512, threads: 2 }, noTools, silent);
    const slowOnes = Array.from({ length: 3 }, (_, i) => ({ tag: `A${i}`, code: slow(`A${i}`), caller: "A" }));
    const { order, outcomes } = await inOrder(checks, [...slowOnes, { tag: "B", code: TRIVIAL, caller: "B" }]);

    expect(outcomes.get("B")).toEqual({ run: true, notes: [] });
    expect(order[0]).toBe("B");
  });

  it("a failed batch fails its culprit and keeps the caller's innocent programs checked", async () => {
    checks = new TypeChecks({ timeoutMs: BUDGET_MS, memoryMb: 512, threads: 1 }, noTools, silent);
    const { outcomes } = await inOrder(checks, [
      { tag: "first", code: TRIVIAL, caller: "A" },
      { tag: "good", code: `${TRIVIAL}\n// good`, caller: "A" },
      { tag: "wrong", code: 'const n: number = "x";', caller: "A" },
      { tag: "culprit", code: slow("culprit"), caller: "A" },
    ]);
    expect(outcomes.get("good")).toEqual({ run: true, notes: [] });
    expect(outcomes.get("wrong")).toMatchObject({
      run: false,
      error: expect.stringMatching(/^Type check failed with 1/),
    });
    expect(outcomes.get("culprit")).toMatchObject({
      run: false,
      error: expect.stringMatching(/^Type check did not finish within its budget of 2000 ms/),
    });
  });
});

describe("the work ahead of the runs", () => {
  /** Bindings that count the services whose tools were asked for, and say when one is. */
  const counting = () => {
    const asked: string[] = [];
    let onAsk = () => {};
    return {
      asked,
      next: () => new Promise<void>((resolve) => (onAsk = resolve)),
      bindings: {
        serviceTools: async (serviceId: string) => {
          asked.push(serviceId);
          onAsk();
          return { revision: "1", toolsJson: "[]" };
        },
      },
    };
  };
  const service = { serviceId: "shop", revision: "1", tools: ["listItems"] };
  const turns = async (count: number) => {
    for (let i = 0; i < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it("waits for the runs in flight before it prepares a service, then prepares it", async () => {
    const { asked, next, bindings } = counting();
    let busy = true;
    checks = new TypeChecks({ timeoutMs: BUDGET_MS, memoryMb: 512, threads: 1 }, bindings, silent, {
      busy: () => busy,
      maxDeferMs: 600_000,
    });
    checks.prepareAhead([service]);
    await turns(10);
    expect(asked).toEqual([]);
    const asking = next();
    busy = false;
    await asking;
    expect(asked).toEqual(["shop"]);
  });

  it("waits no longer than its bound for runs that do not end", async () => {
    const { asked, next, bindings } = counting();
    checks = new TypeChecks({ timeoutMs: BUDGET_MS, memoryMb: 512, threads: 1 }, bindings, silent, {
      busy: () => true,
      maxDeferMs: 50,
    });
    const asking = next();
    checks.prepareAhead([service]);
    await asking;
    expect(asked).toEqual(["shop"]);
  });
});
