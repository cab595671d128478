import { Type } from "@sinclair/typebox";
import { TypesQuery } from "../../contract/environment.js";
import type { EnvironmentDocs } from "../../domain/environment-docs.js";
import { defineRoute, type RouteDefinition, text } from "../../http/route.js";

const tags = ["environment"];

export function environmentRoutes(docs: EnvironmentDocs): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/environment/docs",
      operationId: "getEnvironmentDocs",
      access: "agent",
      summary: "Markdown reference of what code can use inside the active environment",
      tags,
      responses: {
        200: { description: "Markdown", schema: Type.String(), contentType: "text/markdown; charset=utf-8" },
      },
      errors: ["no_environment", "adapter_error", "invoke_timeout"],
      handler: async () => text(200, await docs.runtime(), "text/markdown; charset=utf-8"),
    }),
    defineRoute({
      method: "get",
      path: "/environment/types",
      operationId: "getEnvironmentTypes",
      access: "agent",
      summary: "TypeScript declarations of `cyrnel` typed for the effectively enabled tools (all, or those filtered)",
      description:
        "At most CYRNEL_AGENT_TEXT_LIMIT_CHARS characters: when the declarations are longer, the answer is an " +
        "index of the tools (as comments) saying how to narrow the request. Tools whose JSON Schemas exceed " +
        "CYRNEL_TYPES_BUDGET_CHARS (in total; an eighth of it per tool) are refused with 413 types_too_large " +
        "before they are read.",
      tags,
      query: TypesQuery,
      responses: {
        200: {
          description: "A .d.ts file (or an index)",
          schema: Type.String(),
          contentType: "text/plain; charset=utf-8",
        },
      },
      errors: [
        "bad_request",
        "no_environment",
        "not_found",
        "service_disabled",
        "tool_disabled",
        "types_too_large",
        "adapter_error",
        "invoke_timeout",
      ],
      handler: async ({ query, caller }) =>
        text(
          200,
          await docs.types(caller, { serviceIds: query.serviceId, tools: query.tool }),
          "text/plain; charset=utf-8",
        ),
    }),
  ];
}
