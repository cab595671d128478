/**
 * A misbehaving upstream on loopback for the hostile campaign: the API
 * behind the `files`, `keyed` and `huge` services, and the origin of
 * hostile downloads. It records the raw target of every request, so tests
 * can assert what reached it and what never did.
 *
 * - `GET /files/...`          → 200 `{"ok":true}`; `/admin/...` → 204 (must never be reached)
 * - `GET /items?key=`         → 400 echoing the request target in its status line and body (raw, decoded, lower case)
 * - `GET /dump`               → 200 with up to 200 MiB of JSON-ish bytes, written as fast as the reader takes them
 * - `GET /bomb.yaml`          → a YAML alias bomb; `GET /deep.json` → a schema nested 20,000 deep
 * - `GET /download/loop`      → redirects to itself forever
 * - `GET /download/file`      → redirects to `file:///etc/passwd`
 * - `GET /download/endless`   → a body that never ends
 * - `GET /download/drip…`     → one byte every 200 ms, forever (any path below too: a registry's well-known document)
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deepDefinition, yamlAliasBomb } from "./hostile-inputs.js";

const MiB = 1024 * 1024;

export interface HostileUpstream {
  url: string;
  /** `METHOD target` of every request received, target as sent on the wire. */
  received: string[];
  /** Bytes written by each `GET /dump` response, in order of arrival. */
  dumped: number[];
  close(): Promise<void>;
}

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const received: string[] = [];
  const dumped: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    const target = request.url ?? "/";
    received.push(`${request.method} ${target}`);
    request.resume();
    request.on("end", () => {
      const path = target.split("?")[0] ?? "";
      if (path.startsWith("/files/")) return json(response, 200, { ok: true });
      if (path.startsWith("/admin/")) return void response.writeHead(204).end();
      if (path === "/items") {
        const echo = { target, decoded: decodeURIComponent(target), lower: target.toLowerCase() };
        response.writeHead(400, `Bad ${target}`, { "content-type": "application/json" });
        return void response.end(JSON.stringify(echo));
      }
      if (path === "/dump") return pump(response, 200 * MiB, (written) => dumped.push(written));
      if (path === "/bomb.yaml") return text(response, "application/yaml", yamlAliasBomb());
      if (path === "/deep.json") return text(response, "application/json", deepDefinition());
      if (path === "/download/loop") return void response.writeHead(302, { location: "/download/loop" }).end();
      if (path === "/download/file") return void response.writeHead(302, { location: "file:///etc/passwd" }).end();
      if (path === "/download/endless") return pump(response, Number.POSITIVE_INFINITY);
      if (path.startsWith("/download/drip")) {
        response.writeHead(200, { "content-type": "application/json" });
        const timer = setInterval(() => response.write(" "), 200);
        timers.add(timer);
        response.on("close", () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      json(response, 404, { error: "no such route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    dumped,
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(value));
}

function text(response: ServerResponse, type: string, body: string): void {
  response.writeHead(200, { "content-type": type });
  response.end(body);
}

/** Writes `total` bytes in 1 MiB chunks as fast as the reader takes them; reports what was written when it ends. */
function pump(response: ServerResponse, total: number, done?: (written: number) => void): void {
  response.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.alloc(MiB, "x");
  let written = 0;
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    done?.(written);
  };
  const write = () => {
    while (written < total) {
      if (response.destroyed) return report();
      written += chunk.length;
      if (!response.write(chunk)) return void response.once("drain", write);
    }
    response.end();
    report();
  };
  response.on("close", () => {
    response.removeAllListeners("drain");
    report();
  });
  write();
}
