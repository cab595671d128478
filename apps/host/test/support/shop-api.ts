/**
 * A small real HTTP API for code-mode tests, with the OpenAPI document the
 * `openapi` adapter installs it from. Every operation needs the `shopKey`
 * apiKey (header `X-Shop-Key`); every request is recorded (method, path,
 * query, headers) so tests can assert what reached the upstream, and what
 * never did.
 *
 * - `GET  /items/{id}?verbose=&format=` → 200 `{ id, name, verbose }` (`format`: "short" or "long", unused)
 * - `POST /notes` (JSON `{ text, tags? }`, required) → 201 `{ id, text }`
 * - `GET  /slow?ms=`   → waits `ms` milliseconds, then 200 `{ waited }`
 * - `GET  /broken`     → 500 `{ error: "kaput" }`
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { ApiHost } from "./host.js";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ShopApi {
  url: string;
  /** The OpenAPI 3.0 document, as the text given to `POST /services`. */
  definition: string;
  requests: RecordedRequest[];
  /** Most `/slow?ms=<ms>` requests in flight at the same time so far, by `ms`. */
  slowPeak: Map<number, number>;
  /** `/slow?ms=<ms>` requests in flight now (received, not answered yet), by `ms`. */
  slowInFlight: Map<number, number>;
  /**
   * From now on, `/slow?ms=<ms>` requests are answered together as soon as
   * `count` of them are in flight (each still answers after `ms` at the
   * latest): calls that overlap finish at once, calls that do not take `ms` each.
   */
  gatherSlow(ms: number, count: number): void;
  close(): Promise<void>;
}

export function shopDocument(baseUrl: string): Record<string, unknown> {
  const problem = { description: "Problem", content: { "application/json": { schema: { type: "object" } } } };
  return {
    openapi: "3.0.3",
    info: { title: "Shop", version: "1.0.0", description: "Items, notes and a few misbehaving endpoints." },
    servers: [{ url: baseUrl }],
    security: [{ shopKey: [] }],
    components: {
      securitySchemes: { shopKey: { type: "apiKey", in: "header", name: "X-Shop-Key" } },
      schemas: {
        Item: {
          type: "object",
          required: ["id", "name"],
          properties: { id: { type: "string" }, name: { type: "string" }, verbose: { type: "boolean" } },
        },
      },
    },
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          summary: "Fetch one item",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" }, description: "Item id" },
            { name: "verbose", in: "query", schema: { type: "boolean" } },
            { name: "format", in: "query", schema: { type: "string", enum: ["short", "long"] } },
          ],
          responses: {
            200: {
              description: "The item",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
            },
            401: problem,
          },
        },
      },
      "/notes": {
        post: {
          operationId: "createNote",
          summary: "Create a note",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["text"],
                  properties: { text: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
                },
              },
            },
          },
          responses: {
            201: {
              description: "Created",
              content: {
                "application/json": {
                  schema: { type: "object", properties: { id: { type: "integer" }, text: { type: "string" } } },
                },
              },
            },
          },
        },
      },
      "/slow": {
        get: {
          operationId: "slowThing",
          summary: "Answers after a delay",
          parameters: [{ name: "ms", in: "query", required: true, schema: { type: "integer", minimum: 0 } }],
          responses: {
            200: {
              description: "Done",
              content: {
                "application/json": { schema: { type: "object", properties: { waited: { type: "integer" } } } },
              },
            },
          },
        },
      },
      "/broken": {
        get: {
          operationId: "broken",
          summary: "Always fails",
          responses: { 200: { description: "Never" }, 500: problem },
        },
      },
    },
  };
}

export async function startShopApi(key: string): Promise<ShopApi> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let notes = 0;
  const slowInFlight = new Map<number, number>();
  const slowPeak = new Map<number, number>();
  const gathering = new Map<number, { count: number; answers: (() => void)[] }>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://upstream");
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({
        method: request.method ?? "",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: request.headers,
        body,
      });
      const reply = (status: number, value: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(value));
      };
      if (request.headers["x-shop-key"] !== key) return reply(401, { error: "missing or wrong X-Shop-Key" });
      const item = /^\/items\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && item) {
        const id = decodeURIComponent(item[1] ?? "");
        return reply(200, { id, name: `Item ${id}`, verbose: url.searchParams.get("verbose") === "true" });
      }
      if (request.method === "POST" && url.pathname === "/notes") {
        return reply(201, { id: ++notes, text: (JSON.parse(body) as { text: string }).text });
      }
      if (request.method === "GET" && url.pathname === "/slow") {
        const ms = Number(url.searchParams.get("ms"));
        const inFlight = (slowInFlight.get(ms) ?? 0) + 1;
        slowInFlight.set(ms, inFlight);
        slowPeak.set(ms, Math.max(slowPeak.get(ms) ?? 0, inFlight));
        let answered = false;
        const answer = () => {
          if (answered) return;
          answered = true;
          clearTimeout(timer);
          timers.delete(timer);
          slowInFlight.set(ms, (slowInFlight.get(ms) ?? 1) - 1);
          reply(200, { waited: ms });
        };
        const timer = setTimeout(answer, ms);
        timers.add(timer);
        const gather = gathering.get(ms);
        if (gather) {
          gather.answers.push(answer);
          if (gather.answers.length >= gather.count) for (const pending of gather.answers.splice(0)) pending();
        }
        return;
      }
      if (request.method === "GET" && url.pathname === "/broken") return reply(500, { error: "kaput" });
      reply(404, { error: "no such route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api: ShopApi = {
    url,
    definition: JSON.stringify(shopDocument(url)),
    requests,
    slowPeak,
    slowInFlight,
    gatherSlow: (ms, count) => {
      gathering.set(ms, { count, answers: [] });
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}

/** Installs `shop` as service `id` on the host, sets its key and enables it (what most suites start from). */
export async function installShop(host: ApiHost, shop: ShopApi, key: string, id = "shop"): Promise<void> {
  const installed = await host.api("POST", "/services", { id, adapter: "openapi", definition: shop.definition });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("PATCH", `/services/${id}/secrets`, { shopKey: key })).status).toBe(200);
  expect((await host.api("POST", `/services/${id}/enabled`, { enabled: true })).status).toBe(200);
}
