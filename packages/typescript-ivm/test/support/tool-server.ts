import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP service on 127.0.0.1 that the fake host's tools call:
 * - `POST /echo`   → 200 with `{ received: <body> }`
 * - `POST /slow`   → waits `body.ms` milliseconds, then 200 `{ waited: ms }`
 * - `POST /fail`   → 500 `{ message: "upstream exploded" }`
 * - `POST /gather` → held until `body.size` gather requests are in flight, then all answer 200
 *                    `{ inFlight: size }`; each answers after `body.capMs` at the latest with the
 *                    count in flight at that moment (so calls that never overlap still end)
 */
export interface ToolServer {
  url: string;
  /** Requests seen so far, by path. */
  hits: Map<string, number>;
  /** Most `/gather` requests in flight at the same time so far. */
  gatherPeak(): number;
  close(): Promise<void>;
}

export async function startToolServer(): Promise<ToolServer> {
  const hits = new Map<string, number>();
  const gathered: ((inFlight: number) => void)[] = [];
  let gatherPeak = 0;
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
      else if (path === "/gather") {
        let answered = false;
        const answer = (inFlight: number) => {
          if (answered) return;
          answered = true;
          clearTimeout(cap);
          gathered.splice(gathered.indexOf(answer), 1);
          reply(200, { inFlight });
        };
        const cap = setTimeout(() => answer(gathered.length), Number(body.capMs));
        gathered.push(answer);
        gatherPeak = Math.max(gatherPeak, gathered.length);
        const count = gathered.length;
        if (count >= Number(body.size)) for (const held of [...gathered]) held(count);
      } else reply(404, { message: "no such route" });
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    gatherPeak: () => gatherPeak,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
