/**
 * Entry of a render thread: one service's tool schemas (JSON text, often
 * hundreds of megabytes for a large API) → its declarations, or the tools
 * of a `GET /environment/types` → its declaration file (or index). Parsing and
 * rendering take seconds and much memory for such an API, so each render
 * runs in a short-lived `worker_threads` Worker of its own, off the host's
 * event loop and outside the type checker's heap limit.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import type { RenderThreadData } from "./protocol.js";
import { renderTools, renderTypesFromJson } from "./render-tools.js";

/** The nice value of a background render (19 is the lowest priority; 10 still leaves the runs of the moment ~90 %). */
const BACKGROUND_NICE = 10;

const data = workerData as RenderThreadData;
if (data.kind === "service" && data.background === true) lowerThreadPriority();
const json = Buffer.concat(data.parts).toString("utf8");
parentPort?.postMessage(
  data.kind === "types" ? renderTypesFromJson(json, data.options) : renderTools(data.serviceId, json),
);

/**
 * This thread's nice value to {@link BACKGROUND_NICE}, on Linux, where each thread has its own (`/proc/thread-self`
 * names it; setpriority with a thread's id sets that thread's alone). Elsewhere, or if refused, nothing changes.
 * Right after a start, the declarations of a large API prepared ahead (Stripe's: seconds of a core) slowed the first
 * runs on a 2-core machine by 10–30 ms; at a lower priority they take only what the runs leave.
 */
function lowerThreadPriority(): void {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isSafeInteger(threadId) && threadId > 0) setPriority(threadId, BACKGROUND_NICE);
  } catch {
    // Not Linux, or not allowed: the render runs at the host's priority.
  }
}
