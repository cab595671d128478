/**
 * A run's writes to its rows, retried through storage faults. A run's result
 * is known only to the host that ran it, so its state changes and its final
 * row are kept and retried while the database is out of reach or the disk is
 * full (`retryStorage`), and whoever waits for the run keeps seeing the live
 * run until the final row is there. Only a stopping host whose time ran out
 * gives up (`abandon`): on PostgreSQL the reaper or the sweep then ends the
 * run.
 */
import { retryStorage, type StorageHealth } from "../../lib/storage-faults.js";
import type { HostLogger } from "../../log.js";

export class RunWrites {
  /** Aborted when a stopping host gives up the writes still waiting for storage (`abandon`). */
  private readonly giveUp = new AbortController();

  constructor(
    private readonly logger: HostLogger,
    /** Told of storage faults the writes meet (for `/health`). */
    private readonly health?: StorageHealth,
  ) {}

  /** A write of a run's rows, retried through storage faults (see the header). */
  durably<T>(run: { processId: number }, what: string, write: () => Promise<T>): Promise<T> {
    return retryStorage(write, {
      what: `${what} of process ${run.processId}`,
      logger: this.logger,
      giveUp: this.giveUp.signal,
      ...(this.health && { health: this.health }),
    });
  }

  /** Gives up the writes still waiting for storage (logged), so that a stopping host can end. */
  abandon(): void {
    this.giveUp.abort();
  }
}
