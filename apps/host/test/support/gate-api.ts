/**
 * An HTTP API whose one operation waits until the test lets it through, so a
 * program can be kept running for exactly as long as a test needs, without
 * sleeps: `await cyrnel.services.gate.tools.pass.invoke({ name: "a" })`
 * answers once the test calls `open("a")` (at once if it already did).
 *
 * - `GET /gates/{name}` → 200 `{ "passed": name }` once gate `name` is open
 *
 * `waiting()` counts the requests held at a gate whose connection is still
 * open: a client that gives up (aborts its request) leaves the count.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ApiHost } from "./host.js";

export interface GateApi {
  url: string;
  /** The OpenAPI 3.0 document, as the text given to `POST /services`. */
  definition: string;
  /** Lets every request to gate `name` through, now and later. */
  open(name: string): void;
  /** Requests that reached a closed gate and whose connection is still open. */
  waiting(): number;
  /** Requests that reached any gate so far. */
  arrived(): number;
  close(): Promise<void>;
}

export async function startGateApi(): Promise<GateApi> {
  const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  const gate = (name: string) => {
    let entry = gates.get(name);
    if (!entry) {
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      entry = { opened, open };
      gates.set(name, entry);
    }
    return entry;
  };

  let waiting = 0;
  let arrived = 0;
  const server = createServer((request, response) => {
    const match = /^\/gates\/([^/?]+)$/.exec(request.url ?? "");
    if (request.method !== "GET" || !match) {
      response.writeHead(404).end();
      return;
    }
    const name = decodeURIComponent(match[1]!);
    arrived++;
    waiting++;
    let counted = true;
    const leave = () => {
      if (counted) waiting--;
      counted = false;
    };
    response.once("close", leave);
    void gate(name).opened.then(() => {
      leave();
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ passed: name }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const document = {
    openapi: "3.0.3",
    info: { title: "Gate", version: "1.0.0" },
    servers: [{ url }],
    paths: {
      "/gates/{name}": {
        get: {
          operationId: "pass",
          summary: "Answers once the gate is open",
          parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            200: {
              description: "Passed",
              content: {
                "application/json": { schema: { type: "object", properties: { passed: { type: "string" } } } },
              },
            },
          },
        },
      },
    },
  };
  return {
    url,
    definition: JSON.stringify(document),
    open: (name) => gate(name).open(),
    waiting: () => waiting,
    arrived: () => arrived,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Installs the gate as the enabled service `gate` of `host`; throws with the host's answer if it was not installed. */
export async function installGate(host: ApiHost, gate: GateApi): Promise<void> {
  const installed = await host.api("POST", "/services", {
    id: "gate",
    adapter: "openapi",
    definition: gate.definition,
    enabled: true,
  });
  if (installed.status !== 201)
    throw new Error(`the gate service was not installed: ${installed.status} ${installed.text}`);
}
