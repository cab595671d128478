/**
 * The host built in the test process (`createHost`, what `cyrnel start`
 * runs) on a temporary data directory, driven through `app.request()`: no
 * spawned binary, no port. For suites that install large real documents,
 * where a child process only adds the cost of sending them over a socket.
 * Built-ins are the openapi adapter alone (no sandbox process starts);
 * every JSON response is checked against its declared schema.
 */
import * as openapi from "@cyrnel/openapi";
import { createHost, type Host } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { type ApiResponse, tempDir } from "./host.js";

export class InProcessHost {
  constructor(
    readonly host: Host,
    readonly dataDir: string,
  ) {}

  async api<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: {} };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const response = await this.host.app.request(path, init);
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("json") && text !== "";
    return { status: response.status, body: (json ? JSON.parse(text) : text) as T, text, headers: response.headers };
  }

  stop(): Promise<void> {
    return this.host.stop();
  }
}

export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessHost> {
  const dataDir = tempDir();
  const config = loadConfig({ CYRNEL_DATA_DIR: dataDir, ...env });
  const host = await createHost(config, {
    logger: createLogger("silent"),
    builtins: [openapi],
    validateResponses: true,
  });
  return new InProcessHost(host, dataDir);
}
