/**
 * Process entry for `cyrnel start`: listen, log where, and shut down
 * gracefully on SIGINT/SIGTERM within CYRNEL_SHUTDOWN_TIMEOUT_MS.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createHost, type HostOptions } from "./app.js";
import type { HostConfig } from "./config.js";
import { HOST_VERSION } from "./version.js";

export interface RunningServer {
  port: number;
  close(): Promise<void>;
  /** Resolves (with why) when the host lost its cluster lease: close it and exit non-zero (see Host.lost). */
  lost: Promise<string>;
}

export async function startServer(config: HostConfig, options: HostOptions = {}): Promise<RunningServer> {
  const host = await createHost(config, options);
  const server = serve({ fetch: host.app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  host.logger.info("listening", {
    url: `http://${config.host}:${port}`,
    host: config.host,
    port,
    version: HOST_VERSION,
    ...("dir" in host.console && { console: `http://${config.host}:${port}/ui/` }),
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      host.logger.info("shutting down");
      server.close();
      if ("closeIdleConnections" in server) server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
      await Promise.race([host.stop(), deadline]);
      if ("closeAllConnections" in server) server.closeAllConnections();
      host.logger.info("stopped");
    })());
  return { port, close, lost: host.lost };
}
