/**
 * Entry of a render thread: one service's tool schemas (JSON text, often
 * hundreds of megabytes for a large API) → its declarations. Parsing and
 * rendering take seconds and much memory for such an API, so each render
 * runs in a short-lived `worker_threads` Worker of its own, off the host's
 * event loop and outside the type checker's heap limit.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { ToolDocsInput } from "@cyrnel/sdk";
import { renderServiceFile } from "../docs/types-file.js";
import type { RenderedService, RenderRequest } from "./protocol.js";

const { serviceId, toolsJson } = workerData as RenderRequest;
const parsed: unknown = JSON.parse(toolsJson);
const tools = (Array.isArray(parsed) ? parsed : []).filter(
  (tool): tool is ToolDocsInput =>
    typeof tool === "object" && tool !== null && tool.serviceId === serviceId && typeof tool.toolId === "string",
);
const rendered: RenderedService = renderServiceFile(serviceId, tools);
parentPort?.postMessage(rendered);
