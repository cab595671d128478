/**
 * The upstream of the durable-runs proof (apps/host/test/durable-runs.test.ts
 * and bench/durable-runs.mjs): an HTTP API with an OpenAPI document whose
 * operations cover the three kinds of call a replay treats differently, and
 * that counts what reaches it, so the proof can say which non-idempotent call
 * arrived how many times whatever host sent it.
 *
 * - `GET /items/{name}` (`getItem`: read-only) → `{ name, value }`, the value a pure function of the name
 *   (`itemValue`), so a program's output can be computed in advance
 * - `PUT /items/{name}` (`putItem`: idempotent) with `{ value }` → `{ name, value }`
 * - `POST /orders` (`createOrder`: neither) with `{ key, amount, nonce }` → the order; counted per `key`, the first
 *   body kept
 * - `GET /orders/{key}` (`getOrder`: read-only) → the order as first received, or 404
 *
 * Each request is counted as it arrives (its body read), then answered after a random delay of up to `maxDelayMs`,
 * so a host SIGKILLed at a random moment often has calls in flight: some received and counted, unanswered.
 *
 * Plain JavaScript (types in durable-api.d.mts) so the bench, which runs without a TypeScript loader, shares it.
 */
import { createServer } from "node:http";

/** The value `getItem` answers for `name`: its characters' codes summed, mod 1000. */
export function itemValue(name) {
  let sum = 0;
  for (const char of name) sum += char.codePointAt(0);
  return sum % 1000;
}

/** The POST key of run `index` of a campaign `campaign`. */
export const orderKey = (campaign, index) => `${campaign}-${index}`;

/**
 * The program of run `index`: two reads, a read and a PUT at once (`Promise.all`), a POST carrying the run's
 * unique key, an amount derived from the reads and a random nonce, then the output. A POST whose re-send an
 * operator denied (it had reached the upstream before the crash) is read back with `getOrder`, so the output is
 * the one an uninterrupted run gives either way. The nonce (`Math.random()`) goes in the POST and the output says
 * whether the order kept it, and a clock read comes before the POST: a resumed run must get the same values.
 */
export function durableProgram(campaign, index, service = "durable", options = {}) {
  const key = orderKey(campaign, index);
  // `sandboxValues: false` (a diagnostic of the bench): no clock or random value, to tell a replay's handling of
  // calls apart from its handling of those values.
  const values = options.sandboxValues !== false;
  const tools = `cyrnel.services.${service}.tools`;
  return `
const key = ${JSON.stringify(key)};
const a = await ${tools}.getItem.invoke({ name: key + "-a" });
const b = await ${tools}.getItem.invoke({ name: key + "-b" });
const [c, put] = await Promise.all([
  ${tools}.getItem.invoke({ name: key + "-c" }),
  ${tools}.putItem.invoke({ name: key + "-p", body: { value: a.value + b.value } }),
]);
const nonce = ${values ? "Math.random()" : "0.5"};
const startedAt = ${values ? "Date.now()" : "0"};
let order: { key: string; amount: number; nonce: number };
try {
  order = await ${tools}.createOrder.invoke({ body: { key, amount: a.value + c.value, nonce } });
} catch (error) {
  const e = error as { code?: string };
  if (e.code !== "approval_denied") throw error;
  order = await ${tools}.getOrder.invoke({ key });
}
const d = await ${tools}.getItem.invoke({ name: key + "-d" });
cyrnel.output({
  key,
  sum: a.value + b.value + c.value + d.value,
  put: put.value,
  order: { key: order.key, amount: order.amount },
  nonceKept: order.nonce === nonce,
  clockKept: Date.now() >= startedAt,
});
`;
}

/** The output the program of run `index` gives when nothing interrupts it. */
export function expectedOutput(campaign, index) {
  const key = orderKey(campaign, index);
  const [a, b, c, d] = ["a", "b", "c", "d"].map((suffix) => itemValue(`${key}-${suffix}`));
  return {
    key,
    sum: a + b + c + d,
    put: a + b,
    order: { key, amount: a + c },
    nonceKept: true,
    clockKept: true,
  };
}

/**
 * The program with `calls` sequential reads of items `<name>-0`…, then one read of `<name>-last` (the bench holds
 * it to kill the host after the journaled calls), then its output.
 */
