import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP service on 127.0.0.1 that the fake host's tools call:
 * - `POST /echo`   → 200 with `{ received: <body> }`
 * - `POST /slow`   → waits `body.ms` milliseconds, then 200 `{ waited: ms }`
 * - `POST /fail`   → 500 `{ message: "upstream exploded" }`
 */
export interface ToolServer {
  url: string;
  /** Requests seen so far, by path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startToolServer(): Promise<ToolServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      const reply = (status: number, value: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(value));
      };
      if (path === "/echo") reply(200, { received: body });
      else if (path === "/slow") setTimeout(() => reply(200, { waited: body.ms }), Number(body.ms));
      else if (path === "/fail") reply(500, { message: "upstream exploded" });
      else reply(404, { message: "no such route" });
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
