/**
 * Typed events delivered at once: `emit` calls each listener synchronously,
 * in the order it subscribed, and returns once all have; the first to throw
 * stops the rest and its error goes to the publisher. For notices whose
 * order against the publisher's next step matters (a run resumes before the
 * call that waited for its approval goes on), from code that cannot wait;
 * `AwaitedEvents` is for the events a publisher must wait out.
 */
export type ImmediateListener<T> = (payload: T) => void;

export class ImmediateEvents<Events extends object> {
  private readonly listeners: { [K in keyof Events]?: ImmediateListener<Events[K]>[] } = {};

  on<K extends keyof Events>(name: K, listener: ImmediateListener<Events[K]>): void {
    const list = this.listeners[name] ?? [];
    list.push(listener);
    this.listeners[name] = list;
  }

  emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    for (const listener of this.listeners[name] ?? []) listener(payload);
  }
}
