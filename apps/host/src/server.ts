/**
 * Process entry for `cyrnel start`: listen, log where, and shut down
 * gracefully on SIGINT/SIGTERM within CYRNEL_SHUTDOWN_TIMEOUT_MS.
 *
 * Connections are admitted within the host's descriptor budget
 * (lib/descriptors.ts): the listening socket is a plain TCP server that
 * hands each connection to the HTTP server while there is room, keeps a few
 * more for `GET /health` alone, and past that answers `503` and closes the
 * connection at once, so a flood of connections never takes the descriptors
 * that `/health`, database connections and tool calls need.
 */
import { createServer as createHttpServer, get as httpGet, type IncomingMessage } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import type { Logger } from "@cyrnel/sdk";
import { getRequestListener } from "@hono/node-server";
import { createHost, type HostOptions } from "./app.js";
import type { HostConfig } from "./config.js";
import { messageOf } from "./errors.js";
import { HEALTH_RESERVE } from "./lib/descriptors.js";
import { HOST_VERSION } from "./version.js";

export interface RunningServer {
  port: number;
  close(): Promise<void>;
  /** Resolves (with why) when the host lost its cluster lease: close it and exit non-zero (see Host.lost). */
  lost: Promise<string>;
  /** Disables a custom module whose code threw outside any call (process-guard.ts `guardUncaught`). */
  disableModule(id: string, reason: string): void;
}

export async function startServer(config: HostConfig, options: HostOptions = {}): Promise<RunningServer> {
  const host = await createHost(config, options);
  const cap = host.descriptors?.connections ?? Number.POSITIVE_INFINITY;
  /** Connections admitted past the cap: they may ask `GET /health` and nothing else. */
  const healthOnly = new WeakSet<Socket>();
  const http = createHttpServer(
    getRequestListener((request, env) =>
      healthOnly.has((env.incoming as IncomingMessage).socket) && new URL(request.url).pathname !== "/health"
        ? busy()
        : host.app.fetch(request, env),
    ),
  );
  let open = 0;
  const server = createTcpServer((socket) => {
    if (open >= cap + HEALTH_RESERVE) {
      socket.end(BUSY_RESPONSE);
      socket.on("error", () => undefined);
      return;
    }
    if (open >= cap) healthOnly.add(socket);
    open++;
    socket.once("close", () => open--);
    http.emit("connection", socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
    server.listen(config.port, config.host);
  });
  const port = (server.address() as AddressInfo).port;
  // An unspecified address (0.0.0.0, ::) is not one a browser can be sent back to: loopback stands in for it.
  const reachable = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const origin = `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
  host.listening(origin);
  await answersItself(origin, host.logger);
  host.logger.info("listening", {
    url: `http://${config.host}:${port}`,
    host: config.host,
    port,
    pid: process.pid,
    version: HOST_VERSION,
    ...("dir" in host.console && { console: `http://${config.host}:${port}/ui/` }),
    ...(host.descriptors && {
      openFileLimit: host.descriptors.limit,
      maxConnections: host.descriptors.connections,
      maxFollowers: host.descriptors.followers,
    }),
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      host.logger.info("shutting down");
      server.close();
      http.close();
      http.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
      await Promise.race([host.stop(), deadline]);
      http.closeAllConnections();
      host.logger.info("stopped");
    })());
  const disableModule = (id: string, reason: string) => {
    host.modules
      .setEnabled(id, false)
      .then(() => host.logger.warn("custom module disabled: its code threw outside any call", { module: id, reason }))
      .catch((error) =>
        host.logger.error("could not disable a module whose code threw", { module: id, error: messageOf(error) }),
      );
  };
  return { port, close, lost: host.lost, disableModule };
}

/**
 * Before the host says it listens, it asks itself `GET /health` over a real connection (closed after): the
 * request path through Node's parser, the middlewares and the router is compiled then, not on a client's first
 * request (measured: ~30 ms of a restarted host's first answer). A failure is only logged; `/health` says more.
 */
async function answersItself(origin: string, logger: Pick<Logger, "warn">): Promise<void> {
  const failure = await new Promise<string | null>((resolve) => {
    const request = httpGet(`${origin}/health`, { agent: false, headers: { connection: "close" }, timeout: 5_000 });
    request.once("response", (response) => {
      response.resume();
      response.once("end", () => resolve(null));
      response.once("error", (error) => resolve(error.message));
    });
    request.once("timeout", () => request.destroy(new Error("no answer within 5 s")));
    request.once("error", (error) => resolve(error.message));
  });
  if (failure !== null) logger.warn("the host could not ask its own GET /health", { error: failure });
}

const BUSY_BODY = JSON.stringify({
  error: "the host serves as many connections as its open-file limit (ulimit -n) allows; try again shortly",
  code: "at_capacity",
});

/** Written on a connection past the cap, before any request is read: the whole answer, then the end. */
const BUSY_RESPONSE =
  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\n" +
  `Connection: close\r\nContent-Length: ${Buffer.byteLength(BUSY_BODY)}\r\n\r\n${BUSY_BODY}`;

function busy(): Response {
  return new Response(BUSY_BODY, {
    status: 503,
    headers: { "content-type": "application/json; charset=utf-8", "retry-after": "1", connection: "close" },
  });
}
