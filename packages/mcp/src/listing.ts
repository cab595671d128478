import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Connection, connect } from "./connect.js";
import type { Listing } from "./definition.js";
import type { McpTarget } from "./target.js";

/**
 * Every page of `tools/list`, in order. Sent as plain requests rather than
 * `client.listTools()`, which also replaces the client's cache of output
 * validators with the last page's tools. A server that hands back a cursor
 * it already gave (or pages without end) is refused rather than followed.
 */
const MAX_PAGES = 1_000;

export async function listTools(client: Client, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      { timeout: timeoutMs },
    );
    tools.push(...(result.tools as Record<string, unknown>[]));
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error(`tools/list repeated the cursor ${JSON.stringify(cursor)}`);
    seen.add(cursor);
  }
  throw new Error(`tools/list did not end within ${MAX_PAGES} pages`);
}

/**
 * What `generateDefinition` needs from the server: connect, initialize, list
 * every page, disconnect. A stdio server started for this is stopped again.
 * Install has no secrets (the host gives them only at hydrate), so the
 * connection carries none.
 */
export async function fetchListing(target: McpTarget, timeoutMs: number, log: (line: string) => void) {
  const connection: Connection = await connect(target, { timeoutMs, onStderrLine: log });
  try {
    const server = connection.client.getServerVersion();
    if (server === undefined) throw new Error("the server did not say who it is (no serverInfo)");
    const instructions = connection.client.getInstructions();
    const listing: Listing = {
      server: {
        name: server.name,
        ...(typeof server.title === "string" && server.title !== "" ? { title: server.title } : {}),
        version: server.version,
      },
      ...(typeof instructions === "string" && instructions.trim() !== "" ? { instructions } : {}),
      tools: await listTools(connection.client, timeoutMs),
      ...(connection.http === undefined ? {} : { http: connection.http }),
    };
    return listing;
  } finally {
    await connection.close();
  }
}
