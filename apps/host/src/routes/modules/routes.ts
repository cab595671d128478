import { Type } from "@sinclair/typebox";
import { defineRoute, json, noContent, type RouteDefinition } from "../../http/route.js";
import { ConfigBody, EnabledBody, JsonObject, ListOf, PatchBody, SecretNames } from "../../http/schemas.js";
import type { ModuleRegistry } from "../../services/modules/module-registry.js";

const tags = ["modules"];
const IdParams = Type.Object({ id: Type.String() });

export const ModuleRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal("adapter"), Type.Literal("environment"), Type.Null()], {
    description: "null only for a custom module whose module.json cannot be read",
  }),
  version: Type.Union([Type.String(), Type.Null()]),
  builtin: Type.Boolean(),
  enabled: Type.Boolean({ description: "The operator's choice (persisted)" }),
  active: Type.Boolean({ description: "Set up and serving right now" }),
  missing: Type.Boolean({ description: "Known to the database but its folder is gone" }),
  source: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: "Why the module failed to load or start" }),
});
export const ModuleDetail = Type.Composite([
  ModuleRecord,
  Type.Object({ configSchema: JsonObject, secretsSchema: JsonObject }),
]);

export function moduleRoutes(modules: ModuleRegistry): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/modules",
      operationId: "listModules",
      summary: "List adapter and environment modules",
      tags,
      query: Type.Object({
        type: Type.Optional(Type.Union([Type.Literal("adapter"), Type.Literal("environment")])),
        enabled: Type.Optional(Type.Boolean()),
      }),
      responses: { 200: { description: "Every module (never paginated)", schema: ListOf(ModuleRecord) } },
      errors: ["validation_failed"],
      handler: ({ query }) => json(200, { items: modules.list(query), nextCursor: null }),
    }),
    defineRoute({
      method: "get",
      path: "/modules/{id}",
      operationId: "getModule",
      summary: "Get a module with its config and secrets schemas",
      tags,
      params: IdParams,
      responses: { 200: { description: "The module", schema: ModuleDetail } },
      errors: ["not_found"],
      handler: ({ params }) => json(200, modules.get(params.id)),
    }),
    defineRoute({
      method: "post",
      path: "/modules/{id}/enabled",
      operationId: "setModuleEnabled",
      summary: "Activate (setup) or deactivate (teardown) a module",
      description:
        "Activating an adapter hydrates its enabled services. Enabling an environment makes it the active one; the " +
        "previous environment stops after its running processes finish. Disabling an environment cancels its processes.",
      tags,
      params: IdParams,
      body: EnabledBody,
      responses: { 200: { description: "The module", schema: ModuleDetail } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict", "adapter_error"],
      handler: async ({ params, body }) => json(200, await modules.setEnabled(params.id, body.enabled)),
    }),
    defineRoute({
      method: "get",
      path: "/modules/{id}/config",
      operationId: "getModuleConfig",
      summary: "Get a module's config with defaults applied",
      tags,
      params: IdParams,
      responses: { 200: { description: "The config", schema: ConfigBody } },
      errors: ["not_found"],
      handler: ({ params }) => json(200, { config: modules.config(params.id) }),
    }),
    defineRoute({
      method: "patch",
      path: "/modules/{id}/config",
      operationId: "patchModuleConfig",
      summary: "Patch a module's config; an active module is restarted with it",
      tags,
      params: IdParams,
      body: PatchBody,
      responses: { 200: { description: "The new config", schema: ConfigBody } },
      errors: ["bad_request", "validation_failed", "not_found", "adapter_error"],
      handler: async ({ params, body }) => json(200, { config: await modules.patchConfig(params.id, body) }),
    }),
    defineRoute({
      method: "get",
      path: "/modules/{id}/secrets",
      operationId: "getModuleSecrets",
      summary: "Names of the module secrets that are set",
      tags,
      params: IdParams,
      responses: { 200: { description: "Secret names", schema: SecretNames } },
      errors: ["not_found"],
      handler: ({ params }) => json(200, { set: modules.secretNames(params.id) }),
    }),
    defineRoute({
      method: "patch",
      path: "/modules/{id}/secrets",
      operationId: "patchModuleSecrets",
      summary: "Patch a module's secrets (write-only)",
      tags,
      params: IdParams,
      body: PatchBody,
      responses: { 200: { description: "Secret names", schema: SecretNames } },
      errors: ["bad_request", "validation_failed", "not_found", "adapter_error"],
      handler: async ({ params, body }) => json(200, { set: await modules.patchSecrets(params.id, body) }),
    }),
    defineRoute({
      method: "post",
      path: "/modules/reload",
      operationId: "reloadModules",
      summary: "Rescan the modules folder",
      description: "New folders appear disabled, changed modules are reloaded, vanished ones are marked missing.",
      tags,
      responses: { 200: { description: "Every module after the rescan", schema: ListOf(ModuleRecord) } },
      handler: async () => json(200, { items: await modules.reload(), nextCursor: null }),
    }),
    defineRoute({
      method: "delete",
      path: "/modules/{id}",
      operationId: "deleteModule",
      summary: "Delete a custom module (its services are deleted first)",
      tags,
      params: IdParams,
      responses: { 204: { description: "Deleted" } },
      errors: ["bad_request", "not_found"],
      handler: async ({ params }) => {
        await modules.remove(params.id);
        return noContent();
      },
    }),
  ];
}
