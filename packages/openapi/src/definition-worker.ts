import { parentPort } from "node:worker_threads";
import { isThreadClose } from "@cyrnel/sdk";
import { generateDefinition } from "./definition.js";
import type { DefinitionReply, DefinitionRequest } from "./definition-thread.js";
import { prepareValidators } from "./validation.js";

/**
 * Worker thread entry (see `definition-thread.ts`): runs the pure pipeline
 * for one text at a time and posts the definition, or the error message,
 * back. Nothing else lives in this thread.
 */
const port = parentPort;
if (!port) throw new Error("definition-worker.js must run in a worker thread");

port.on("message", async (message: DefinitionRequest) => {
  if (isThreadClose(message, port)) return;
  const { id, bytes, maxValues } = message;
  let reply: DefinitionReply;
  try {
    reply = { id, ok: true, definition: await generateDefinition(new TextDecoder().decode(bytes), { maxValues }) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});

// While the worker waits for its first text: compiling the OpenAPI 3.0 schema's validator (~50 ms) is then not
// part of an install. 3.1 documents are rarer; theirs is compiled on first use and kept as well.
prepareValidators("3.0");
