/**
 * The host's share of open files (the process's `ulimit -n`): every inbound
 * connection, live follower, outbound tool call, database connection and the
 * sandbox's pipes take a descriptor, and a host that runs out cannot answer
 * `/health` or open the socket of a tool call (`EMFILE`). The budget splits
 * what the limit leaves after the host's own files:
 *
 * - `connections`: inbound connections served in all (half of what is
 *   spare). Past it a connection is answered `503` and closed at once, except
 *   a few kept for `GET /health` (`healthReserve`);
 * - `followers`: live followers of process events, long-lived connections,
 *   at most half of `connections` (past it: `429 too_many_followers`);
 * - the other half stays free for outbound tool calls, database
 *   connections and the sandbox.
 *
 * Linux tells the limit in /proc/self/limits; elsewhere there is no budget
 * (no caps beyond the per-process followers limit).
 */
import { readFileSync } from "node:fs";

/** Descriptors the host holds itself once started (its files, pipes, pools), with room to spare. */
const HOST_OWN = 128;
/** Inbound connections past the cap that may still ask `GET /health`. */
export const HEALTH_RESERVE = 8;

export interface DescriptorBudget {
  /** The soft open-file limit. */
  limit: number;
  connections: number;
  followers: number;
}

/** The soft open-file limit of this process, or null where it cannot be read. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((row) => row.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    return soft === "unlimited" ? null : Number(soft) || null;
  } catch {
    return null;
  }
}

export function descriptorBudget(limit = openFileLimit()): DescriptorBudget | null {
  if (limit === null) return null;
  const spare = Math.max(0, limit - HOST_OWN);
  const connections = Math.max(8, Math.floor(spare / 2));
  return { limit, connections, followers: Math.max(1, Math.floor(connections / 2)) };
}
