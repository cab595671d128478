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

/**
 * The run this process makes of its own before it says it is ready (see the end of this file): it compiles the
 * transpiler, the prelude and the bridge's paths, so that the first run a host sends after a start is not the one
 * that pays for them. Nothing it does reaches the host.
 */
const WARM_UP_ID = -1;
const WARM_UP_PROGRAM = `
const services = Object.keys(cyrnel.services);
const seen: string[] = [];
await Promise.all([Promise.resolve(services.length), new Promise((resolve) => setTimeout(resolve, 0))]);
try { await cyrnel.services.warm.tools.up.invoke({ n: 1 }); } catch (error) { seen.push(String(error)); }
console.log(JSON.stringify({ services, seen, at: new Date(Date.now()).toISOString() }));
cyrnel.output({ done: true });
`;

const sendFor = (executionId: number, message: FromWorker) => {
  if (executionId !== WARM_UP_ID) send(message);
};

const reporter: RunReporter = {
  invokeTool: (executionId, input) =>
    executionId === WARM_UP_ID
      ? Promise.resolve(JSON.stringify({ ok: false, error: { message: "warm-up" } }))
      : new Promise((resolve) => {
          const callId = ++toolCallSeq;
          pendingToolCalls.set(callId, resolve);
          send({ type: "invoke", executionId, callId, input });
        }),
  setError: (executionId, message) => sendFor(executionId, { type: "error", executionId, message }),
  emitStdout: (executionId, chunk) => sendFor(executionId, { type: "stdout", executionId, chunk }),
  emitStderr: (executionId, chunk) => sendFor(executionId, { type: "stderr", executionId, chunk }),
  emitOutput: (executionId, patch) => sendFor(executionId, { type: "output", executionId, patch }),
  recordReplay: (executionId, entries) => sendFor(executionId, { type: "replay", executionId, entries }),
  sleeping: (executionId, wakeAt) => sendFor(executionId, { type: "sleeping", executionId, wakeAt }),
  streamDropped: (executionId, stream, bytes) => sendFor(executionId, { type: "dropped", executionId, stream, bytes }),
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

// The warm-up run (see WARM_UP_PROGRAM), at most a few seconds: a process that cannot run it is still ready.
const warmUp = scheduler.run({
  executionId: WARM_UP_ID,
  source: WARM_UP_PROGRAM,
  servicesJson: JSON.stringify({ warm: { tools: ["up"], revision: "0" } }),
  timeoutMs: 5_000,
});
void warmUp.finally(() => send({ type: "ready" }));
watchParent();
