import { Type } from "@sinclair/typebox";
import type { HostHealth } from "../../domain/host-health.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

/** `GET /health` (no auth) and `GET /openapi.json` (the document is built once, lazily). */
export function systemRoutes(
  version: string,
  openApiDocument: () => Record<string, unknown>,
  health: () => HostHealth,
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
        "wedged, restarting or unavailable.",
      tags: ["system"],
      responses: {
        200: {
          description: "The host is up; `status` says whether processes can run",
          schema: Type.Object({
            status: Type.Union([Type.Literal("ok"), Type.Literal("degraded")]),
            version: Type.String(),
            reasons: Type.Optional(Type.Array(Type.String())),
          }),
        },
      },
      handler: () => {
        const { status, reasons } = health();
        return json(200, status === "ok" ? { status, version } : { status, version, reasons });
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
