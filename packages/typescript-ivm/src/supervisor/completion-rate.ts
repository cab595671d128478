/** Length of the window completions are counted over. */
const WINDOW_SECONDS = 10;
/** Longest Retry-After: a client should look again within a minute whatever the estimate says. */
const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Executions that ended recently, in one-second buckets over the last
 * {@link WINDOW_SECONDS}: what a refused submission's `Retry-After` is
 * estimated from. Past capacity, a place frees up when an execution ends,
 * so the expected wait for one is the time between two completions.
 */
export class CompletionRate {
  private readonly buckets = new Array<number>(WINDOW_SECONDS).fill(0);
  /** The whole second (since the epoch of `now`) the newest bucket counts. */
  private second = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  record(): void {
    this.advance();
    this.buckets[this.second % WINDOW_SECONDS] = (this.buckets[this.second % WINDOW_SECONDS] ?? 0) + 1;
  }

  /**
   * Whole seconds until one more execution is likely to be admitted: the
   * mean gap between recent completions, at least 1; the whole window when
   * nothing ended in it (the running ones may all be waiting on something
   * slow), at most a minute.
   */
  retryAfterSeconds(): number {
    this.advance();
    const completed = this.buckets.reduce((sum, count) => sum + count, 0);
    if (completed === 0) return WINDOW_SECONDS;
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(WINDOW_SECONDS / completed)));
  }

  /** Empties the buckets of the seconds that passed since the last call. */
  private advance(): void {
    const second = Math.floor(this.now() / 1000);
    const passed = Math.min(second - this.second, WINDOW_SECONDS);
    for (let i = 1; i <= passed; i++) this.buckets[(this.second + i) % WINDOW_SECONDS] = 0;
    this.second = Math.max(this.second, second);
  }
}
