import { dirname } from "node:path";

/**
 * The environment of a stdio server: only what the operator gave it.
 *
 * The child gets the definition's `env`, then the service's secret `env`
 * over it — and nothing from the host's own environment: no `CYRNEL_*`
 * settings, no secrets key, no cloud credentials, no `HOME`. (The MCP SDK's
 * own stdio transport copies `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM` and
 * `USER` from the parent; this adapter spawns the process itself for that
 * reason, see `stdio-transport.ts`.)
 *
 * One exception, because a server started as `npx …` or `node …` must be
 * found: when neither gives `PATH`, the child gets a fixed, minimal one —
 * the directory of the Node.js binary running the host, then
 * `/usr/local/bin:/usr/bin:/bin`. It is built from constants, not copied
 * from the host's `PATH`. Give `PATH` (or `HOME`, which `npx` uses for its
 * cache) in the definition's `env` to change it.
 */
export const MINIMAL_PATH = [...new Set([dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"])].join(":");

export function childEnv(definitionEnv: Record<string, string>, secretEnv: Record<string, string>) {
  const given = { ...definitionEnv, ...secretEnv };
  return Object.hasOwn(given, "PATH") ? given : { PATH: MINIMAL_PATH, ...given };
}
