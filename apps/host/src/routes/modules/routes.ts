import { Type } from "@sinclair/typebox";
import { EnabledBody, ListOf, VersionBody } from "../../contract/common.js";
import { ModuleDetail, ModuleRecord, ModuleUpdateResult } from "../../contract/modules.js";
import type { ModuleEntries } from "../../domain/modules/module-entries.js";
import type { ModuleInstaller } from "../../domain/modules/module-installer.js";
import type { ModuleLoader } from "../../domain/modules/module-loader.js";
import type { ModuleRegistry } from "../../domain/modules/module-registry.js";
import { defineRoute, json, noContent, type RouteDefinition } from "../../http/route.js";
import { settingsRoutes } from "../settings/routes.js";

const tags = ["modules"];
const IdParams = Type.Object({ id: Type.String() });

/** Reading comes from the entries, enabling from the registry, rescans and deletion from the loader. */
export function moduleRoutes(
  entries: ModuleEntries,
  registry: ModuleRegistry,
  loader: ModuleLoader,
): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/modules",
      operationId: "listModules",
      access: "admin",
      summary: "List adapter and environment modules",
      tags,
      query: Type.Object({
        type: Type.Optional(Type.Union([Type.Literal("adapter"), Type.Literal("environment")])),
        enabled: Type.Optional(Type.Boolean()),
      }),
      responses: { 200: { description: "Every module (never paginated)", schema: ListOf(ModuleRecord) } },
      errors: ["validation_failed"],
      handler: ({ query }) => json(200, { items: entries.list(query), nextCursor: null }),
    }),
    defineRoute({
      method: "get",
      path: "/modules/{id}",
      operationId: "getModule",
      access: "admin",
      summary: "Get a module with its config and secrets schemas",
      tags,
      params: IdParams,
      responses: { 200: { description: "The module", schema: ModuleDetail } },
      errors: ["not_found"],
      handler: ({ params }) => json(200, entries.get(params.id)),
    }),
    defineRoute({
      method: "post",
      path: "/modules/{id}/enabled",
      operationId: "setModuleEnabled",
      access: "admin",
      summary: "Activate (setup) or deactivate (teardown) a module",
      description:
        "Activating an adapter hydrates its enabled services. Enabling an environment makes it the active one; the " +
        "previous environment stops after its running processes finish. Disabling an environment cancels its processes.",
      tags,
      params: IdParams,
      body: EnabledBody,
      responses: { 200: { description: "The module", schema: ModuleDetail } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict", "adapter_error"],
      handler: async ({ params, body }) => json(200, await registry.setEnabled(params.id, body.enabled)),
    }),
    ...settingsRoutes({
      collection: "/modules",
      operationNoun: "Module",
      tags,
      summaries: {
        getConfig: "Get a module's config with defaults applied",
        patchConfig: "Patch a module's config; an active module is restarted with it",
        getSecrets: "Names of the module secrets that are set",
        patchSecrets: "Patch a module's secrets (write-only)",
      },
      // A failed restart is an adapter_error (module-registry.ts); setup timeouts are failures too.
      applyErrors: ["adapter_error"],
      settings: registry.settings,
    }),
    defineRoute({
      method: "post",
      path: "/modules/reload",
      operationId: "reloadModules",
      access: "admin",
      summary: "Rescan the modules folder",
      description:
        "New folders appear disabled, changed modules are reloaded, vanished ones are marked missing. Hosts " +
        "sharing a PostgreSQL database: each custom module folder whose files differ from the ones stored in the " +
        "database is packed and stored, so every host runs it (400 `bad_request`, before anything changes, for a " +
        "folder that cannot be shared: a link, a special file, over the download size cap); a folder removed by " +
        "hand comes back from the database (`DELETE /modules/{id}` deletes a module).",
      tags,
      responses: { 200: { description: "Every module after the rescan", schema: ListOf(ModuleRecord) } },
      errors: ["bad_request"],
      handler: async () => json(200, { items: await loader.reload(), nextCursor: null }),
    }),
    defineRoute({
      method: "delete",
      path: "/modules/{id}",
      operationId: "deleteModule",
      access: "admin",
      summary: "Delete a custom module (its services are deleted first)",
      tags,
      params: IdParams,
      responses: { 204: { description: "Deleted" } },
      errors: ["bad_request", "not_found"],
      handler: async ({ params }) => {
        await loader.remove(params.id);
        return noContent();
      },
    }),
  ];
}

const updateDescription =
  "The previous version is kept in `modules/.backup/<id>/<version>/`. Every service of an updated adapter is " +
  "regenerated from its stored definition (tool enabled flags kept); one the new code rejects becomes stale. " +
  "If the new version fails to load (or an active module fails to start), the previous version is restored and " +
  "keeps running, and the answer is a 400 naming the error.";

/** Custom modules from archives: registry installs and updates, direct `.tgz` updates. */
export function moduleInstallRoutes(installer: ModuleInstaller): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/modules/install",
      operationId: "installModuleFromRegistry",
      access: "admin",
      summary: "Install a custom module from a registry descriptor",
      description:
        "Downloads the chosen version's `.tgz`, checks its sha256, unpacks it safely and loads it. The module id " +
        "comes from its module.json; it starts disabled. A registry that cannot be reached or fails is a 502 " +
        "`upstream_error`.",
      tags,
      body: Type.Object(
        {
          source: Type.String({ description: "Descriptor URL (a modules index item's `source`)" }),
          ...VersionBody.properties,
        },
        { additionalProperties: false },
      ),
      responses: { 201: { description: "Installed (disabled)", schema: ModuleDetail } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict", "upstream_error"],
      handler: async ({ body }) => json(201, await installer.install(body.source, body.version)),
    }),
    defineRoute({
      method: "post",
      path: "/modules/{id}/update",
      operationId: "updateModuleFromRegistry",
      access: "admin",
      summary: "Update a registry-installed module to another version",
      description: `${updateDescription} A registry that cannot be reached or fails is a 502 \`upstream_error\`.`,
      tags,
      params: IdParams,
      body: VersionBody,
      responses: { 200: { description: "Update result", schema: ModuleUpdateResult } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict", "upstream_error"],
      handler: async ({ params, body }) => json(200, await installer.updateFromRegistry(params.id, body.version)),
    }),
    defineRoute({
      method: "patch",
      path: "/modules/{id}",
      operationId: "updateModuleFromUrl",
      access: "admin",
      summary: "Update a custom module from a `.tgz` URL",
      description:
        `${updateDescription} The URL is the caller's own input, so every download failure (including an ` +
        "unreachable host) is a 400, as for `POST /services` with `url`.",
      tags,
      params: IdParams,
      body: Type.Object(
        {
          url: Type.String({ description: "http(s) URL of a module .tgz (module.json at the root or under package/)" }),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: "Update result", schema: ModuleUpdateResult } },
      errors: ["bad_request", "validation_failed", "not_found"],
      handler: async ({ params, body }) => json(200, await installer.updateFromUrl(params.id, body.url)),
    }),
  ];
}
