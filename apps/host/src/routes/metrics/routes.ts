import { Type } from "@sinclair/typebox";
import { defineRoute, type RouteDefinition, text } from "../../http/route.js";
import type { HostMetrics } from "../../metrics/host-metrics.js";

/**
 * `GET /metrics`: the Prometheus text exposition (metrics/host-metrics.ts). An admin key may read it, and so may
 * `CYRNEL_METRICS_TOKEN` as a bearer token, which opens this route alone (http/auth.ts).
 */
export function metricsRoutes(metrics: HostMetrics): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/metrics",
      operationId: "metrics",
      access: "admin",
      summary: "Prometheus metrics of this host (admin key or CYRNEL_METRICS_TOKEN)",
      description:
        "The Prometheus text format: tool calls by service, tool and outcome with their latency, approvals with " +
        "their wait, processes ended by exit state, runs by state, 429s by code, the queue's depth, the " +
        "sandbox's executions and memory, HTTP requests by route template and status, and Node's process " +
        "metrics (`cyrnel_` prefix). Each host reports its own. Besides an admin key, the bearer token " +
        "`CYRNEL_METRICS_TOKEN` (when set) is accepted here and nowhere else.",
      tags: ["system"],
      responses: {
        200: {
          description: "Prometheus text exposition format 0.0.4",
          schema: Type.String(),
          contentType: "text/plain; version=0.0.4; charset=utf-8",
        },
      },
      handler: async () => {
        const { body, contentType } = await metrics.render();
        return text(200, body, contentType);
      },
    }),
  ];
}
