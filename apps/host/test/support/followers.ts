/**
 * Whether something still follows a process: with CYRNEL_PROCESS_FOLLOWERS_LIMIT=1 on the host, opening the
 * process's events stream succeeds only when no one else follows it. Tests use it to see whether an MCP wait
 * let go of the process.
 */
import type { TestHost } from "./host.js";

/** Opens the events stream of a process and closes it again: 200 if a follower slot was free, 429 if not. */
export async function probeFollower(host: TestHost, id: number): Promise<number> {
  const controller = new AbortController();
  const response = await fetch(`${host.url}/processes/${id}/events`, {
    headers: host.apiKey ? { authorization: `Bearer ${host.apiKey}` } : {},
    signal: controller.signal,
  });
  controller.abort();
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 200 && response.status !== 429) throw new Error(`events answered ${response.status}`);
  return response.status;
}

/** Polls until a follower slot of the process is free again; fails after a generous wait. */
export async function untilFollowerFree(host: TestHost, id: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await probeFollower(host, id)) !== 200) {
    if (Date.now() > deadline) throw new Error(`process ${id}: something still follows it`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
