/**
 * `cyrnel mcp`: the MCP tools over stdio, for desktop MCP clients that
 * start a command. It talks to a running host over HTTP. stdout carries
 * only the MCP protocol; every message of this command goes to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { messageOf } from "../errors.js";
import { hostAccess } from "../mcp/host-access.js";
import { createMcpServer } from "../mcp/mcp-server.js";
import { ApiError, CyrnelApi } from "./api-client.js";
import { parseCommand, positionals } from "./args.js";
import { clientSettings } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { note } from "./output.js";

export const MCP_HELP = `Usage:
  cyrnel mcp [--url <url>] [--api-key <key>]

Serves cyrnel's MCP tools (list_services, search_tools, get_tool_docs, get_types, run_code, get_process)
over stdio, for MCP clients that start a command. Talks to a running host at --url (default CYRNEL_URL,
else http://127.0.0.1:9371) with --api-key (default CYRNEL_API_KEY). Logs go to stderr.`;

export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals: given } = parseCommand(args, {});
  if (values.help) {
    // stdout is free here: the protocol has not started.
    process.stdout.write(`${MCP_HELP}\n`);
    return EXIT.ok;
  }
  positionals(given, [], "cyrnel mcp [--url <url>] [--api-key <key>]");
  const settings = clientSettings(values);
  const api = new CyrnelApi(settings.url, settings.apiKey);
  // Not fatal: the client shows the tools now, and calls answer "unreachable" until the host is up.
  await api.json("GET", "/health").then(
    () => note(`cyrnel mcp: serving over stdio for ${api.url}`),
    (error) => note(`cyrnel mcp: warning: ${error instanceof ApiError ? error.message : messageOf(error)}`),
  );

  const server = createMcpServer(hostAccess(api), {
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
