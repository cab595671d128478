/**
 * Entry of a render thread: one service's tool schemas (JSON text, often
 * hundreds of megabytes for a large API) → its declarations. Parsing and
 * rendering take seconds and much memory for such an API, so each render
 * runs in a short-lived `worker_threads` Worker of its own, off the host's
 * event loop and outside the type checker's heap limit.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { RenderThreadData } from "./protocol.js";

import { renderTools } from "./render-tools.js";

const { serviceId, parts } = workerData as RenderThreadData;
parentPort?.postMessage(renderTools(serviceId, Buffer.concat(parts).toString("utf8")));