export function sequentialProgram(name, calls, service = "durable") {
  return `
let total = 0;
for (let i = 0; i < ${calls}; i++) {
  total += (await cyrnel.services.${service}.tools.getItem.invoke({ name: ${JSON.stringify(name)} + "-" + i })).value;
}
total += (await cyrnel.services.${service}.tools.getItem.invoke({ name: ${JSON.stringify(name)} + "-last" })).value;
cyrnel.output({ total });
`;
}

export async function startDurableApi(options = {}) {
  let maxDelayMs = options.maxDelayMs ?? 0;
  const random = options.random ?? Math.random;
  /** Per request kind (`GET item`, `PUT item`, `POST order`, `GET order`) and name or key. */
  const counts = new Map();
  const orders = new Map();
  const items = new Map();
  /** Item names whose first GET is never answered (the bench holds a run after its last journaled call). */
  const held = new Set();
  const waiters = new Set();
  let requests = 0;
  const count = (tag) => {
    requests++;
    counts.set(tag, (counts.get(tag) ?? 0) + 1);
    for (const waiter of [...waiters]) waiter();
  };
  const sockets = new Set();

  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      let body;
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
      } catch {
        response.writeHead(400).end();
        return;
      }
      const reply = (status, value) => {
        const send = () => {
          if (response.destroyed) return;
          response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
        };
        const delay = Math.floor(random() * maxDelayMs);
        if (delay > 0) setTimeout(send, delay);
        else send();
      };
      const item = /^\/items\/([^/]+)$/.exec(url.pathname);
      const order = /^\/orders\/([^/]+)$/.exec(url.pathname);
      if (item && request.method === "GET") {
        const name = decodeURIComponent(item[1]);
        count(`GET item ${name}`);
        if (held.delete(name)) return;
        reply(200, { name, value: items.get(name) ?? itemValue(name) });
      } else if (item && request.method === "PUT") {
        const name = decodeURIComponent(item[1]);
        count(`PUT item ${name}`);
        items.set(name, body.value);
        reply(200, { name, value: body.value });
      } else if (url.pathname === "/orders" && request.method === "POST") {
        count(`POST order ${body.key}`);
        if (!orders.has(body.key)) orders.set(body.key, { key: body.key, amount: body.amount, nonce: body.nonce });
        reply(200, orders.get(body.key));
      } else if (order && request.method === "GET") {
        const key = decodeURIComponent(order[1]);
        count(`GET order ${key}`);
        const found = orders.get(key);
        if (found) reply(200, found);
        else reply(404, { message: `no order ${key}` });
      } else {
        response.writeHead(404).end();
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;

  const json = (schema, description = "ok") => ({
    description,
    content: { "application/json": { schema } },
  });
  const itemSchema = {
    type: "object",
    required: ["name", "value"],
    properties: { name: { type: "string" }, value: { type: "integer" } },
  };
  const orderSchema = {
    type: "object",
    required: ["key", "amount", "nonce"],
    properties: { key: { type: "string" }, amount: { type: "integer" }, nonce: { type: "number" } },
  };
  const name = { name: "name", in: "path", required: true, schema: { type: "string" } };
  const definition = JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Durable", version: "1.0.0" },
    servers: [{ url }],
    paths: {
      "/items/{name}": {
        get: { operationId: "getItem", parameters: [name], responses: { 200: json(itemSchema) } },
        put: {
          operationId: "putItem",
          parameters: [name],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", required: ["value"], properties: { value: { type: "integer" } } },
              },
            },
          },
          responses: { 200: json(itemSchema) },
        },
      },
      "/orders": {
        post: {
          operationId: "createOrder",
          requestBody: { required: true, content: { "application/json": { schema: orderSchema } } },
          responses: { 200: json(orderSchema) },
        },
      },
      "/orders/{key}": {
        get: {
          operationId: "getOrder",
          parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: json(orderSchema), 404: json({ type: "object" }, "no such order") },
        },
      },
    },
  });

  return {
    url,
    definition,
    counts,
    orders,
    /** Requests received so far, of every kind. */
    get requests() {
      return requests;
    },
    /** How many times the POST of `key` reached the upstream. */
    posts: (key) => counts.get(`POST order ${key}`) ?? 0,
    /** The next GET of item `name` is counted and never answered. */
    hold(name) {
      held.add(name);
    },
    /** Resolves once `tag` (as in `counts`) was received `times` times. */
    arrived: (tag, times = 1) =>
      new Promise((resolve) => {
        const check = () => {
          if ((counts.get(tag) ?? 0) >= times) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      }),
    setMaxDelay(ms) {
      maxDelayMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
