import type { Logger } from "@cyrnel/sdk";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { callHeaders } from "./call-headers.js";
import { type Connection, type ConnectOptions, connect, messageOf } from "./connect.js";
import { toolsDigest } from "./definition.js";
import type { ServiceDomain } from "./domain.js";
import { listTools } from "./listing.js";

/**
 * One MCP session per enabled service, shared by all its concurrent calls.
 *
 * Failure model, before any code:
 *
 * - The session can end at any time: a stdio server exits or is killed, an
 *   HTTP server restarts and forgets the session. A call in flight then
 *   fails (it may have had effects, so it is never repeated); the session is
 *   opened again at once, and calls that arrive meanwhile wait for it.
 * - Opening can fail (command missing, server down): attempts are then
 *   spaced by a backoff (0.5 s, doubling, at most 30 s) until one succeeds
 *   or the service is stopped, and calls that arrive between attempts fail
 *   at once with the last error instead of queueing behind a dead server.
 *   A session that stayed up for `STABLE_MS` resets the backoff.
 * - An HTTP server that no longer knows the session answers a request with
 *   400 or 404, and a stopped one refuses the connection: those requests
 *   provably did not reach a tool, so they are sent again, once, over a new
 *   session.
 * - Calls are bounded by the caller's signal only (the host's invoke
 *   timeout and the run's end), never by a clock of this adapter's own:
 *   aborting it sends `notifications/cancelled` for the request.
 * - The server's tool list is compared with the one installed when a
 *   session opens and on `notifications/tools/list_changed`; a difference
 *   is reported through `onToolsChanged` (the service should be updated).
 */
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const STABLE_MS = 10_000;
/** The SDK's per-request timer cannot be switched off; this is its longest (setTimeout's 2^31−1 ms). */
const NO_TIMEOUT = 2_147_483_647;
/** Notifications of a changed tool list coming in a burst are checked once. */
const LIST_CHANGED_DEBOUNCE_MS = 200;

export interface SessionOptions {
  serviceId: string;
  domain: ServiceDomain;
  connect: Omit<ConnectOptions, "prepare" | "prefer" | "onStderrLine">;
  logger: Logger;
  onToolsChanged: (reason: string) => void;
  /**
   * Compare the server's tool list with the installed one (default true). A connected account's session does not:
   * the service's own session watches the list, and a server may show each account a list of its own.
   */
  watchTools?: boolean;
}

type State =
  | { kind: "connecting"; ready: Promise<Connection> }
  | { kind: "open"; connection: Connection; since: number }
  | { kind: "waiting"; error: Error; retryAt: number; timer: NodeJS.Timeout }
  | { kind: "stopped" };

export class ServiceSession {
  private state: State = { kind: "stopped" };
  private failures = 0;
  private stopping = false;
  private listTimer: NodeJS.Timeout | undefined;
  /** The changed tool list last reported, so a reconnect does not report it again. */
  private reportedDigest: string | undefined;

  constructor(private readonly options: SessionOptions) {}

  /** Opens the first session; rejects (and stops) when it cannot, so enabling the service fails with the reason. */
  async start(): Promise<void> {
    this.stopping = false;
    try {
      await this.open().ready;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.listTimer);
    const state = this.state;
    this.state = { kind: "stopped" };
    if (state.kind === "waiting") clearTimeout(state.timer);
    if (state.kind === "open") await state.connection.close();
    if (state.kind === "connecting") await state.ready.then((c) => c.close()).catch(() => {});
  }

  /** `tools/call` over the shared session; `headers` go with its HTTP requests (an HTTP server's). */
  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<CallToolResult> {
    const send = async (connection: Connection) =>
      (await callHeaders.run(headers, () =>
        connection.client.callTool({ name, arguments: args }, CallToolResultSchema, {
          timeout: NO_TIMEOUT,
          ...(signal ? { signal } : {}),
        }),
      )) as CallToolResult;
    const connection = await this.connection(signal);
    try {
      return await send(connection);
    } catch (error) {
      if (!undelivered(error) || signal?.aborted) throw error;
      this.options.logger.info("MCP session lost before the call reached the server; sending it again", {
        service: this.options.serviceId,
        tool: name,
        error: messageOf(error),
      });
      this.drop(connection);
      return await send(await this.connection(signal));
    }
  }

