/**
 * Typed events whose publisher waits for its subscribers. `emit` calls each
 * listener in the order it subscribed, one after the other, awaiting each,
 * and rejects with the first error (later listeners are then not called).
 * For the places where one part of the host must not go on before another
 * has reacted, e.g. a module's files are deleted only once what depended on
 * them is gone.
 */
export type Listener<T> = (payload: T) => Promise<void> | void;

export class AwaitedEvents<Events extends object> {
  private readonly listeners: { [K in keyof Events]?: Listener<Events[K]>[] } = {};

  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): void {
    const list = this.listeners[name] ?? [];
    list.push(listener);
    this.listeners[name] = list;
  }

  async emit<K extends keyof Events>(name: K, payload: Events[K]): Promise<void> {
    for (const listener of this.listeners[name] ?? []) await listener(payload);
  }
}
