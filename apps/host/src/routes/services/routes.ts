import { Type } from "@sinclair/typebox";
import { EnabledBody, ListOf, ListQuery, VersionBody } from "../../contract/common.js";
import {
  DefinitionSource,
  InstalledService,
  RegistryInstallBody,
  RegistryUpdateResult,
  ServiceDetail,
  ServiceRecord,
  UpdateResult,
} from "../../contract/services.js";
import type { RegistryServiceInstalls } from "../../domain/registries/service-installs.js";
import { serviceRecord } from "../../domain/services/records.js";
import type { ServiceLifecycle } from "../../domain/services/service-lifecycle.js";
import type { ServiceStore } from "../../domain/services/service-store.js";
import type { ErrorCode } from "../../errors.js";
import { decodeCursor, isString, toPage } from "../../http/pagination.js";
import { defineRoute, json, noContent, type RouteDefinition } from "../../http/route.js";
import { settingsRoutes } from "../settings/routes.js";

const IdParams = Type.Object({ id: Type.String() });
const tags = ["services"];
/** What turning a definition into tools can answer (installs and updates, direct or from a registry). */
const DEFINITION_ERRORS: ErrorCode[] = [
  "bad_request",
  "validation_failed",
  "not_found",
  "conflict",
  "adapter_error",
  "invoke_timeout",
];

