import type { HostDelivery } from "../sandbox/protocol.js";

interface Delivery {
  kind: HostDelivery;
  id: number;
  payload: string;
}

/** Pushes one delivery into the isolate; settles once the isolate has run it (microtasks included). */
export type PushDelivery = (kind: HostDelivery, id: number, payload: string) => Promise<void>;

/**
 * The worker's half of replaying a durable run (the prelude has the other):
 * deliveries reach the program in the order the record has them. Which
 * answer or timer runs next is all a program's turns depend on besides the
 * values it reads, and the order they arrive in on replay is another (the
 * host answers from its journal at once, timers the record has firing do
 * not wait for their delay).
 *
 * A delivery the record has next goes in at once; one that arrives early
 * waits for its turn; one the record does not have (a timer that had not
 * fired, the answer to a call the earlier attempt never got) waits until
 * the record's deliveries are all in, and the run then goes on live. The
 * prelude checks each delivery against its cursor as well, so whatever
 * slips past the order here (a program that read another value first) is
 * still caught there.
 */
export class ReplayOrder {
  /** The record's deliveries (`a<id>`, `t<id>`), in order. */
  private readonly order: string[];
  private next = 0;
  /** Deliveries that arrived before their turn, by entry, in arrival order. */
  private readonly held = new Map<string, Delivery>();
  /** Timers the record has firing, not yet delivered. */
  private readonly firing = new Set<number>();
  private inFlight = 0;
  /** Whether the isolate was asked to check the wait since the last delivery went in (once is enough). */
  private checked = false;

  constructor(
    entries: readonly string[],
    private readonly push: PushDelivery,
  ) {
    this.order = entries.filter((entry) => /^[at]\d+$/.test(entry));
    for (const entry of this.order) if (entry[0] === "t") this.firing.add(Number(entry.slice(1)));
  }

  private get replaying(): boolean {
    return this.next < this.order.length;
  }

  /** Whether every delivery of the record went in: the run is live from here. */
  get done(): boolean {
    return !this.replaying;
  }

  /** Whether the record has timer `id` firing still ahead: it is then ready as soon as it is set. */
  firesOnTurn(id: number): boolean {
    return this.replaying && this.firing.has(id);
  }

  /** A tool's answer or a timer firing, from the bridge. */
  offer(kind: HostDelivery, id: number, payload: string): void {
    if (!this.replaying) {
      this.send({ kind, id, payload });
      return;
    }
    this.held.set(`${kind === "toolResult" ? "a" : "t"}${id}`, { kind, id, payload });
    this.pump();
  }

  /** The program's first turn has been handed to the isolate: ask it to check the wait once that turn is over. */
  started(): void {
    this.checkWaiting();
  }

  private pump(): void {
    while (this.replaying) {
      const entry = this.order[this.next] as string;
      const delivery = this.held.get(entry);
      if (delivery === undefined) break;
      this.held.delete(entry);
      this.next++;
      if (delivery.kind === "timer") this.firing.delete(delivery.id);
      this.send(delivery);
    }
    if (this.replaying) return;
    // The record is done: what waited for it goes in as it arrived, and the run is live from here.
    const rest = [...this.held.values()];
    this.held.clear();
    for (const delivery of rest) this.send(delivery);
  }

  private send(delivery: Delivery): void {
    this.inFlight++;
    this.checked = false;
    void this.push(delivery.kind, delivery.id, delivery.payload).finally(() => {
      this.inFlight--;
      this.checkWaiting();
    });
  }

  /**
   * Nothing is running in the isolate and the record's next delivery has
   * not arrived: the prelude checks that the program waits for something
   * that can bring it (see `checkWaiting` there). Deliveries that are never
   * coming would otherwise leave the run hanging until its deadline.
   */
  private checkWaiting(): void {
    if (this.inFlight > 0 || this.checked || !this.replaying) return;
    if (this.held.has(this.order[this.next] as string)) return;
    this.checked = true;
    void this.push("waiting", 0, "");
  }
}
