import { describe, expect, it } from "vitest";
import type { FromWorker } from "../ipc.js";
import { Outbox } from "./outbox.js";

function recording() {
  const sent: FromWorker[] = [];
  return { sent, outbox: new Outbox((message) => sent.push(structuredClone(message))) };
}

describe("Outbox", () => {
  it("coalesces consecutive stdout, stderr and output of one execution, in order", () => {
    const { sent, outbox } = recording();
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
    outbox.send({ type: "output", executionId: 1, patch: { done: false } });
    outbox.send({ type: "error", executionId: 1, message: "boom" });
    outbox.send({ type: "done", executionId: 1, exit: "failed", rssBytes: 1 });
    expect(sent.map((message) => message.type)).toEqual(["output", "error", "done"]);
  });

  it("never changes a patch it was handed", () => {
    const { sent, outbox } = recording();
    const first = { a: 1 };
    outbox.send({ type: "output", executionId: 1, patch: first });
    outbox.send({ type: "output", executionId: 1, patch: { b: 2 } });
    outbox.flush();
    expect(first).toEqual({ a: 1 });
    expect(sent).toEqual([{ type: "output", executionId: 1, patch: { a: 1, b: 2 } }]);
  });

  it("sends on its own shortly after", async () => {
    const { sent, outbox } = recording();
    outbox.send({ type: "stdout", executionId: 1, chunk: "later\n" });
    await expect.poll(() => sent, { timeout: 5_000 }).toEqual([{ type: "stdout", executionId: 1, chunk: "later\n" }]);
  });
});
