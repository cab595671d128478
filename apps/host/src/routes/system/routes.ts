import { Type } from "@sinclair/typebox";
import type { HostHealth } from "../../domain/host-health.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

/** `GET /health` (no auth) and `GET /openapi.json` (the document is built once, lazily). */
/** What `/health` says about the host itself: its role, and with many hosts its id and whether it holds its lease. */
export interface HostIdentity {
  role: "all" | "api" | "worker";
  hostId?: string;
  leaseAlive?: boolean;
}

export function systemRoutes(
  version: string,
  openApiDocument: () => Record<string, unknown>,
  health: () => HostHealth & HostIdentity,
): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/health",
      operationId: "health",
      access: "public",
      summary: "Liveness and whether processes can run (no authentication)",
      description:
        "Answers 200 whenever the host answers at all. `status` is `ok`, or `degraded` with `reasons` when " +
        "processes cannot run normally: no environment is active, or the active one reports its sandbox " +
        "wedged, restarting or unavailable. `role` is the host's `CYRNEL_ROLE`; hosts sharing a PostgreSQL " +
        "database add their `hostId` and whether they hold their lease (`leaseAlive`; a host that lost it exits).",
      tags: ["system"],
      responses: {
        200: {
          description: "The host is up; `status` says whether processes can run",
          schema: Type.Object({
            status: Type.Union([Type.Literal("ok"), Type.Literal("degraded")]),
            version: Type.String(),
            reasons: Type.Optional(Type.Array(Type.String())),
            role: Type.Union([Type.Literal("all"), Type.Literal("api"), Type.Literal("worker")]),
            hostId: Type.Optional(Type.String()),
            leaseAlive: Type.Optional(Type.Boolean()),
          }),
        },
      },
      handler: () => {
        const { status, reasons, ...identity } = health();
        return json(
          200,
          status === "ok" ? { status, version, ...identity } : { status, version, reasons, ...identity },
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/openapi.json",
      operationId: "openapi",
      access: "agent",
      summary: "This API's OpenAPI 3.1 description",
      tags: ["system"],
      responses: { 200: { description: "OpenAPI document", schema: Type.Record(Type.String(), Type.Unknown()) } },
      handler: () => json(200, openApiDocument()),
    }),
  ];
}
