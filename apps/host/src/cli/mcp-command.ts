/**
 * `cyrnel mcp`: the MCP tools over stdio, for desktop MCP clients that
 * start a command. It talks to a running host over HTTP. stdout carries
 * only the MCP protocol; every message of this command goes to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ApiError, CyrnelApi } from "../client/api-client.js";
import { messageOf } from "../errors.js";
import { hostAccess } from "../mcp/host-access.js";
import { createMcpServer } from "../mcp/mcp-server.js";
import { parseCommand, positionals } from "./args.js";
import { clientSettings, mcpWaitSetting } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { note } from "./output.js";

const USAGE = "cyrnel mcp [--url <url>] [--api-key <key>] [--wait-ms <ms>]";

export const MCP_HELP = `Usage:
  ${USAGE}

Serves cyrnel's MCP tools (list_services, search_tools, get_tool_docs, get_types, run_code, get_process,
kill_process, list_processes) over stdio, for MCP clients that start a command. Talks to a running host at --url
(default CYRNEL_URL, else http://127.0.0.1:9371) with --api-key (default CYRNEL_API_KEY). Logs go to stderr.

  --wait-ms <ms>   longest a run_code or get_process call waits for a process before it answers that the
                   process is still running (default CYRNEL_MCP_WAIT_MS, else 50000; keep it below the
                   client's own timeout for a call, commonly 60 s)`;

export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals: given } = parseCommand(args, { "wait-ms": { type: "string" } });
  if (values.help) {
    // stdout is free here: the protocol has not started.
    process.stdout.write(`${MCP_HELP}\n`);
    return EXIT.ok;
  }
  positionals(given, [], USAGE);
  const settings = clientSettings(values);
  const waitMs = mcpWaitSetting(values["wait-ms"]);
  const api = new CyrnelApi(settings.url, settings.apiKey);
  // Not fatal: the client shows the tools now, and calls answer "unreachable" until the host is up.
  await api.json("GET", "/health").then(
    () => note(`cyrnel mcp: serving over stdio for ${api.url}`),
    (error) => note(`cyrnel mcp: warning: ${error instanceof ApiError ? error.message : messageOf(error)}`),
  );

  const server = createMcpServer(hostAccess(api), {
    waitMs,
    onUnexpectedError: (tool, error) => note(`cyrnel mcp: ${tool} failed: ${messageOf(error)}`),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    // The client ends the session by closing our stdin.
    process.stdin.once("end", () => void server.close());
  });
  await server.connect(transport);
  await closed;
  return EXIT.ok;
}
