import { afterEach, describe, expect, it, vi } from "vitest";
import { timerUntil } from "./timer-until.js";

describe("timerUntil", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires at a time past Node's 24.8-day timer limit, not before, and not once canceled", () => {
    vi.useFakeTimers({ now: 0 });
    const fired: number[] = [];
    const at = 40 * 24 * 3600_000;
    timerUntil(at, () => fired.push(Date.now()));
    const canceled = timerUntil(at, () => fired.push(-1));
    canceled();
    vi.advanceTimersByTime(at - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([at]);
  });
});
