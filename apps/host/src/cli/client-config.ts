/**
 * Where the client commands find the host, and how long `cyrnel mcp` waits
 * for a process. The server reads its variables in src/config.ts; the
 * client side of the same bin reads its own here (flags win over the
 * environment).
 */
import { ConfigError, mcpWaitMs } from "../config.js";
import { UsageError } from "./args.js";

export const DEFAULT_URL = "http://127.0.0.1:9371";

export interface ClientSettings {
  url: string;
  apiKey: string | null;
}

export function clientSettings(
  flags: { url?: string; "api-key"?: string },
  env: Record<string, string | undefined> = process.env,
): ClientSettings {
  const url = (flags.url ?? env.CYRNEL_URL)?.trim() || DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid host URL "${url}" (--url or CYRNEL_URL)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`the host URL must be http or https, got "${url}"`);
  }
  const apiKey = (flags["api-key"] ?? env.CYRNEL_API_KEY)?.trim();
  return { url, apiKey: apiKey ? apiKey : null };
}

/** `cyrnel mcp`'s wait budget: `--wait-ms`, else CYRNEL_MCP_WAIT_MS, parsed as the host parses its own. */
export function mcpWaitSetting(
  flag: string | undefined,
  env: Record<string, string | undefined> = process.env,
): number {
  try {
    return flag === undefined
      ? mcpWaitMs(env.CYRNEL_MCP_WAIT_MS?.trim() || undefined)
      : mcpWaitMs(flag.trim(), "--wait-ms");
  } catch (error) {
    throw error instanceof ConfigError ? new UsageError(error.message) : error;
  }
}