export function serviceRoutes(services: ServiceLifecycle, store: ServiceStore): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/services",
      operationId: "listServices",
      access: "agent",
      summary: "List installed services",
      tags,
      query: Type.Object({
        query: Type.Optional(Type.String({ description: "Case-insensitive substring of id, name or description" })),
        enabled: Type.Optional(Type.Boolean()),
        adapter: Type.Optional(Type.String()),
        ...ListQuery,
      }),
      responses: { 200: { description: "A page of services", schema: ListOf(ServiceRecord) } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query, caller }) => {
        const limit = query.limit ?? 100;
        const rows = await store.list({
          ...query,
          ids: caller.services ?? undefined,
          limit,
          after: decodeCursor(query.cursor, isString),
        });
        return json(
          200,
          toPage(rows, limit, serviceRecord, (row) => row.id),
        );
      },
    }),
    defineRoute({
      method: "post",
      path: "/services",
      operationId: "installService",
      access: "admin",
      summary: "Install a service from a definition text or URL",
      description:
        "The adapter turns the definition into tools. The service starts disabled unless `enabled: true`; " +
        "if enabling then fails it stays installed and disabled and `enableError` says why.",
      tags,
      bodyLimit: "definition",
      body: Type.Object(
        {
          id: Type.String({ description: "Service id: a valid, non-reserved TypeScript identifier" }),
          adapter: Type.String({ description: "Adapter module id, e.g. openapi" }),
          ...DefinitionSource,
          enabled: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      responses: { 201: { description: "Installed", schema: InstalledService } },
      errors: DEFINITION_ERRORS,
      handler: async ({ body }) => json(201, await services.install(body)),
    }),
    defineRoute({
      method: "get",
      path: "/services/{id}",
      operationId: "getService",
      access: "agent",
      summary: "Get a service with its config and secrets schemas",
      tags,
      params: IdParams,
      responses: { 200: { description: "The service", schema: ServiceDetail } },
      errors: ["not_found"],
      handler: async ({ params, caller }) => json(200, await services.detail(params.id, caller)),
    }),
    defineRoute({
      method: "patch",
      path: "/services/{id}",
      operationId: "updateService",
      access: "admin",
      summary: "Update a service from a new definition text or URL",
      description: "Unchanged text (same hash) is a no-op. Tools that survive keep their enabled flag.",
      tags,
      bodyLimit: "definition",
      params: IdParams,
      body: Type.Object(DefinitionSource, { additionalProperties: false }),
      responses: { 200: { description: "Update result", schema: UpdateResult } },
      errors: DEFINITION_ERRORS,
      handler: async ({ params, body }) => json(200, await services.update(params.id, body)),
    }),
    defineRoute({
      method: "post",
      path: "/services/{id}/enabled",
      operationId: "setServiceEnabled",
      access: "admin",
      summary: "Enable (validate config and secrets, hydrate) or disable (dehydrate) a service",
      tags,
      params: IdParams,
      body: EnabledBody,
      responses: { 200: { description: "The service", schema: ServiceDetail } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict", "adapter_error", "invoke_timeout"],
      handler: async ({ params, body }) => json(200, await services.setEnabled(params.id, body.enabled)),
    }),
    defineRoute({
      method: "delete",
      path: "/services/{id}",
      operationId: "deleteService",
      access: "admin",
      summary: "Delete a service, its tools, config and secrets",
      tags,
      params: IdParams,
      responses: { 204: { description: "Deleted" } },
      errors: ["not_found"],
      handler: async ({ params }) => {
        await services.remove(params.id);
        return noContent();
      },
    }),
    ...settingsRoutes({
      collection: "/services",
      operationNoun: "Service",
      tags,
      summaries: {
        getConfig: "Get a service's config with defaults applied",
        patchConfig: "Patch a service's config (merge patch object or RFC 6902 array)",
        getSecrets: "Names of the secrets that are set (never their values)",
        patchSecrets: "Patch a service's secrets (write-only; same patch forms as config, `test` refused)",
      },
      patchConfigDescription:
        "Validated against the config schema; nothing is stored on failure. An enabled service is re-hydrated.",
      patchSecretsDescription:
        "Besides the adapter's own secrets, any service takes secret HTTP headers and query parameters by name: " +
        "`header:<Header-Name>` (an RFC 9110 token, not a framing header such as Host or Content-Length) and " +
        "`query:<name>`, each a string, sent by the adapter on every request in place of a header or parameter " +
        'of the same name (e.g. `{"header:Authorization": "token ghp_…"}`). The rest is validated against the ' +
        "secrets schema; nothing is stored on failure. An enabled service is re-hydrated.",
      // Re-hydrating reads the service's secrets (409 when they cannot be decrypted) and calls the adapter.
      applyErrors: ["conflict", "adapter_error", "invoke_timeout"],
      settings: services.settings,
    }),
  ];
}

const REGISTRY_INSTALL_ERRORS: ErrorCode[] = [...DEFINITION_ERRORS, "upstream_error"];

/** Installs and updates from registry descriptors. */
export function serviceRegistryRoutes(installs: RegistryServiceInstalls): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/services/install",
      operationId: "installServiceFromRegistry",
      access: "admin",
      summary: "Install a service from a registry descriptor",
      description:
        "Resolves `version` against the descriptor at `source`, downloads that version's definition, checks its " +
        "sha256 (a mismatch is a 400 and nothing is installed), then installs it like `POST /services`, recording " +
        "`source` and `version`. A registry that cannot be reached or fails is a 502 `upstream_error`.",
      tags,
      body: RegistryInstallBody,
      responses: { 201: { description: "Installed", schema: InstalledService } },
      errors: REGISTRY_INSTALL_ERRORS,
      handler: async ({ body }) => json(201, await installs.install(body)),
    }),
    defineRoute({
      method: "post",
      path: "/services/{id}/update",
      operationId: "updateServiceFromRegistry",
      access: "admin",
      summary: "Update a registry-installed service to another version",
      description:
        "Re-resolves the service's stored descriptor. The same definition text is no update (`updated: false`). " +
        "Tools that survive keep their enabled flag. A service installed directly answers 409. A registry that " +
        "cannot be reached or fails is a 502 `upstream_error` and the service is left as it was.",
      tags,
      params: IdParams,
      body: VersionBody,
      responses: { 200: { description: "Update result", schema: RegistryUpdateResult } },
      errors: REGISTRY_INSTALL_ERRORS,
      handler: async ({ params, body }) => json(200, await installs.update(params.id, body)),
    }),
  ];
}
