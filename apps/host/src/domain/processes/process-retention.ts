/**
 * Finished processes are kept `CYRNEL_PROCESSES_RETENTION_DAYS`, then
 * deleted with their runs, call records and approvals: at start and once a
 * day, like call records. `DELETE /processes?finishedBefore=` deletes the same
 * way on demand. Only idle processes go: a run in progress, or one whose end
 * its host is still writing, is never touched. Large deletes hand space back
 * to the file system (SQLite: `spaceFreed`).
 */
import type { ExecutionExitState } from "@cyrnel/sdk";
import { messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import type { ProcessStore } from "./process-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ProcessRetentionOptions {
  store: Pick<ProcessStore, "prune">;
  logger: HostLogger;
  /** After a delete: the database may give the space back. */
  spaceFreed(): void;
}

export class ProcessRetention {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ProcessRetentionOptions) {}

  /** Deletes the idle processes that finished before `finishedBefore`; how many. */
  async prune(finishedBefore: Date, exitState?: ExecutionExitState): Promise<number> {
    const deleted = await this.options.store.prune(finishedBefore.toISOString(), exitState);
    if (deleted > 0) this.options.spaceFreed();
    return deleted;
  }

  /** Prunes what is older than `days` now, then once a day. */
  keepFor(days: number): void {
    const prune = async () => {
      try {
        const deleted = await this.prune(new Date(Date.now() - days * DAY_MS));
        if (deleted > 0) this.options.logger.info("deleted old processes", { count: deleted, days });
      } catch (error) {
        this.options.logger.warn("pruning processes failed; retried tomorrow", { error: messageOf(error) });
      }
    };
    void prune();
    clearInterval(this.timer);
    this.timer = setInterval(() => void prune(), DAY_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
