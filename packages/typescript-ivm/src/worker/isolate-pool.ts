import ivm from "isolated-vm";

/** Called when V8 loses control of an isolate; the process must be replaced (see the worker entry). */
export type CatastropheHandler = (isolate: ivm.Isolate, message: string) => void;

/**
 * A fixed number of warm isolates. An execution takes one, runs in a fresh
 * context inside it and gives it back; an isolate that was disposed (timeout,
 * kill, memory limit) or is unfit for reuse is replaced at once, so the pool
 * always holds `size` isolates in total (idle + busy).
 */
export class IsolatePool {
  private readonly idle: ivm.Isolate[] = [];
  private closed = false;

  constructor(
    size: number,
    private readonly memoryLimitMb: number,
    private readonly onCatastrophe: CatastropheHandler,
  ) {
    for (let i = 0; i < size; i++) this.idle.push(this.create());
  }

  get idleCount(): number {
    return this.idle.length;
  }

  take(): ivm.Isolate | undefined {
    return this.idle.pop();
  }

  give(isolate: ivm.Isolate, reusable: boolean): void {
    if (reusable && !this.closed && !isolate.isDisposed) {
      this.idle.push(isolate);
      return;
    }
    dispose(isolate);
    if (!this.closed) this.idle.push(this.create());
  }

  /** Disposes the idle isolates; busy ones are disposed when their executions give them back. */
  close(): void {
    this.closed = true;
    for (const isolate of this.idle.splice(0)) dispose(isolate);
  }

  private create(): ivm.Isolate {
    // Without a handler isolated-vm aborts the whole process on such an error; with one, it parks the
    // isolate's thread forever and leaves the decision to us.
    const isolate: ivm.Isolate = new ivm.Isolate({
      memoryLimit: this.memoryLimitMb,
      onCatastrophicError: (message) => this.onCatastrophe(isolate, message),
    });
    return isolate;
  }
}

function dispose(isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return;
  try {
    isolate.dispose();
  } catch {
    // Disposed concurrently (memory limit); nothing left to free.
  }
}
