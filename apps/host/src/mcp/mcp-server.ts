/**
 * The MCP tools of cyrnel, defined once over a HostAccess (the host's HTTP
 * API, reached in-process by `/mcp` and over the network by `cyrnel mcp`).
 * Descriptions are written for the model that reads them: when to use each
 * tool, and when not to. Input schemas are the tools' own arguments; the
 * structured output is picked from the API's shapes (tool-output.ts).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ApiError } from "../client/api-client.js";
import type { ToolRecord } from "../contract/tools.js";
import { readableText } from "../lib/plain-text.js";
import { HOST_VERSION } from "../version.js";
import type { HostAccess } from "./host-access.js";
import { registerProcessTools } from "./process-tools.js";
import { ServiceList, ToolList, type ToolSummary, toZod } from "./tool-output.js";
import { structured, text } from "./tool-results.js";

export const MCP_INSTRUCTIONS = `cyrnel calls external services (HTTP APIs and more) through typed tools, from TypeScript you write and it runs in a sandbox ("code mode"). One program can make many tool calls, loop, branch and combine results, so prefer ONE run_code call that does the whole task over many small steps.

Workflow:
1. list_services: what is installed and enabled.
2. search_tools: find the tools for the task (one tool per API operation).
3. get_tool_docs for each tool you will call (parameters, result shape, a snippet), or get_types with serviceIds or tools for typed declarations of several.
4. run_code with one program: \`const r = await cyrnel.services.<serviceId>.tools.<toolId>.invoke({ ... });\` ... \`cyrnel.output({ answer });\`
5. Read output, stdout, stderr and error. If it failed, fix the program and run it again. A text too long to show whole keeps its start and end around a marker saying how to read the rest (get_process with stream and offset). A run still going when run_code stops waiting answers state "running": follow it with get_process {id, wait: true}; kill_process stops one you no longer want. list_processes finds earlier runs.

Tools can only be called from code inside run_code. Disabled services or tools, missing configuration or secrets, and a missing environment can only be fixed by an operator of the host: report them instead of retrying.

Each tool has a policy (search_tools and get_tool_docs show it): allow, ask or deny. A call of an ask tool waits until an operator approves or denies it; the process is suspended meanwhile and its timeout paused, and the call then runs or throws approval_denied (with the operator's reason) or approval_expired. A deny tool always throws tool_denied. Do not retry denied calls; report them.`;

/** Tool descriptions in search results are cut here; get_tool_docs has the full text. */
const DESCRIPTION_CHARS = 300;

const SERVICE_LIST = toZod(ServiceList);
const TOOL_LIST = toZod(ToolList);

export interface McpServerOptions {
  /** The longest a call waits for a process before it answers that the process is still running. */
  waitMs: number;
  /** Called with errors that carry no API code (bugs); the tool answers a bare "internal error". */
  onUnexpectedError(tool: string, error: unknown): void;
}

