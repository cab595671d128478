/**
 * What the domain needs of a lock per key: `run(key, operation)` runs the
 * operation once no other operation holds that key. {@link KeyedMutex}
 * within one host; hosts sharing a PostgreSQL database pass a lock that
 * holds across them (cluster/cluster-mutex.ts). Not reentrant: nested `run`s
 * take different keys, always in the same order.
 */
export interface Locks {
  run<T>(key: string, operation: () => Promise<T>): Promise<T>;
}

/**
 * Serialises async operations per key (one service, one module), so a
 * config patch cannot interleave with an enable of the same service across
 * their awaits. Different keys run concurrently.
 */
export class KeyedMutex implements Locks {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(operation, operation);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
