import { Type } from "@sinclair/typebox";
import { CyrnelError } from "../../errors.js";
import { defineRoute, type RouteDefinition, text } from "../../http/route.js";
import type { ModuleRegistry } from "../../services/modules/module-registry.js";
import type { ServiceStore } from "../../services/services-and-tools/service-store.js";

const tags = ["environment"];

export function environmentRoutes(modules: ModuleRegistry, store: ServiceStore): RouteDefinition[] {
  const active = () => {
    const environment = modules.activeEnvironment();
    if (!environment)
      throw new CyrnelError("no_environment", "no environment module is active; enable one under /modules");
    return environment.module;
  };
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
      errors: ["no_environment"],
      handler: async () => text(200, await active().generateDocs(), "text/markdown; charset=utf-8"),
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
      errors: ["no_environment", "not_found"],
      handler: async () => {
        const environment = active();
        if (!environment.generateTypes) {
          throw new CyrnelError("not_found", "the active environment does not provide type declarations");
        }
        const tools = store.effectiveTools().map((tool) => ({
          serviceId: tool.serviceId,
          toolId: tool.id,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
        }));
        return text(200, await environment.generateTypes(tools), "text/plain; charset=utf-8");
      },
    }),
  ];
}
