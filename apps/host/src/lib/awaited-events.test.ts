import { describe, expect, it } from "vitest";
import { AwaitedEvents } from "./awaited-events.js";

interface Events {
  started: { id: string };
  stopped: { id: string };
}

/** A promise and the function that settles it, for deterministic ordering without sleeps. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe("AwaitedEvents", () => {
  it("calls listeners in the order they subscribed, each after the previous one settled", async () => {
    const events = new AwaitedEvents<Events>();
    const calls: string[] = [];
    const gate = deferred();
    events.on("started", async ({ id }) => {
      calls.push(`first ${id}`);
      await gate.promise;
      calls.push("first done");
    });
    events.on("started", ({ id }) => {
      calls.push(`second ${id}`);
    });
    events.on("stopped", () => {
      calls.push("never: another event");
    });
    let emitted = false;
    const emitting = events.emit("started", { id: "a" }).then(() => {
      emitted = true;
    });
    await Promise.resolve();
    expect(calls).toEqual(["first a"]);
    expect(emitted).toBe(false);
    gate.resolve();
    await emitting;
    expect(calls).toEqual(["first a", "first done", "second a"]);
  });

  it("rejects with the first listener's error and calls no later listener", async () => {
    const events = new AwaitedEvents<Events>();
    const calls: string[] = [];
    events.on("stopped", () => {
      throw new Error("cannot stop");
    });
    events.on("stopped", () => {
      calls.push("later");
    });
    await expect(events.emit("stopped", { id: "a" })).rejects.toThrow("cannot stop");
    expect(calls).toEqual([]);
  });

  it("resolves at once without listeners", async () => {
    await expect(new AwaitedEvents<Events>().emit("started", { id: "a" })).resolves.toBeUndefined();
  });
});
