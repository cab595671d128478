/**
 * An amount shared by concurrent work (e.g. characters of schema held in
 * memory at once), handed out first come, first served: `acquire(n)` waits
 * until `n` fits beside what is held, and resolves to the function that
 * gives it back. A single request larger than the whole is let through
 * alone (callers bound each request first; this bounds their sum).
 */
export class SharedBudget {
  private held = 0;
  private readonly waiting: { amount: number; grant(): void }[] = [];

  constructor(readonly total: number) {}

  acquire(amount: number): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({ amount, grant: () => resolve(this.releaser(amount)) });
      this.grant();
    });
  }

  private releaser(amount: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= amount;
      this.grant();
    };
  }

  /** In order: a large request at the head is not overtaken by small ones behind it (it would starve). */
  private grant(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.held > 0 && this.held + next.amount > this.total) return;
      this.waiting.shift();
      this.held += next.amount;
      next.grant();
    }
  }
}
