/**
 * Gives disk space back. SQLite keeps the pages of deleted rows as free
 * pages inside `data.db`, and the WAL file keeps the size of its largest
 * burst of writes: a host that installs and deletes large services for a
 * while ends up with hundreds of megabytes of nothing. The database uses
 * incremental auto-vacuum (see client.ts), so free pages can be returned to
 * the file system without rewriting it, and a TRUNCATE checkpoint empties
 * the WAL. Both run shortly after large deletes (`soon()`), on a timer, and
 * at shutdown; each is cheap when there is nothing to give back.
 */
import type Database from "better-sqlite3";

/** Deletes in quick succession (a script removing many services) are reclaimed once. */
const DEBOUNCE_MS = 100;

export class SpaceReclaimer {
  private pending: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly onError: (error: unknown) => void,
    /** Runs the work when no transaction is open on the connection (the gate of dialect-sqlite.ts). */
    private readonly whenFree: (work: () => void) => void | Promise<void> = (work) => work(),
  ) {}

  /** Reclaims every `intervalMs` until {@link stop}; the timer never keeps the process alive. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => this.reclaim(), intervalMs);
    this.timer.unref();
  }

  /** Asks for a reclaim after a large delete. */
  soon(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.reclaim();
    }, DEBOUNCE_MS);
    this.pending.unref();
  }

  /** Frees every free page and empties the WAL. Never throws: a failed reclaim is retried next time. */
  reclaim(): void {
    void this.whenFree(() => this.reclaimNow());
  }

  private reclaimNow(): void {
    if (!this.sqlite.open) return;
    try {
      if ((this.sqlite.pragma("freelist_count", { simple: true }) as number) > 0) {
        this.sqlite.pragma("incremental_vacuum");
      }
      this.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    } catch (error) {
      this.onError(error);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.pending);
    this.pending = undefined;
  }
}
