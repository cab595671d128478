import { describe, expect, it } from "vitest";
import type { FromWorker } from "../ipc.js";
import { Outbox } from "./outbox.js";

function recording() {
  const sent: FromWorker[] = [];
  return { sent, outbox: new Outbox((message) => sent.push(structuredClone(message))) };
}

describe("Outbox", () => {
  it("sends the first message at once, then coalesces consecutive stdout, stderr and output, in order", () => {
    const { sent, outbox } = recording();
    outbox.send({ type: "stdout", executionId: 1, chunk: "first\n" });
    expect(sent).toEqual([{ type: "stdout", executionId: 1, chunk: "first\n" }]);
    sent.length = 0;
    outbox.send({ type: "stdout", executionId: 1, chunk: "a\n" });
    outbox.send({ type: "stdout", executionId: 1, chunk: "b\n" });
    outbox.send({ type: "output", executionId: 1, patch: { x: 1, y: 1 } });
    outbox.send({ type: "output", executionId: 1, patch: { y: 2 } });
    outbox.send({ type: "stderr", executionId: 1, chunk: "warn\n" });
    outbox.send({ type: "stdout", executionId: 2, chunk: "other\n" });
    outbox.send({ type: "stdout", executionId: 1, chunk: "c\n" });
    expect(sent).toEqual([]);
    outbox.flush();
    expect(sent).toEqual([
      { type: "stdout", executionId: 1, chunk: "a\nb\n" },
      { type: "output", executionId: 1, patch: { x: 1, y: 2 } },
      { type: "stderr", executionId: 1, chunk: "warn\n" },
      { type: "stdout", executionId: 2, chunk: "other\n" },
      { type: "stdout", executionId: 1, chunk: "c\n" },
    ]);
  });

  it("sends what is pending before any other message", () => {
    const { sent, outbox } = recording();
    outbox.send({ type: "stdout", executionId: 1, chunk: "opens the window\n" });
    outbox.send({ type: "output", executionId: 1, patch: { done: false } });
    outbox.send({ type: "error", executionId: 1, message: "boom" });
    outbox.send({ type: "done", executionId: 1, exit: "failed" });
    expect(sent.map((message) => message.type)).toEqual(["stdout", "output", "error", "done"]);
  });

  it("never changes a patch it was handed", () => {
    const { sent, outbox } = recording();
    outbox.send({ type: "stdout", executionId: 1, chunk: "opens the window\n" });
    const first = { a: 1 };
    outbox.send({ type: "output", executionId: 1, patch: first });
    outbox.send({ type: "output", executionId: 1, patch: { b: 2 } });
    outbox.flush();
    expect(first).toEqual({ a: 1 });
    expect(sent.at(-1)).toEqual({ type: "output", executionId: 1, patch: { a: 1, b: 2 } });
  });

  it("sends what waited when the window closes", async () => {
    const { sent, outbox } = recording();
    outbox.send({ type: "stdout", executionId: 1, chunk: "now\n" });
    outbox.send({ type: "stdout", executionId: 1, chunk: "later\n" });
    expect(sent).toHaveLength(1);
    await expect
      .poll(() => sent)
      .toEqual([
        { type: "stdout", executionId: 1, chunk: "now\n" },
        { type: "stdout", executionId: 1, chunk: "later\n" },
      ]);
  });

  it("joins replay entries to the execution's waiting replay message, which goes out first", () => {
    const { sent, outbox } = recording();
    outbox.send({ type: "stdout", executionId: 1, chunk: "opens the window\n" });
    sent.length = 0;
    outbox.send({ type: "replay", executionId: 1, entries: ["c1"] });
    outbox.send({ type: "stdout", executionId: 1, chunk: "a\n" });
    outbox.send({ type: "replay", executionId: 2, entries: ["r0.5"] });
    outbox.send({ type: "replay", executionId: 1, entries: ["c2"] });
    outbox.send({ type: "stdout", executionId: 1, chunk: "b\n" });
    outbox.send({ type: "invoke", executionId: 1, callId: 1, input: { serviceId: "s", toolId: "t", parameters: {} } });
    expect(sent).toEqual([
      { type: "replay", executionId: 1, entries: ["c1", "c2"] },
      { type: "stdout", executionId: 1, chunk: "a\n" },
      { type: "replay", executionId: 2, entries: ["r0.5"] },
      { type: "stdout", executionId: 1, chunk: "b\n" },
      { type: "invoke", executionId: 1, callId: 1, input: { serviceId: "s", toolId: "t", parameters: {} } },
    ]);
  });
});