  /** The open session, or the one being opened. */
  private async connection(signal: AbortSignal | undefined): Promise<Connection> {
    signal?.throwIfAborted();
    const state = this.state;
    switch (state.kind) {
      case "open":
        return state.connection;
      case "connecting":
        return abortable(state.ready, signal);
      case "waiting": {
        const seconds = Math.max(1, Math.ceil((state.retryAt - Date.now()) / 1000));
        throw new Error(`the MCP server is unavailable (${state.error.message}); next attempt in ${seconds} s`, {
          cause: state.error,
        });
      }
      case "stopped":
        throw new Error(`service "${this.options.serviceId}" is not running on the mcp adapter`);
    }
  }

  private open(): Extract<State, { kind: "connecting" }> {
    const { serviceId, domain, logger } = this.options;
    const ready = connect(domain.target, {
      ...this.options.connect,
      ...(domain.http === undefined ? {} : { prefer: domain.http }),
      onStderrLine: (line) => logger.info(line, { service: serviceId, stream: "stderr" }),
      prepare: (client) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolsMayHaveChanged()),
    });
    const state = { kind: "connecting" as const, ready };
    this.state = state;
    ready.then(
      (connection) => {
        if (this.state !== state) {
          void connection.close();
          return;
        }
        this.state = { kind: "open", connection, since: Date.now() };
        logger.info("MCP session open", { service: serviceId, ...(connection.http ? { http: connection.http } : {}) });
        void connection.ended.then(() => this.ended(connection));
        if (this.options.watchTools !== false) this.checkTools(connection, "when the session opened");
      },
      (error: Error) => {
        if (this.state !== state) return;
        this.failures++;
        const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** (this.failures - 1));
        logger.error("MCP session could not be opened", { service: serviceId, error: error.message, retryMs: delay });
        if (this.stopping) return;
        const timer = setTimeout(() => {
          if (this.state.kind === "waiting" && this.state.timer === timer) this.open();
        }, delay);
        this.state = { kind: "waiting", error, retryAt: Date.now() + delay, timer };
      },
    );
    return state;
  }

  /** A session ended by itself: open another one at once (a backoff applies if that fails). */
  private ended(connection: Connection): void {
    const state = this.state;
    if (state.kind !== "open" || state.connection !== connection || this.stopping) return;
    if (Date.now() - state.since >= STABLE_MS) this.failures = 0;
    this.options.logger.warn("MCP session ended; reconnecting", {
      service: this.options.serviceId,
      reason: connection.endReason(),
    });
    this.open();
  }

  /** Drops a session a call found dead (if it still is the current one) and opens another. */
  private drop(connection: Connection): void {
    const state = this.state;
    if (state.kind === "open" && state.connection === connection) {
      this.open();
      // Not awaited: the call waits for the new session, not for the dead one's goodbye.
      void connection.close().catch(() => {});
    }
  }

  private toolsMayHaveChanged(): void {
    if (this.options.watchTools === false) return;
    clearTimeout(this.listTimer);
    this.listTimer = setTimeout(() => {
      if (this.state.kind === "open") this.checkTools(this.state.connection, "after notifications/tools/list_changed");
    }, LIST_CHANGED_DEBOUNCE_MS);
  }

  private checkTools(connection: Connection, when: string): void {
    listTools(connection.client, BACKOFF_MAX_MS).then(
      (tools) => {
        const digest = toolsDigest(tools);
        const matches = digest === this.options.domain.toolsDigest;
        this.options.logger.debug("MCP tool list checked", { service: this.options.serviceId, when, matches });
        // Said once per new list, not at every reconnect.
        if (matches || digest === this.reportedDigest) return;
        this.reportedDigest = digest;
        this.options.onToolsChanged(`the server's tools differ from the installed ones (${when})`);
      },
      (error: Error) =>
        this.options.logger.warn("MCP tools/list failed", { service: this.options.serviceId, error: error.message }),
    );
  }
}

/**
 * Whether a failed request provably never reached a tool: the HTTP server
 * refused it for its session (400/404, e.g. after a restart), the connection
 * was refused, or the stdio process was already gone when it was sent.
 */
function undelivered(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404 || error.code === 400;
  if (!(error instanceof Error)) return false;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (error.message === "fetch failed" && cause?.code === "ECONNREFUSED") return true;
  return error.message === "the MCP server process is not running";
}

/** `promise`, or its caller's abort first (the promise itself goes on). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
