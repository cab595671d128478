import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost, waitFor } from "./support/fake-host.js";

/**
 * The host suspends a run while one of its tool calls waits for an
 * operator's approval, and pauses the run's deadline meanwhile
 * (`pauseDeadline` / `resumeDeadline`). Here the "approval" is a tool call
 * the test answers by hand.
 */
const host = new FakeHost();
let answer: ((value: unknown) => void) | undefined;

beforeAll(async () => {
  host.services.approvals = {
    enabled: true,
    tools: {
      waitForDecision: {
        enabled: true,
        call: () =>
          new Promise((resolve) => {
            answer = resolve;
          }),
      },
    },
  };
  await host.start({ memoryLimitMb: 64 });
});

afterAll(async () => {
  await host.stop();
});

/** The deadline of every run here; the paused wait lasts twice as long. */
const TIMEOUT_MS = 1_000;
const CODE = `
  const decision = await cyrnel.services.approvals.tools.waitForDecision.invoke({});
  cyrnel.output({ decision });
  if (decision === "hang") await new Promise(() => {});
`;

/** Starts the run, waits for its call, pauses its deadline and keeps it paused for twice its timeout. */
async function pausedPastItsDeadline(): Promise<{ executionId: number; result: Promise<{ exit: string }> }> {
  answer = undefined;
  const run = host.submit(CODE, { timeoutMs: TIMEOUT_MS });
  await waitFor(() => answer !== undefined);
  host.env!.pauseDeadline!(run.executionId);
  let ended = false;
  void run.result.then(() => {
    ended = true;
  });
  await sleep(2 * TIMEOUT_MS);
  expect(ended).toBe(false);
  return run;
}

describe("a paused deadline", () => {
  it("does not end a run whose call waits longer than its timeout; resumed, the run finishes", async () => {
    const run = await pausedPastItsDeadline();
    host.env!.resumeDeadline!(run.executionId);
    answer!("approved");
    const result = await run.result;
    expect(result.exit).toBe("success");
    expect(host.record(run.executionId).output).toEqual({ decision: "approved" });
  });

  it("keeps the time the run had left: resumed, a run that then hangs still times out", async () => {
    const run = await pausedPastItsDeadline();
    host.env!.resumeDeadline!(run.executionId);
    answer!("hang");
    const result = await run.result;
    expect(result.exit).toBe("timeout");
    expect(host.record(run.executionId).errors).toHaveLength(1);
    expect(host.record(run.executionId).errors[0]).toMatch(new RegExp(`^Timed out after ${TIMEOUT_MS} ms while `));
  });

  it("is a no-op for executions that are not running", () => {
    expect(() => host.env!.pauseDeadline!(987_654)).not.toThrow();
    expect(() => host.env!.resumeDeadline!(987_654)).not.toThrow();
  });
});
