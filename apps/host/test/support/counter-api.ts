/**
 * An HTTP API that counts the calls it receives per tag, so a test can
 * check that every tool call of every process reached the upstream exactly
 * once, whichever host made it. A call may be held until the test releases
 * its tag (a process kept mid-call, e.g. while its host is killed). Every
 * request must carry the API key the service was configured with.
 *
 * - `GET /hits/{tag}?hold=true|false` (`hit`) → `{ tag, count }`
 * - `POST /hits/{tag}?hold=true|false` (`record`: a write, neither read-only nor idempotent) → `{ tag, count }`
 * - `GET /guarded/{tag}` (`guarded`; the tests put it under an `ask` policy) → `{ tag, count }`
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface CounterApi {
  url: string;
  /** The OpenAPI 3.0 document, as the text given to `POST /services`. */
  definition: string;
  /** Calls received per tag (each counted as it arrives, held or not). */
  readonly counts: Map<string, number>;
  /** Requests refused for a missing or wrong key. */
  unauthorized: number;
  /** Resolves once `count` held calls of these tags arrived. */
  held(tags: readonly string[]): Promise<void>;
  /** Answers the held calls of `tag`, now and later. */
  release(tag: string): void;
  close(): Promise<void>;
}

export async function startCounterApi(key: string): Promise<CounterApi> {
  const counts = new Map<string, number>();
  const releases = new Map<string, { released: Promise<void>; release: () => void }>();
  const arrivals = new Set<string>();
  const arrivalWaiters = new Set<() => void>();
  const gate = (tag: string) => {
    let entry = releases.get(tag);
    if (!entry) {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      entry = { released, release };
      releases.set(tag, entry);
    }
    return entry;
  };
  const api: CounterApi = {
    url: "",
    definition: "",
    counts,
    unauthorized: 0,
    held: (tags) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (tags.every((tag) => arrivals.has(tag))) {
            arrivalWaiters.delete(check);
            resolve();
          }
        };
        arrivalWaiters.add(check);
        check();
      }),
    release: (tag) => gate(tag).release(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const entry of releases.values()) entry.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const match = /^\/(hits|guarded)\/([^/]+)$/.exec(url.pathname);
    const write = request.method === "POST" && match?.[1] === "hits";
    if ((request.method !== "GET" && !write) || !match) {
      response.writeHead(404).end();
      return;
    }
    if (request.headers["x-counter-key"] !== key) {
      api.unauthorized++;
      response.writeHead(401, { "content-type": "application/json" }).end('{"message":"bad key"}');
      return;
    }
    const tag = decodeURIComponent(match[2]!);
    const count = (counts.get(tag) ?? 0) + 1;
    counts.set(tag, count);
    const answer = () =>
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ tag, count }));
    if (url.searchParams.get("hold") === "true") {
      arrivals.add(tag);
      for (const waiter of [...arrivalWaiters]) waiter();
      void gate(tag).released.then(answer);
    } else {
      answer();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const answer = {
    200: {
      description: "The call, counted",
      content: {
        "application/json": {
          schema: { type: "object", properties: { tag: { type: "string" }, count: { type: "integer" } } },
        },
      },
    },
  };
  const tagParameter = { name: "tag", in: "path", required: true, schema: { type: "string" } };
  api.definition = JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Counter", version: "1.0.0" },
    servers: [{ url: api.url }],
    security: [{ counterKey: [] }],
    components: { securitySchemes: { counterKey: { type: "apiKey", in: "header", name: "X-Counter-Key" } } },
    paths: {
      "/hits/{tag}": {
        get: {
          operationId: "hit",
          summary: "Counts a call of this tag; with hold, answers once the test releases the tag",
          parameters: [tagParameter, { name: "hold", in: "query", required: false, schema: { type: "boolean" } }],
          responses: answer,
        },
        post: {
          operationId: "record",
          summary: "Counts a write of this tag; with hold, answers once the test releases the tag",
          parameters: [tagParameter, { name: "hold", in: "query", required: false, schema: { type: "boolean" } }],
          responses: answer,
        },
      },
      "/guarded/{tag}": {
        get: {
          operationId: "guarded",
          summary: "Counts a call of this tag",
          parameters: [tagParameter],
          responses: answer,
        },
      },
    },
  });
  return api;
}
