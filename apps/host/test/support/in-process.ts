/**
 * The host built inside the test process (`createHost`, what `cyrnel start`
 * runs) on a temporary data directory, driven through `app.request()`: no
 * spawned process, no port, every JSON response checked against its declared
 * schema. Built-ins default to the openapi adapter alone, so no sandbox
 * process starts; the fixture environment (`echo-env`) runs processes where a
 * suite needs them. `listen()` serves it on a real connection where a case
 * is about the connection. Suites that need a real process boundary (the
 * CLI, signals, restarts of the binary, module code that stops the host) use
 * `startHost` from host.ts instead.
 */
import type { AddressInfo } from "node:net";
import * as openapi from "@cyrnel/openapi";
import type { ModuleFactory } from "@cyrnel/sdk";
import { serve } from "@hono/node-server";
import { createHost, type Host } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { ConsoleBuild } from "../../src/http/console-assets.js";
import { createLogger } from "../../src/log.js";
import { databaseEnv } from "./database.js";
import { type ApiHost, type ApiResponse, apiRequest, installFixtureModule, readApiResponse, tempDir } from "./host.js";

export interface InProcessOptions {
  dataDir?: string;
  /** Fixture modules (folders under test/fixtures/modules) copied into the data dir before start. */
  modules?: string[];
  /** Environment variables, read by `loadConfig` as at a real start. */
  env?: Record<string, string>;
  builtins?: ModuleFactory[];
  /** The web console's build (default: the `@cyrnel/console` package's, as at a real start). */
  consoleBuild?: ConsoleBuild;
}

export class InProcessHost implements ApiHost {
  private stopped = false;
  private server: ReturnType<typeof serve> | undefined;

  constructor(
    readonly host: Host,
    readonly dataDir: string,
    readonly options: InProcessOptions,
    /** Every log line (JSON), for assertions on logs. */
    readonly output: string[],
  ) {}

  logs(): Record<string, unknown>[] {
    return this.output.map((line) => JSON.parse(line));
  }

  /** The raw response (streams, headers). */
  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return Promise.resolve(
      this.host.app.request(path, apiRequest(method, body, headers, this.host.config.apiKey ?? undefined)),
    );
  }

  async api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    return readApiResponse(await this.request(method, path, body, headers));
  }

  /** Serves the host on a free loopback port as `cyrnel start` does (server.ts); answers its base URL. */
  async listen(): Promise<string> {
    const server = serve({ fetch: this.host.app.fetch, hostname: "127.0.0.1", port: 0 });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.server?.close();
    if (this.server && "closeAllConnections" in this.server) this.server.closeAllConnections();
    await this.host.stop();
  }
}

export async function startInProcess(options: InProcessOptions = {}): Promise<InProcessHost> {
  const dataDir = options.dataDir ?? tempDir();
  for (const id of options.modules ?? []) installFixtureModule(dataDir, id);
  const output: string[] = [];
  const logger = createLogger("debug", { write: (line) => output.push(line.trimEnd()) });
  const config = loadConfig({ CYRNEL_DATA_DIR: dataDir, ...(await databaseEnv(dataDir, options.env)), ...options.env });
  const host = await createHost(config, {
    logger,
    builtins: options.builtins ?? [openapi],
    validateResponses: true,
    ...(options.consoleBuild && { consoleBuild: options.consoleBuild }),
  });
  return new InProcessHost(host, dataDir, options, output);
}

/** Stops the host and builds it again on the same data dir (an in-process restart: no process boundary). */
export async function rebuild(host: InProcessHost, overrides: InProcessOptions = {}): Promise<InProcessHost> {
  await host.stop();
  return startInProcess({ ...host.options, modules: [], ...overrides, dataDir: host.dataDir });
}
