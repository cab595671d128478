import { isRecord, own, stringMap } from "./records.js";

/**
 * Stage 1: the definition text → where the MCP server is. The text is JSON:
 *
 * - `{"transport": "http", "url": "https://…/mcp"}` — Streamable HTTP, with
 *   the legacy HTTP+SSE transport (protocol 2024-11-05) as a fallback;
 * - `{"transport": "stdio", "command": "npx", "args": [...], "env"?: {...}}` —
 *   a child process of the host speaking JSON-RPC on stdin/stdout.
 *
 * Anything else is refused with a message naming the field: an unknown key
 * is more likely a typo (`"argv"`, `"environment"`) than something to ignore.
 * No secret belongs here — the text is stored in plaintext; secrets are set
 * on the service (see `secrets.ts`).
 */
export type McpTarget = HttpTarget | StdioTarget;

export interface HttpTarget {
  transport: "http";
  url: string;
}

export interface StdioTarget {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
}

const HTTP_KEYS = new Set(["transport", "url"]);
const STDIO_KEYS = new Set(["transport", "command", "args", "env"]);
/** Environment variable names as POSIX shells accept them. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const EXAMPLES =
  '{"transport":"http","url":"https://example.com/mcp"} or ' +
  '{"transport":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-memory"]}';

export function parseTarget(text: string): McpTarget {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`An MCP definition is JSON, e.g. ${EXAMPLES}: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new Error(`An MCP definition is a JSON object, e.g. ${EXAMPLES}`);
  const transport = own(value, "transport");
  if (transport === "http") return httpTarget(value);
  if (transport === "stdio") return stdioTarget(value);
  throw new Error(`"transport" must be "http" or "stdio", e.g. ${EXAMPLES}`);
}

function refuseUnknownKeys(value: Record<string, unknown>, known: Set<string>, transport: string): void {
  const unknown = Object.keys(value).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new Error(
      `unknown key ${unknown.map((key) => JSON.stringify(key)).join(", ")} in a "${transport}" definition ` +
        `(allowed: ${[...known].join(", ")})`,
    );
  }
}

function httpTarget(value: Record<string, unknown>): HttpTarget {
  refuseUnknownKeys(value, HTTP_KEYS, "http");
  const url = own(value, "url");
  if (typeof url !== "string") throw new Error(`an "http" definition needs "url", the server's MCP endpoint`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`"url" is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new Error(`"url" must be http or https, not ${parsed.protocol}`);
  }
  // Credentials in the URL would be stored and shown in plaintext: they belong in the service's secrets.
  if (parsed.username !== "" || parsed.password !== "") {
    throw new Error(`"url" must not carry a user name or password: set the service's secrets instead`);
  }
  return { transport: "http", url: parsed.href };
}

function stdioTarget(value: Record<string, unknown>): StdioTarget {
  refuseUnknownKeys(value, STDIO_KEYS, "stdio");
  const command = own(value, "command");
  if (typeof command !== "string" || command.trim() === "") {
    throw new Error(`a "stdio" definition needs "command", the program to start (e.g. "npx" or "node")`);
  }
  const args = own(value, "args") ?? [];
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
    throw new Error(`"args" must be an array of strings`);
  }
  const rawEnv = own(value, "env") ?? {};
  const env = stringMap(rawEnv);
  if (env === undefined) throw new Error(`"env" must map variable names to strings`);
  const badName = Object.keys(env).find((name) => !ENV_NAME.test(name));
  if (badName !== undefined) throw new Error(`"env" has an invalid variable name: ${JSON.stringify(badName)}`);
  if ([command, ...args, ...Object.values(env)].some((text) => text.includes("\0"))) {
    throw new Error(`"command", "args" and "env" must not contain NUL characters`);
  }
  return { transport: "stdio", command, args: args as string[], env };
}

/** How the target reads in a description or a log line (never a secret: those are not in the definition). */
export function describeTarget(target: McpTarget): string {
  if (target.transport === "http") return target.url;
  return [target.command, ...target.args].join(" ");
}
