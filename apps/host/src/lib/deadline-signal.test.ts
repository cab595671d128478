import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { deadlineSignal } from "./deadline-signal.js";

/** Vitest runs with --expose-gc (vitest.config.ts). */
const collect = () => (globalThis as { gc?: () => void }).gc?.();

describe("deadlineSignal", () => {
  it("aborts at its deadline even when the heap is collected while it waits", async () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe("function");
    // Only the listener's closure refers to the signal, as when a wait hands it on and awaits.
    const reason = new Promise<unknown>((resolve) => {
      deadlineSignal(new AbortController().signal, 300).signal.addEventListener("abort", function (this: AbortSignal) {
        resolve(this.reason);
      });
    });
    const fired = await Promise.race([
      reason,
      (async () => {
        for (let round = 0; round < 40; round++) {
          collect();
          await sleep(50);
        }
        return "never fired";
      })(),
    ]);
    expect(fired).toMatchObject({ name: "TimeoutError", message: "deadline of 300 ms" });
  });

  it("aborts with the parent, at once if it already did, and not after clear()", async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 60_000);
    parent.abort("client went away");
    expect(deadline.signal.reason).toBe("client went away");
    deadline.clear();

    expect(deadlineSignal(parent.signal, 60_000).signal.aborted).toBe(true);

    const cleared = deadlineSignal(new AbortController().signal, 20);
    cleared.clear();
    await sleep(60);
    expect(cleared.signal.aborted).toBe(false);
  });
});
