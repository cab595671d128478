import { memoryBudgetExceeded } from "../messages.js";
import type { WorkerScheduler } from "./scheduler.js";

/**
 * How often the worker's RSS is read, and reported, while it has
 * executions. Every sample is reported: the host adds an estimate for each
 * execution dispatched since the last report, which only a report resets.
 */
const SAMPLE_MS = 200;
/** How long an isolate may take to answer for its heap size; a busy one answers only between tasks. */
const HEAP_ANSWER_MS = 100;

const MB = 1024 * 1024;

/**
 * Keeps the sandbox process within its memory budget. While there are
 * executions it samples the process's RSS, reports it to the host (which
 * admits new executions by it), and when the RSS is past the budget *and
 * still growing* it fails the execution whose isolate has the largest heap
 * — never the process, and never more than one per sample, so the next
 * sample shows whether that was enough. Past the budget but not growing
 * only stops admission: memory V8 or the allocator keeps after a run ended
 * is not any execution's fault.
 *
 * Heap sizes come from the isolates themselves, asynchronously: an isolate
 * spinning in a loop answers only once its task ends, so it is not among the
 * candidates; its own heap limit bounds it meanwhile.
 */
export class MemoryGuard {
  private timer: NodeJS.Timeout | undefined;
  private previousRss = 0;
  private enforcing = false;

  constructor(
    private readonly budgetBytes: number,
    private readonly scheduler: WorkerScheduler,
    private readonly report: (rssBytes: number) => void,
  ) {}

  /** An execution started: sample while there are any. */
  executionStarted(): void {
    this.timer ??= setInterval(() => this.sample(), SAMPLE_MS);
  }

  /** An execution ended; after the last one, report once more (the host recycles a worker idle above budget). */
  executionEnded(): void {
    if (this.scheduler.live > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    // After the ended run's isolate is disposed (on the next turn), so its memory is not counted.
    setImmediate(() => {
      if (this.scheduler.live === 0) this.report(process.memoryUsage.rss());
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const rss = process.memoryUsage.rss();
    this.report(rss);
    const growing = rss > this.previousRss;
    this.previousRss = rss;
    if (rss > this.budgetBytes && growing && !this.enforcing) {
      this.enforcing = true;
      void this.failLargest(rss).finally(() => {
        this.enforcing = false;
      });
    }
  }

  private async failLargest(rss: number): Promise<void> {
    const largest = await this.scheduler.largestHeap(HEAP_ANSWER_MS);
    if (largest === null) return;
    largest.execution.fail(
      memoryBudgetExceeded(Math.round(this.budgetBytes / MB), Math.round(rss / MB), Math.round(largest.bytes / MB)),
    );
  }
}
