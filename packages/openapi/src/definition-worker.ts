import { parentPort } from "node:worker_threads";
import { generateDefinition } from "./definition.js";
import type { DefinitionReply, DefinitionRequest } from "./definition-thread.js";

/**
 * Worker thread entry (see `definition-thread.ts`): runs the pure pipeline
 * for one text at a time and posts the definition, or the error message,
 * back. Nothing else lives in this thread.
 */
const port = parentPort;
if (!port) throw new Error("definition-worker.js must run in a worker thread");

port.on("message", async ({ id, bytes }: DefinitionRequest) => {
  let reply: DefinitionReply;
  try {
    reply = { id, ok: true, definition: await generateDefinition(new TextDecoder().decode(bytes)) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
