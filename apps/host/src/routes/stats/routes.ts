import { Stats, StatsQuery } from "../../contract/stats.js";
import { DEFAULT_STATS_WINDOW_MS, type HostStats } from "../../domain/stats/host-stats.js";
import { CyrnelError } from "../../errors.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

/** `GET /stats`: the summary the console's overview polls (exact counts from indexes, domain/stats/). */
export function statsRoutes(stats: HostStats): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/stats",
      operationId: "getStats",
      access: "admin",
      summary: "Exact counts of services, tools, processes, approvals, capacity and the queue",
      description:
        "One small answer, counted from indexes (a few milliseconds with 100,000 processes kept): services " +
        "(total, enabled), tools (total; callable = enabled tools of enabled services that are not stale), " +
        "processes live now by state and those whose latest run ended since `since` (default: 24 hours ago) by " +
        "exit state, with the queue timeouts among them, pending approvals, this host's environment's " +
        "admission and load, and the depth of the queue runs wait in.",
      tags: ["system"],
      query: StatsQuery,
      errors: ["bad_request", "validation_failed"],
      responses: { 200: { description: "The figures", schema: Stats } },
      handler: async ({ query }) => {
        const since =
          query.since === undefined ? new Date(Date.now() - DEFAULT_STATS_WINDOW_MS) : new Date(query.since);
        if (Number.isNaN(since.getTime())) {
          throw new CyrnelError("bad_request", `"since" is not a date-time: "${query.since}"`);
        }
        return json(200, await stats.summary(since));
      },
    }),
  ];
}
