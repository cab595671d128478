import { Type } from "@sinclair/typebox";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

/** `GET /health` (no auth) and `GET /openapi.json` (the document is built once, lazily). */
export function systemRoutes(version: string, openApiDocument: () => Record<string, unknown>): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/health",
      operationId: "health",
      summary: "Liveness check (no authentication)",
      tags: ["system"],
      public: true,
      responses: {
        200: {
          description: "The host is up",
          schema: Type.Object({ status: Type.Literal("ok"), version: Type.String() }),
        },
      },
      handler: () => json(200, { status: "ok", version }),
    }),
    defineRoute({
      method: "get",
      path: "/openapi.json",
      operationId: "openapi",
      summary: "This API's OpenAPI 3.1 description",
      tags: ["system"],
      responses: { 200: { description: "OpenAPI document", schema: Type.Record(Type.String(), Type.Unknown()) } },
      handler: () => json(200, openApiDocument()),
    }),
  ];
}
