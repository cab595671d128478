/**
 * `/mcp`: the MCP tools on the Streamable HTTP transport, inside the host.
 *
 * Stateless: every POST gets a fresh McpServer and transport, and nothing
 * outlives the request. Every tool is one request/response over data the
 * host already stores (processes have ids), so sessions would add memory to
 * expire and state a restart loses, for nothing. Responses are SSE streams,
 * which carry run_code's progress notifications and keep-alive comments
 * during long runs. Without sessions there is no server-to-client stream, so
 * GET (and DELETE) answer 405, as the transport specification allows.
 *
 * Mounted on the app, so the host's middleware (bearer auth, shutdown
 * refusal) applies; it is not a defineRoute route, so it is not in
 * /openapi.json (the README documents it). The tools reach the host through
 * its own HTTP API, handed to `app.fetch` without a socket: every request
 * carries the caller's Authorization header and passes the same routes,
 * validation and auth as one from outside.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Hono } from "hono";
import { CyrnelApi } from "../client/api-client.js";
import { messageOf } from "../errors.js";
import type { HostLogger } from "../log.js";
import { hostAccess } from "./host-access.js";
import { createMcpServer } from "./mcp-server.js";

export interface McpDeps {
  logger: HostLogger;
  /** Largest JSON-RPC request body (the host's CYRNEL_BODY_LIMIT_BYTES). */
  bodyLimitBytes: number;
  /** How long one call waits for a process (CYRNEL_MCP_WAIT_MS). */
  waitMs: number;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function mountMcp(app: Hono, deps: McpDeps): void {
  const logger = deps.logger.child({ component: "mcp" });

  app.all("/mcp", async (c) => {
    // The MCP transport specification asks servers to check Origin against DNS rebinding: a page served from
    // another origin must not reach a local host. Browsers send Origin; desktop and CLI clients do not.
    const origin = c.req.header("origin");
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      return rpcError(403, `origin ${origin} is not allowed`);
    }
    if (c.req.method !== "POST") {
      return rpcError(405, "method not allowed: this MCP endpoint is stateless and only accepts POST", {
        allow: "POST",
      });
    }
    const authorization = c.req.header("authorization");
    const api = new CyrnelApi(new URL(c.req.url).origin, null, {
      fetch: async (request) => {
        if (authorization !== undefined) request.headers.set("authorization", authorization);
        return app.fetch(request);
      },
    });
    const server = createMcpServer(hostAccess(api), {
      waitMs: deps.waitMs,
      onUnexpectedError: (tool, error) =>
        logger.error("MCP tool failed", {
          tool,
          error: messageOf(error),
          stack: error instanceof Error ? error.stack : undefined,
        }),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      maxRequestBodySize: deps.bodyLimitBytes,
    });
    // A client that goes away aborts in-flight tool handlers (run_code stops waiting; the process keeps running).
    const signal = c.req.raw.signal;
    const close = () => {
      signal.removeEventListener("abort", close);
      void server.close();
    };
    signal.addEventListener("abort", close, { once: true });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    // Once the answer is sent, the server goes and the listener with it: the request's signal outlives the request
    // on a kept-alive connection, and a listener left on it kept each request's server (~50 KB) for good.
    if (!response.body) {
      close();
      return response;
    }
    const body = response.body.pipeThrough(new TransformStream({ flush: close }));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  });
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
