import { MessageChannel, Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { endThread, isThreadClose, THREAD_CLOSE } from "./threads.js";

/** A thread that answers "ready", then does what its handler says; `THREAD_CLOSE` closes its port (as `isThreadClose` does). */
function thread(onMessage: string): Worker {
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    parentPort.on("message", (message) => {
      if (message?.type === workerData.close) { parentPort.close(); return; }
      ${onMessage}
    });
    parentPort.postMessage("ready");
  `;
  return new Worker(source, { eval: true, workerData: { close: THREAD_CLOSE.type } });
}

const ready = (worker: Worker) => new Promise((resolve) => worker.once("message", resolve));

describe("endThread", () => {
  it("lets an idle thread end on its own (exit code 0: not terminated)", async () => {
    const worker = thread("");
    await ready(worker);
    expect(await endThread(worker, 60_000)).toBe(0);
  });

  it("terminates a thread that does not end within the grace period (exit code 1)", async () => {
    const worker = thread("for (;;) {}");
    await ready(worker);
    worker.postMessage("spin");
    expect(await endThread(worker, 50)).toBe(1);
  });

  it("answers at once for a thread that has already ended", async () => {
    const worker = thread("");
    await ready(worker);
    await worker.terminate();
    expect(await endThread(worker, 60_000)).toBe(1);
  });
});

describe("isThreadClose", () => {
  it("closes the port on THREAD_CLOSE only, and says whether it did", async () => {
    const { port1, port2 } = new MessageChannel();
    const closed = new Promise((resolve) => port2.once("close", resolve));
    expect(isThreadClose({ type: "check" }, port1)).toBe(false);
    expect(isThreadClose(null, port1)).toBe(false);
    expect(isThreadClose(structuredClone(THREAD_CLOSE), port1)).toBe(true);
    await closed;
  });
});
