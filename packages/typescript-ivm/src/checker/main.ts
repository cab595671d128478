/**
 * Entry of the type-checker thread (a `worker_threads` Worker of the host
 * process, started by supervisor/checker-thread.ts): the compiler runs off
 * the host's event loop, with a heap limit of its own, and a check that
 * runs past its budget is ended by terminating the thread.
 */
import { parentPort } from "node:worker_threads";
import { Checker } from "./checker.js";
import type { FromChecker, ToChecker } from "./protocol.js";

const port = parentPort;
if (port === null) throw new Error("the type checker runs as a worker thread");
const post = (message: FromChecker) => port.postMessage(message);

const checker = new Checker();
// Loads the compiler and parses the standard library before the first real check.
checker.check([""], []);
post({ type: "ready" });

port.on("message", (message: ToChecker) => {
  try {
    if (message.type === "declare") {
      checker.declare(message.serviceId, message.namespace, message.tools, message.text);
      post({ type: "done", job: message.job, errors: [] });
    } else {
      post({ type: "done", job: message.job, errors: checker.check(message.programs, message.services) });
    }
  } catch (error) {
    post({ type: "failed", job: message.job, message: error instanceof Error ? error.message : String(error) });
  }
});
