import {
  AdapterError,
  type AdapterModule,
  type InvokeInput,
  type Logger,
  type ModuleSetupContext,
  type ServiceDefinition,
  type ServiceState,
  traceOutbound,
} from "@cyrnel/sdk";
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AccountSessions } from "./account-sessions.js";
import { type ConnectOptions, isUnauthorized, messageOf } from "./connect.js";
import { contentResult, joinedText } from "./content.js";
import { serviceDefinition } from "./definition.js";
import { readServiceDomain, readToolDomain, type ServiceDomain, type ToolDomain } from "./domain.js";
import { fetchListing } from "./listing.js";
import { connectTimeoutOf, DEFAULT_CONNECT_TIMEOUT_MS } from "./module-config.js";
import { isRecord } from "./records.js";
import { accountCredentials, httpCredentials, pinsAuthorization, secretEnv } from "./secrets.js";
import { ServiceSession } from "./session.js";
import { type McpTarget, parseTarget } from "./target.js";

const SILENT: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface ServiceRuntime {
  /** The service's own session. */
  session: ServiceSession;
  /** HTTP only: a session per connected account's access token (`account-sessions.ts`); none when a secret header pins `Authorization`. */
  accounts: AccountSessions | undefined;
  tools: Map<string, ToolDomain>;
  target: McpTarget;
}

/**
 * The MCP adapter: `generateDefinition` connects, lists and disconnects
 * (`listing.ts`, `definition.ts`); each enabled service keeps one session
 * (`session.ts`) that `invoke` sends `tools/call` over; results are shaped
 * by `content.ts`.
 */
export class McpAdapter implements AdapterModule {
  private readonly services = new Map<string, ServiceRuntime>();
  private logger: Logger = SILENT;
  /** The host's way to mark a service stale (absent on hosts without it). */
  private reportStale: ModuleSetupContext["reportStale"];
  private connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;

  async setup(context: ModuleSetupContext): Promise<void> {
    this.logger = context.logger;
    this.reportStale = context.reportStale?.bind(context);
    this.connectTimeoutMs = connectTimeoutOf(context.config);
  }

  /** Stops every session, and with it every stdio server this adapter started. */
  async teardown(): Promise<void> {
    const runtimes = [...this.services.values()];
    this.services.clear();
    await Promise.all(runtimes.map((runtime) => runtime.session.stop()));
  }

  async generateDefinition(input: string): Promise<ServiceDefinition> {
    const target = parseTarget(input);
    const listing = await fetchListing(target, this.connectTimeoutMs, (line) =>
      this.logger.info(line, { stream: "stderr", during: "install" }),
    );
    return serviceDefinition(target, listing);
  }

  async hydrateService(state: ServiceState): Promise<void> {
    const domain = readServiceDomain(state.adapterDomain);
    const tools = new Map<string, ToolDomain>();
    for (const [id, tool] of Object.entries(state.tools)) tools.set(id, readToolDomain(id, tool.adapterDomain));
    // Secret headers and query parameters have nowhere to go on stdio (no HTTP): they are ignored there.
    if (domain.target.transport === "stdio") {
      const session = this.newSession(state.id, domain, { secretEnv: secretEnv(state.secrets) }, true);
      await this.replace(state.id, { session, accounts: undefined, tools, target: domain.target });
      return;
    }
    const credentials = httpCredentials(state.secrets, state.secretHeaders, state.secretQuery);
    const session = this.newSession(state.id, domain, { credentials }, true);
    const accounts = pinsAuthorization(state.secretHeaders)
      ? undefined
      : new AccountSessions((accessToken) =>
          this.newSession(state.id, domain, { credentials: accountCredentials(credentials, accessToken) }, false),
        );
    await this.replace(state.id, { session, accounts, tools, target: domain.target });
  }

