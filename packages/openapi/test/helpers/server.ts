import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the server saw it, bytes included. */
export interface Recorded {
  method: string;
  /** Raw request target: path and query exactly as sent. */
  target: string;
  path: string;
  /** Raw query string (without `?`), `""` when absent. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (request: Recorded, response: ServerResponse) => void;

export interface TestServer {
  url: string;
  requests: Recorded[];
  /** Replace the handler for the following requests. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(text);
}

/** A real HTTP server on 127.0.0.1 with a random port that records every request. */
export async function startServer(initial?: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  let handler: Handler = initial ?? ((_request, response) => json(response, 200, { ok: true }));
  const sockets = new Set<Socket>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const target = incoming.url ?? "";
      const index = target.indexOf("?");
      const recorded: Recorded = {
        method: incoming.method ?? "",
        target,
        path: index === -1 ? target : target.slice(0, index),
        query: index === -1 ? "" : target.slice(index + 1),
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      handler(recorded, response);
    });
  });
  // No idle timeout: with Node's default (5 s), a test that spends longer
  // than that between requests (installing a large document on a loaded
  // machine) races the server closing the pooled socket as the client
  // reuses it (ECONNRESET). Sockets are destroyed by `close()`.
  server.keepAliveTimeout = 0;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port that nothing listens on (a server was bound to it and closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
