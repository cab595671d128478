import { AdapterError, fetchFollowingRedirects, type OutboundRequest } from "@cyrnel/sdk";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
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
  let unauthorized = false;
  for (const flavour of order) {
    const client = newClient(options);
    const transport = httpTransport(flavour, endpointOf(target.url, options.credentials), options.credentials);
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
      unauthorized ||= isUnauthorized(error);
      failures.push(`${flavour === "sse" ? "HTTP+SSE" : "Streamable HTTP"}: ${messageOf(error)}`);
    }
  }
  const message = `cannot connect to the MCP server at ${target.url} (${failures.join("; ")})`;
  // The server refused the credentials: said with the status, so a host can refresh an account's token.
  throw unauthorized ? new AdapterError(message, { status: 401 }) : new Error(message);
}

/** The endpoint with the service's secret query parameters in place of any of their names (messages show the URL without them). */
function endpointOf(url: string, credentials: HttpCredentials | undefined): URL {
  const endpoint = new URL(url);
  for (const [name, value] of Object.entries(credentials?.query ?? {})) endpoint.searchParams.set(name, value);
  return endpoint;
}

/**
 * The HTTP status an MCP transport failed with, when it says one: the Streamable HTTP and SSE transports' own
 * errors carry it, an SSE POST names it in its message; so does what wraps them (`cause`).
 */
export function httpStatusOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof AdapterError && current.status !== undefined) return current.status;
    if ((current instanceof StreamableHTTPError || current instanceof SseError) && (current.code ?? 0) >= 100) {
      return current.code;
    }
    const posted = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(current.message);
    if (posted) return Number(posted[1]);
  }
  return undefined;
}

/** Whether the server refused the request's credentials (401). */
export function isUnauthorized(error: unknown): boolean {
  return httpStatusOf(error) === 401;
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
