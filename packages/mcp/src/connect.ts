import { fetchFollowingRedirects, type OutboundRequest } from "@cyrnel/sdk";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { callHeaders } from "./call-headers.js";
import type { HttpFlavour } from "./domain.js";
import { childEnv } from "./env.js";
import type { HttpCredentials } from "./secrets.js";
import { ChildProcessTransport } from "./stdio-transport.js";
import type { McpTarget } from "./target.js";

/**
 * Stage 6: one initialized MCP client session to a target, over the right
 * transport: a child process for stdio; for http, Streamable HTTP first and
 * the legacy HTTP+SSE transport when that fails (or the other way round when
 * the install found the server speaking SSE). The client declares no
 * capabilities (no sampling, roots or elicitation): cyrnel only lists and
 * calls tools.
 */
export interface Connection {
  client: Client;
  /** For http: the transport that answered. */
  http?: HttpFlavour;
  /** Settles once the session is over (the server exited, the transport closed, or `close` was called). */
  ended: Promise<void>;
  /** Why the session ended, for messages: the process's exit, or "closed". */
  endReason(): string;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** stdio: variables the service's secrets add. */
  secretEnv?: Record<string, string>;
  /** http: headers and OAuth from the service's secrets. */
  credentials?: HttpCredentials;
  /** http: which transport to try first. */
  prefer?: HttpFlavour;
  /** Bounds process start (or the HTTP exchange) plus `initialize`. */
  timeoutMs: number;
  /** stdio: each line the server writes to stderr. */
  onStderrLine?: (line: string) => void;
  /** Set on the client before `initialize`, so no notification is missed. */
  prepare?: (client: Client) => void;
}

/** Lines of a stdio server's stderr kept to explain a failed start. */
const STDERR_TAIL = 5;

/** How long closing an HTTP session waits for the server to acknowledge it. */
const TERMINATE_MS = 2_000;

const CLIENT_INFO = { name: "cyrnel", version: "1" };

function newClient(options: ConnectOptions): Client {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  options.prepare?.(client);
  return client;
}

/** Wires a client to a transport and initializes it; on failure everything it started is stopped. */
async function open(client: Client, transport: Transport, timeoutMs: number): Promise<{ ended: Promise<void> }> {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const previous = client.onclose;
  client.onclose = () => {
    previous?.();
    end();
  };
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  // Wrapped: an async function returning the promise itself would wait for the session to end.
  return { ended };
}

export async function connect(target: McpTarget, options: ConnectOptions): Promise<Connection> {
  if (target.transport === "stdio") return connectStdio(target, options);
  const order: HttpFlavour[] = options.prefer === "sse" ? ["sse", "streamable"] : ["streamable", "sse"];
  const failures: string[] = [];
  for (const flavour of order) {
    const client = newClient(options);
    const transport = httpTransport(flavour, new URL(target.url), options.credentials);
    try {
      const { ended } = await open(client, transport, options.timeoutMs);
      return {
        client,
        http: flavour,
        ended,
        endReason: () => "the HTTP session closed",
        close: async () => {
          // Streamable HTTP: ask the server to drop the session (DELETE), so it frees what it keeps for it.
          if (transport instanceof StreamableHTTPClientTransport) await bounded(transport.terminateSession());
          await client.close();
        },
      };
    } catch (error) {
      failures.push(`${flavour === "sse" ? "HTTP+SSE" : "Streamable HTTP"}: ${messageOf(error)}`);
    }
  }
  throw new Error(`cannot connect to the MCP server at ${target.url} (${failures.join("; ")})`);
}

function httpTransport(flavour: HttpFlavour, url: URL, credentials: HttpCredentials | undefined): Transport {
  const requestInit: RequestInit = { headers: credentials?.headers ?? {} };
  const authProvider =
    credentials?.oauth &&
    new ClientCredentialsProvider({
      clientId: credentials.oauth.clientId,
      clientSecret: credentials.oauth.clientSecret,
      expectedIssuer: credentials.oauth.issuer,
      ...(credentials.oauth.scope === undefined ? {} : { scope: credentials.oauth.scope }),
    });
  // Redirects follow the rules every adapter shares (the SDK's fetchFollowingRedirects): never across origins, so
  // headers carrying secrets do not reach another host — for the session's requests and the OAuth token requests.
  const common = {
    requestInit,
    fetch: withinOrigin,
    redirectPolicy: "same-origin" as const,
    ...(authProvider ? { authProvider } : {}),
  };
  return flavour === "sse" ? new SSEClientTransport(url, common) : new StreamableHTTPClientTransport(url, common);
}

/** The transports' `fetch`: one HTTP exchange under the shared redirect rules (cross-origin redirects refused). */
function withinOrigin(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const { method = "GET", headers, body, signal } = init;
  const sent = new Headers(headers);
  // The call's trace headers, on the requests sent for it (a session's own GET stream is no call's).
  if (method === "POST")
    for (const [name, value] of Object.entries(callHeaders.getStore() ?? {})) sent.set(name, value);
  return fetchFollowingRedirects(
    String(url),
    {
      method,
      headers: sent,
      ...(body === undefined || body === null ? {} : { body: body as OutboundRequest["body"] }),
      ...(signal ? { signal } : {}),
    },
    { label: `${method} ${new URL(String(url)).origin}`, allowHint: "an MCP server's redirects stay on its origin" },
  );
}

async function connectStdio(target: Extract<McpTarget, { transport: "stdio" }>, options: ConnectOptions) {
  const tail: string[] = [];
  const transport = new ChildProcessTransport({
    command: target.command,
    args: target.args,
    env: childEnv(target.env, options.secretEnv ?? {}),
    onStderrLine: (line) => {
      tail.push(line);
      if (tail.length > STDERR_TAIL) tail.shift();
      options.onStderrLine?.(line);
    },
  });
  const client = newClient(options);
  try {
    const { ended } = await open(client, transport, options.timeoutMs);
    return {
      client,
      ended,
      endReason: () => `the server process ${transport.exitReason ?? "closed its streams"}`,
      close: () => client.close(),
    };
  } catch (error) {
    const exit = transport.exitReason === undefined ? "" : ` (the process ${transport.exitReason})`;
    const stderr = tail.length === 0 ? "" : `; its stderr ended with: ${tail.join(" | ")}`;
    throw new Error(`cannot start the MCP server "${target.command}": ${messageOf(error)}${exit}${stderr}`);
  }
}

/** Waits for `promise` (its failure ignored) at most `TERMINATE_MS`: a server that does not answer is left. */
async function bounded(promise: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, TERMINATE_MS);
  });
  await Promise.race([promise.catch(() => {}), timeout]);
  clearTimeout(timer);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
