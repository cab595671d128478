/**
 * Entry of a render thread: one service's tool schemas (JSON text, often
 * hundreds of megabytes for a large API) → its declarations, or the tools
 * of a `GET /environment/types` → its declaration file (or index). Parsing and
 * rendering take seconds and much memory for such an API, so each render
 * runs in a short-lived `worker_threads` Worker of its own, off the host's
 * event loop and outside the type checker's heap limit.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { RenderThreadData } from "./protocol.js";
import { renderTools, renderTypesFromJson } from "./render-tools.js";

const data = workerData as RenderThreadData;
const json = Buffer.concat(data.parts).toString("utf8");
parentPort?.postMessage(
  data.kind === "types" ? renderTypesFromJson(json, data.options) : renderTools(data.serviceId, json),
);
