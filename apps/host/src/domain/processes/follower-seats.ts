/**
 * Seats for live followers (`GET /processes/:id/events`): at most
 * `perProcess` on one process, and at most `total` on this host in all. Each
 * follower holds a connection (a descriptor) for as long as the run goes on,
 * so the total keeps them within the host's descriptor budget
 * (lib/descriptors.ts): past it the next follower gets `429
 * too_many_followers` while `/health`, new runs and tool calls still have
 * descriptors to use.
 */
import { CyrnelError } from "../../errors.js";

export class FollowerSeats {
  private readonly taken = new Map<number, number>();
  private total = 0;

  constructor(
    private readonly perProcess: number,
    private readonly totalLimit: number,
  ) {}

  /** Takes a seat on `processId`, or throws 429; the release is safe to call more than once. */
  take(processId: number): () => void {
    const count = this.taken.get(processId) ?? 0;
    if (count >= this.perProcess) {
      throw new CyrnelError(
        "too_many_followers",
        `process ${processId} already has ${this.perProcess} live followers (CYRNEL_PROCESS_FOLLOWERS_LIMIT); try again later`,
      );
    }
    if (this.total >= this.totalLimit) {
      throw new CyrnelError(
        "too_many_followers",
        `this host already serves ${this.totalLimit} live followers in all (its share of the open-file limit, ` +
          "ulimit -n); try again later or follow with polling",
      );
    }
    this.taken.set(processId, count + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.taken.get(processId) ?? 1) - 1;
      if (left > 0) this.taken.set(processId, left);
      else this.taken.delete(processId);
    };
  }
}
