/**
 * Entry point of the sandbox process, forked by the host (supervisor/).
 * Every isolate lives here, so whatever V8 cannot recover from — an isolate
 * whose thread isolated-vm parks forever after a catastrophic out-of-memory
 * error, or an outright abort — stays in this process and never reaches the
 * host. After a catastrophe the process finishes its other executions and
 * is then ended by the host (see supervisor.ts).
 * The process is started with an empty environment: it holds no secrets.
 */
import type { Logger } from "@cyrnel/sdk";
import type { FromWorker, ToWorker, WorkerOptions } from "../ipc.js";
import type { RunReporter } from "./host-bridge.js";
import { MemoryGuard } from "./memory-guard.js";
import { Outbox } from "./outbox.js";
import { watchParent } from "./parent-watch.js";
import { WorkerScheduler } from "./scheduler.js";

const outbox = new Outbox((message, afterSent) => {
  if (process.connected && process.send !== undefined) process.send(message, undefined, {}, afterSent);
});
const send = (message: FromWorker, afterSent?: () => void) => outbox.send(message, afterSent);

const pendingToolCalls = new Map<number, (outcome: string) => void>();
let toolCallSeq = 0;

const reporter: RunReporter = {
  invokeTool: (executionId, input) =>
    new Promise((resolve) => {
      const callId = ++toolCallSeq;
      pendingToolCalls.set(callId, resolve);
      send({ type: "invoke", executionId, callId, input });
    }),
  setError: (executionId, message) => send({ type: "error", executionId, message }),
  emitStdout: (executionId, chunk) => send({ type: "stdout", executionId, chunk }),
  emitStderr: (executionId, chunk) => send({ type: "stderr", executionId, chunk }),
  emitOutput: (executionId, patch) => send({ type: "output", executionId, patch }),
  recordReplay: (executionId, entries) => send({ type: "replay", executionId, entries }),
  sleeping: (executionId, wakeAt) => send({ type: "sleeping", executionId, wakeAt }),
  streamDropped: (executionId, stream, bytes) => send({ type: "dropped", executionId, stream, bytes }),
};

const log =
  (level: "debug" | "info" | "warn" | "error") =>
  (message: string, fields?: Record<string, unknown>): void =>
    send({ type: "log", level, message, ...(fields === undefined ? {} : { fields }) });
const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };

/**
 * Ends this process at once. Not `process.exit()`: at exit isolated-vm joins
 * its isolate threads, and one that is spinning (or parked after a
 * catastrophe) never returns, so the process would never end.
 */
function endNow(): never {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable: SIGKILL was sent to this process");
}

const reportCatastrophe = (executionId: number | null, message: string) =>
  send({ type: "catastrophic", executionId, message });

const options = JSON.parse(process.argv[2] ?? "null") as WorkerOptions;
const scheduler = new WorkerScheduler(options, reporter, logger, reportCatastrophe);
const guard = new MemoryGuard(options.memoryBudgetMb * 1024 * 1024, scheduler, (rssBytes) =>
  send({ type: "memory", rssBytes }),
);

process.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "run": {
      const { executionId, source, servicesJson, timeoutMs, replay } = message;
      guard.executionStarted();
      void scheduler.run({ executionId, source, servicesJson, timeoutMs, replay }).then((exit) => {
        send({ type: "done", executionId, exit });
        guard.executionEnded();
      });
      break;
    }
    case "kill":
      scheduler.kill(message.executionId);
      break;
    case "pauseDeadline":
    case "resumeDeadline":
      scheduler.deadline(message.executionId, message.type === "pauseDeadline" ? "pause" : "resume");
      break;
    case "toolResult": {
      const resolve = pendingToolCalls.get(message.callId);
      pendingToolCalls.delete(message.callId);
      resolve?.(message.outcome);
      break;
    }
    case "ping":
      send({ type: "pong" });
      break;
  }
});

// The host went away (even SIGKILLed): nothing can receive our results any more. The IPC channel closing says so
// at once when this thread is free; a thread of its own watches for the re-parenting that follows, in case not.
process.on("disconnect", endNow);

send({ type: "ready" });
watchParent();
