import { describe, expect, it } from "vitest";
import { CompletionRate } from "./completion-rate.js";

describe("CompletionRate", () => {
  const clock = (start = 1_000_000) => {
    let now = start;
    return {
      now: () => now,
      advance: (ms: number) => {
        now += ms;
      },
    };
  };

  it("waits the whole 10 s window when nothing ended in it", () => {
    const time = clock();
    const rate = new CompletionRate(time.now);
    expect(rate.retryAfterSeconds()).toBe(10);
    rate.record();
    time.advance(10_500);
    expect(rate.retryAfterSeconds()).toBe(10);
  });

  it.each([
    [1, 10],
    [3, 4],
    [10, 1],
    [500, 1],
  ])("after %i completions in the window, answers %i s", (completions, seconds) => {
    const time = clock();
    const rate = new CompletionRate(time.now);
    for (let i = 0; i < completions; i++) {
      rate.record();
      time.advance(5_000 / completions);
    }
    expect(rate.retryAfterSeconds()).toBe(seconds);
  });

  it("forgets completions older than the window, second by second", () => {
    const time = clock();
    const rate = new CompletionRate(time.now);
    for (let i = 0; i < 10; i++) rate.record();
    time.advance(5_000);
    for (let i = 0; i < 2; i++) rate.record();
    expect(rate.retryAfterSeconds()).toBe(1);
    time.advance(6_000);
    // The 10 early ones fell out of the window; 2 in 10 s remain.
    expect(rate.retryAfterSeconds()).toBe(5);
  });
});