export function createMcpServer(access: HostAccess, options: McpServerOptions): McpServer {
  const server = new McpServer({ name: "cyrnel", version: HOST_VERSION }, { instructions: MCP_INSTRUCTIONS });
  const guarded =
    <A extends unknown[]>(tool: string, run: (...args: A) => Promise<CallToolResult>) =>
    async (...args: A): Promise<CallToolResult> => {
      try {
        return await run(...args);
      } catch (error) {
        return toolError(tool, error, options);
      }
    };

  server.registerTool(
    "list_services",
    {
      title: "List services",
      description:
        "List the services installed in cyrnel (each is an external API turned into tools), with id, name, " +
        "description, whether it is enabled and how many tools it has. Call this first to learn what cyrnel can " +
        "reach. Only enabled services that are not stale can be called from code; report a disabled one to the " +
        "user instead of trying it. To find tools, use search_tools next.",
      outputSchema: SERVICE_LIST,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded("list_services", async () => {
      const services = (await access.listServices()).map(({ id, name, description, enabled, stale, toolCount }) => ({
        id,
        name,
        description,
        enabled,
        stale,
        toolCount,
      }));
      return structured({ services });
    }),
  );

  server.registerTool(
    "search_tools",
    {
      title: "Search tools",
      description:
        'Find tools (one per API operation) for a task, described in words ("refund a charge", "post a message ' +
        'to a channel") or by id or endpoint ("chat.postMessage", "POST /v1/refunds"), optionally within one ' +
        "service. Results are ranked (BM25 over id, name, description, endpoint and service), best first, and only " +
        "tools that can be called are returned unless includeDisabled is set. An empty query with a serviceId lists " +
        "that service's tools. Returns serviceId and id (used in code as " +
        "cyrnel.services.<serviceId>.tools.<id>.invoke(...)), name, a short description, effectivelyEnabled " +
        "(false: calls would fail) and policy (allow: calls run; ask: each call waits for an operator's approval; " +
        "deny: calls are refused). Calls nothing. Next, read get_tool_docs for the tools you will use.",
      inputSchema: {
        query: z.string().describe('Words describing the task, e.g. "forecast for a city"; "" for all'),
        serviceId: z.string().optional().describe("Only tools of this service"),
        includeDisabled: z
          .boolean()
          .optional()
          .describe("Also tools that are disabled or stale (they cannot be called; default false)"),
        limit: z.number().int().min(1).max(100).optional().describe("Most results to return (default 20)"),
      },
      outputSchema: TOOL_LIST,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded("search_tools", async ({ query, serviceId, includeDisabled, limit }) => {
      // A query without letters or digits searches nothing: it lists, like an empty one.
      const search = /[\p{L}\p{N}]/u.test(query) ? query : undefined;
      const tools = await access.listTools({ search, serviceId, includeDisabled, limit: limit ?? 20 });
      return structured({ tools: tools.map(toolSummary) });
    }),
  );

  server.registerTool(
    "get_tool_docs",
    {
      title: "Read a tool's documentation",
      description:
        "Markdown reference for one tool: what it does, its parameters (with constraints), the shape of its result, " +
        "the named types it uses (each once; those farther away by name only) and a copy-pasteable call snippet. " +
        "Read it for every tool before writing code that calls it. To see a type the page only names, call again " +
        "with expand set to its name (Input/Output: the whole parameter/result type). Error codes are explained " +
        "once, in the runtime reference.",
      inputSchema: {
        serviceId: z.string().describe("Service id, from list_services or search_tools"),
        toolId: z.string().describe("Tool id, from search_tools"),
        expand: z
          .string()
          .min(1)
          .optional()
          .describe("A type named on the page (e.g. Address, or Input/Output) to show in full"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded("get_tool_docs", async ({ serviceId, toolId, expand }) =>
      text(await access.toolDocs(serviceId, toolId, expand)),
    ),
  );

  server.registerTool(
    "get_types",
    {
      title: "Get TypeScript declarations",
      description:
        "TypeScript declarations (.d.ts) of the `cyrnel` object available to run_code, typed for the callable " +
        "tools (parameters and results; shared types declared once per service). Pass serviceIds or tools to get " +
        "only those; without them it covers every enabled service. An answer that would be too long is an index " +
        "(signatures with types by name) saying how to narrow it. For a few tools get_tool_docs is shorter.",
      inputSchema: {
        serviceIds: z.array(z.string()).optional().describe("Only the callable tools of these services"),
        tools: z
          .array(z.string())
          .optional()
          .describe('Only these tools, each "<serviceId>/<toolId>" (e.g. "weather/getForecast")'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded("get_types", async ({ serviceIds, tools }) => text(await access.types({ serviceIds, tools }))),
  );

  registerProcessTools(server, access, options.waitMs, guarded);
  // The tools are the same for every session and never change while it lasts: no client should wait for a
  // tools/list_changed (the SDK advertises one as soon as a tool is registered).
  server.server.registerCapabilities({ tools: { listChanged: false } });

  return server;
}

function toolSummary(tool: ToolRecord): ToolSummary {
  // As text: a list the agent chooses from, not the document's HTML (Stripe's descriptions are all HTML).
  const plain = readableText(tool.description);
  const description = plain.length > DESCRIPTION_CHARS ? `${plain.slice(0, DESCRIPTION_CHARS - 1)}…` : plain;
  return {
    serviceId: tool.serviceId,
    id: tool.id,
    name: tool.name,
    description,
    effectivelyEnabled: tool.effectivelyEnabled,
    policy: tool.policy,
    ...(tool.missingSecrets !== undefined && { missingSecrets: tool.missingSecrets }),
  };
}

/** What the agent can do about an error, where that is not obvious from the message. */
const HINTS: Record<string, string> = {
  no_environment: "No environment module is active on the host; an operator must enable one.",
  service_disabled: "The service is disabled or stale; an operator must enable or update it.",
  tool_disabled: "The tool is disabled; an operator must enable it.",
  payload_too_large: "Make the code smaller.",
  at_capacity: "The sandbox is busy and nothing was run: wait the seconds the message names, then call run_code again.",
  unreachable: "The cyrnel host is not running or not reachable at this address.",
  unauthorized: "The API key is missing or wrong (CYRNEL_API_KEY).",
};

function toolError(tool: string, error: unknown, options: McpServerOptions): CallToolResult {
  if (error instanceof ApiError) {
    const hint = HINTS[error.code];
    return {
      content: [{ type: "text", text: `${error.message} (code: ${error.code})${hint ? `\n${hint}` : ""}` }],
      isError: true,
    };
  }
  options.onUnexpectedError(tool, error);
  return { content: [{ type: "text", text: "internal error (code: internal)" }], isError: true };
}