  /** Replace, never merge: the previous sessions (older secrets) end first, so two never run at once. */
  private async replace(id: string, runtime: ServiceRuntime): Promise<void> {
    await this.dehydrateService(id);
    await runtime.session.start();
    this.services.set(id, runtime);
  }

  private newSession(
    serviceId: string,
    domain: ServiceDomain,
    connect: Omit<ConnectOptions, "timeoutMs" | "prepare" | "prefer" | "onStderrLine">,
    watchTools: boolean,
  ): ServiceSession {
    return new ServiceSession({
      serviceId,
      domain,
      connect: { timeoutMs: this.connectTimeoutMs, ...connect },
      logger: this.logger,
      watchTools,
      onToolsChanged: (reason) => {
        // The host marks the service stale (its tools refused until an operator updates it); told in the log too.
        this.logger.warn("MCP server's tools changed: update the service to pick them up", {
          service: serviceId,
          reason,
        });
        this.reportStale?.(serviceId, reason);
      },
    });
  }

  async dehydrateService(id: string): Promise<void> {
    const runtime = this.services.get(id);
    if (!runtime) return;
    this.services.delete(id);
    await Promise.all([runtime.session.stop(), runtime.accounts?.stop()]);
  }

  async invoke(input: InvokeInput): Promise<unknown> {
    const runtime = this.services.get(input.serviceId);
    if (!runtime) throw new Error(`Unknown service "${input.serviceId}": it is not enabled on the mcp adapter`);
    const tool = runtime.tools.get(input.toolId);
    if (!tool) throw new Error(`Unknown tool "${input.toolId}" on service "${input.serviceId}"`);
    // The request's span, a child of the tool call's; its traceparent goes with the HTTP request (stdio has none).
    const { target } = runtime;
    const span = traceOutbound(input, {
      protocol: "mcp",
      method: "tools/call",
      route: tool.name,
      ...(target.transport === "stdio" ? {} : { url: target.url }),
    });
    let result: Record<string, unknown>;
    try {
      result = await this.call(runtime, tool.name, input, span.headers);
      span.end(result.isError === true ? { error: new Error("the tool answered isError") } : {});
    } catch (error) {
      span.end({ error });
      if (input.signal?.aborted) throw new Error(`MCP tool "${tool.name}" was canceled`, { cause: error });
      // A JSON-RPC error (unknown tool, invalid arguments, …): its message already says it all.
      if (error instanceof McpError) throw new Error(`MCP server refused "${tool.name}": ${error.message}`);
      // The credentials were refused: with the status, so a host can refresh a connected account's token.
      if (isUnauthorized(error)) {
        throw new AdapterError(`MCP server refused "${tool.name}": ${messageOf(error)}`, { status: 401 });
      }
      throw error;
    }
    if (result.isError === true) {
      // The body is the tool's text, which the message already holds (the host then does not repeat it); code
      // reads it as `error.details.body`. Whitespace is collapsed as the host does when it compares the two.
      const text = joinedText(result.content).replace(/\s+/g, " ").trim();
      throw new AdapterError(`MCP tool "${tool.name}" failed: ${text === "" ? "(the tool gave no text)" : text}`, {
        ...(text === "" ? {} : { body: text }),
      });
    }
    if (!tool.structured) return contentResult(result);
    if (!isRecord(result.structuredContent)) {
      throw new Error(
        `MCP tool "${tool.name}" declares an output schema but returned no structuredContent: ${joinedText(result.content)}`,
      );
    }
    return result.structuredContent;
  }

  /** Over the session of the call's account when it has one (HTTP, no secret `Authorization`), else the service's. */
  private call(
    runtime: ServiceRuntime,
    name: string,
    input: InvokeInput,
    headers: Readonly<Record<string, string>>,
  ): Promise<CallToolResult> {
    if (input.accessToken !== undefined && runtime.accounts !== undefined) {
      return runtime.accounts.call(input.accessToken, name, input.parameters, input.signal, headers);
    }
    return runtime.session.call(name, input.parameters, input.signal, headers);
  }
}
