import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * A Streamable HTTP MCP server in the test's process (the SDK's own `Server`
 * and server transport on node:http), for what credentials do on the wire:
 * it records every request (method, URL, headers), answers 401 to an
 * `Authorization` the test refuses, and its one tool, `whoami`, says which
 * `Authorization`, `X-Key` and query the call's request carried and which
 * session it came in. A call with `{"hold": true}` waits for the test to
 * release it (`hold`).
 */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface Whoami {
  authorization: string | null;
  xKey: string | null;
  query: string;
  session: string;
}

export interface AccountServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  requests: SeenRequest[];
  /** `Authorization` values answered with 401. */
  refused: Set<string>;
  /** Sessions open now. */
  open(): number;
  /** Ids of the sessions a client closed (`DELETE`). */
  closed: string[];
  /** Holds the next call made with `{"hold": true}`: `arrived` once it is in, answered at `release`. */
  hold(): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

const WHOAMI = { name: "whoami", description: "Who the server thinks calls.", inputSchema: { type: "object" } };

export async function startAccountServer(): Promise<AccountServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  const requests: SeenRequest[] = [];
  const refused = new Set<string>();
  const closed: string[] = [];
  let held: { arrive(): void; released: Promise<void> } | undefined;

  const newTransport = async () => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
        closed.push(id);
      },
    });
    const server = new Server({ name: "accounts", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [WHOAMI] }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      if (request.params.arguments?.hold === true && held !== undefined) {
        const gate = held;
        held = undefined;
        gate.arrive();
        await gate.released;
      }
      const headers = extra.requestInfo?.headers ?? {};
      const header = (name: string) => {
        const value = headers[name];
        return typeof value === "string" ? value : null;
      };
      const seen: Whoami = {
        authorization: header("authorization"),
        xKey: header("x-key"),
        query: extra.requestInfo?.url?.search ?? "",
        session: extra.sessionId ?? "",
      };
      return { content: [{ type: "text", text: JSON.stringify(seen) }] };
    });
    await server.connect(transport);
    return transport;
  };

  const http = createServer(async (request, response) => {
    requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
    const authorization = request.headers.authorization;
    if (authorization !== undefined && refused.has(authorization)) {
      response.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
      return;
    }
    const sessionId = request.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (sessionId !== undefined && known === undefined) {
      response.writeHead(404).end();
      return;
    }
    if (known === undefined && request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    await (known ?? (await newTransport())).handleRequest(request, response);
  });
  http.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    requests,
    refused,
    open: () => transports.size,
    closed,
    hold: () => {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      held = { arrive, released };
      return { arrived, release };
    },
    close: async () => {
      for (const transport of transports.values()) await transport.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
