import { Type } from "@sinclair/typebox";
import type { EnvironmentDocs } from "../../domain/environment-docs.js";
import { defineRoute, type RouteDefinition, text } from "../../http/route.js";

const tags = ["environment"];

export function environmentRoutes(docs: EnvironmentDocs): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/environment/docs",
      operationId: "getEnvironmentDocs",
      summary: "Markdown reference of what code can use inside the active environment",
      tags,
      responses: {
        200: { description: "Markdown", schema: Type.String(), contentType: "text/markdown; charset=utf-8" },
      },
      errors: ["no_environment", "invoke_timeout"],
      handler: async () => text(200, await docs.runtime(), "text/markdown; charset=utf-8"),
    }),
    defineRoute({
      method: "get",
      path: "/environment/types",
      operationId: "getEnvironmentTypes",
      summary: "TypeScript declarations of `cyrnel` typed for every effectively enabled tool",
      tags,
      responses: {
        200: { description: "A .d.ts file", schema: Type.String(), contentType: "text/plain; charset=utf-8" },
      },
      errors: ["no_environment", "not_found", "invoke_timeout"],
      handler: async () => text(200, await docs.types(), "text/plain; charset=utf-8"),
    }),
  ];
}
