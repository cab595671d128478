/**
 * Entry of the type-checker thread (a `worker_threads` Worker of the host
 * process, started by supervisor/checker-thread.ts): the compiler runs off
 * the host's event loop, with a heap limit of its own, and a check that
 * runs past its budget is ended by terminating the thread.
 */
import { parentPort } from "node:worker_threads";
import { isThreadClose } from "@cyrnel/sdk";
import { Checker } from "./checker.js";
import type { FromChecker, ToChecker } from "./protocol.js";
import { renderTools } from "./render-tools.js";

const port = parentPort;
if (port === null) throw new Error("the type checker runs as a worker thread");
const post = (message: FromChecker) => port.postMessage(message);

/**
 * Checked once before the thread says it is ready: it loads the compiler and parses the standard library, and
 * compiles the checker's paths for what programs are made of (types, generics, closures, async code, the surface),
 * so that the first real check after a start is not the one that pays for them.
 */
const WARM_UP_PROGRAM = `
interface Row { id: number; name?: string; tags: string[] }
const rows: Row[] = [1, 2].map((id) => ({ id, tags: [\`t\${id}\`] }));
const byId = new Map(rows.map((row) => [row.id, row] as const));
async function first(): Promise<Row | undefined> { return rows.find((row) => row.name?.startsWith("a") ?? false); }
const found = await first();
try { await Promise.all([found, byId.get(1)]); } catch (error) { console.error(error.message); }
console.log(found?.id, byId.size, JSON.stringify(Object.keys(cyrnel.services)));
cyrnel.output({ count: rows.length, when: new Date().toISOString() });
`;

/** A service of two tools, declared for the warm-up check only (then forgotten): named types, optional fields, enums. */
const WARM_UP_SERVICE = "cyrnel_warm_up";
const WARM_UP_TOOLS = [
  {
    serviceId: WARM_UP_SERVICE,
    toolId: "listItems",
    description: "Lists items.",
    inputSchema: {
      type: "object",
      properties: { page: { type: "integer", minimum: 1 }, state: { enum: ["open", "closed"] } },
    },
    outputSchema: {
      type: "object",
      required: ["items"],
      properties: {
        items: { type: "array", items: { $ref: "#/$defs/Item" } },
        next: { type: ["string", "null"] },
      },
      $defs: {
        Item: {
          type: "object",
          required: ["id"],
          properties: { id: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
        },
      },
    },
  },
  {
    serviceId: WARM_UP_SERVICE,
    toolId: "getItem",
    description: "Reads one item.",
    inputSchema: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
    outputSchema: { oneOf: [{ type: "object", properties: { id: { type: "string" } } }, { type: "null" }] },
  },
];
const WARM_UP_CALLS = `
const listed = await cyrnel.services.${WARM_UP_SERVICE}.tools.listItems.invoke({ page: 1, state: "open" });
for (const item of listed.items) console.log(item.id, item.tags?.join(","));
const one = await cyrnel.services.${WARM_UP_SERVICE}.tools.getItem.invoke({ id: listed.items[0]?.id ?? "x" });
console.log(one?.id, listed.next);
`;

/**
 * Warm-up checks before the thread says it is ready, each of a service declared anew (two alternate), as the first
 * real check after a start or a declaration is: the previous program's files differ, so TypeScript builds the
 * program anew rather than reusing it. One check compiles the compiler's paths; only repeated runs get them to V8's
 * optimised code. Measured in the thread (a weather program, median of 12 fresh threads): the first real check
 * took 28 ms after one warm-up check, 11 ms after 8 (a warm one: ~8 → ~5 ms), for ~0.2 s more before the thread is
 * ready, which the environment's setup waits for while its sandbox process starts anyway.
 */
const WARM_UP_ROUNDS = 8;

const checker = new Checker();
// Rendered once each; declared anew every round (a new parse: the program's files change, as after a declaration).
const warmServices = [0, 1].map((index) => {
  const serviceId = `${WARM_UP_SERVICE}_${index}`;
  return {
    serviceId,
    ...renderTools(serviceId, JSON.stringify(WARM_UP_TOOLS.map((tool) => ({ ...tool, serviceId })))),
  };
});
for (let round = 0; round < WARM_UP_ROUNDS; round++) {
  const { serviceId, ...rendered } = warmServices[round % 2]!;
  checker.declare(serviceId, rendered.namespace, rendered.tools, rendered.text);
  checker.check(
    [(round === 0 ? WARM_UP_PROGRAM : "") + WARM_UP_CALLS.replaceAll(WARM_UP_SERVICE, serviceId)],
    [{ serviceId, tools: rendered.tools, declared: true }],
  );
  checker.forget(serviceId);
}
post({ type: "ready" });

port.on("message", (message: ToChecker) => {
  if (isThreadClose(message, port)) return;
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
