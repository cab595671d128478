import { describe, expect, it } from "vitest";
import { ImmediateEvents } from "./immediate-events.js";

interface Events {
  changed: { id: string };
  removed: { id: string };
}

describe("ImmediateEvents", () => {
  it("calls every listener of the event, in the order they subscribed, before emit returns", () => {
    const events = new ImmediateEvents<Events>();
    const calls: string[] = [];
    events.on("changed", ({ id }) => calls.push(`first ${id}`));
    events.on("changed", ({ id }) => calls.push(`second ${id}`));
    events.on("removed", () => calls.push("never: another event"));
    events.emit("changed", { id: "a" });
    calls.push("after emit");
    expect(calls).toEqual(["first a", "second a", "after emit"]);
  });

  it("throws the first listener's error to the publisher and calls no later listener", () => {
    const events = new ImmediateEvents<Events>();
    const calls: string[] = [];
    events.on("removed", () => {
      throw new Error("cannot remove");
    });
    events.on("removed", () => calls.push("later"));
    expect(() => events.emit("removed", { id: "a" })).toThrow("cannot remove");
    expect(calls).toEqual([]);
  });

  it("does nothing without listeners", () => {
    expect(() => new ImmediateEvents<Events>().emit("changed", { id: "a" })).not.toThrow();
  });
});
