/** `GET /stats`: the host's exact figures in one small answer (what the console's overview shows). */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.js";

const Count = Type.Integer({ minimum: 0 });

export const StatsQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      format: "date-time",
      description: "Count the processes whose run ended at or after this time (ISO 8601); default: 24 hours ago",
    }),
  ),
});

export const Stats = Type.Object({
  at: Timestamp,
  since: Timestamp,
  services: Type.Object({ total: Count, enabled: Count }),
  tools: Type.Object({
    total: Count,
    callable: Type.Integer({
      minimum: 0,
      description: "Enabled tools of enabled services that are not stale: what code can call now",
    }),
  }),
  processes: Type.Object({
    live: Type.Object(
      { queued: Count, running: Count, suspended: Count, terminating: Count },
      { description: "Processes in each state but idle now, on every host (whenever they started)" },
    ),
    ended: Type.Object(
      { success: Count, failed: Count, timeout: Count, canceled: Count },
      { description: "Processes whose latest run ended at or after `since`, by exit state" },
    ),
    queueTimeouts: Type.Integer({
      minimum: 0,
      description:
        "Of `ended.timeout`, those whose code never started: the run timed out waiting in the queue (or in its type check)",
    }),
  }),
  approvals: Type.Object({ pending: Count }),
  capacity: Nullable(
    Type.Object({
      admitted: Type.Boolean({ description: "Whether the active environment takes one more run now" }),
      reason: Type.Optional(Type.String({ description: "Why not, when it does not" })),
      retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
      live: Nullable(Count, { description: "Executions in the sandbox now; null when the environment does not say" }),
      maxLive: Nullable(Count),
      queued: Nullable(Count, { description: "Executions waiting in front of the sandbox" }),
      maxQueued: Nullable(Count),
    }),
    { description: "This host's active environment; null when none is active" },
  ),
  queue: Type.Object({
    depth: Nullable(Count, { description: "Runs waiting to start; null when nothing tells" }),
    source: Type.Union([Type.Literal("cluster"), Type.Literal("environment"), Type.Literal("none")], {
      description:
        "`cluster`: runs waiting for a host in PostgreSQL's process queue (every host's); `environment`: this host's environment queue",
    }),
  }),
});

export type Stats = Static<typeof Stats>;
