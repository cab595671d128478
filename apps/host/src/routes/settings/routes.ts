import { Type } from "@sinclair/typebox";
import { ConfigBody, PatchBody, SecretNames } from "../../contract/common.js";
import type { Settings } from "../../domain/settings/settings.js";
import { ERROR_STATUS, type ErrorCode } from "../../errors.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

const IdParams = Type.Object({ id: Type.String() });

/** What differs between owners: where they live, their names in the API, and how each route is summarised. */
export interface SettingsRoutesOptions {
  /** The owner's collection, e.g. `/services`; the routes are `<collection>/{id}/config` and `/secrets`. */
  collection: string;
  /** The owner in operation ids, e.g. `Service` for `getServiceConfig`. */
  operationNoun: string;
  tags: string[];
  summaries: { getConfig: string; patchConfig: string; getSecrets: string; patchSecrets: string };
  patchConfigDescription?: string;
  patchSecretsDescription?: string;
  /** What putting changed values to use (restart, re-hydrate) can answer, besides the patch's own 400s and 404. */
  applyErrors: ErrorCode[];
  settings: Pick<Settings<unknown>, "config" | "patchConfig" | "secretNames" | "patchSecrets">;
}

/** `GET/PATCH <collection>/{id}/config` and `/secrets` of one kind of owner (modules, services). */
export function settingsRoutes(options: SettingsRoutesOptions): RouteDefinition[] {
  const { collection, operationNoun: noun, tags, summaries, settings } = options;
  const patchErrors = inTableOrder(["bad_request", "validation_failed", "not_found", ...options.applyErrors]);
  // Patching secrets reads the stored ones first: a value sealed under an unknown key is a 409.
  const patchSecretsErrors = inTableOrder([...patchErrors, "conflict"]);
  return [
    defineRoute({
      method: "get",
      path: `${collection}/{id}/config`,
      operationId: `get${noun}Config`,
      access: "admin",
      summary: summaries.getConfig,
      tags,
      params: IdParams,
      responses: { 200: { description: "The config", schema: ConfigBody } },
      errors: ["not_found"],
      handler: async ({ params }) => json(200, { config: await settings.config(params.id) }),
    }),
    defineRoute({
      method: "patch",
      path: `${collection}/{id}/config`,
      operationId: `patch${noun}Config`,
      access: "admin",
      summary: summaries.patchConfig,
      description: options.patchConfigDescription,
      tags,
      params: IdParams,
      body: PatchBody,
      responses: { 200: { description: "The new config", schema: ConfigBody } },
      errors: patchErrors,
      handler: async ({ params, body }) => json(200, { config: await settings.patchConfig(params.id, body) }),
    }),
    defineRoute({
      method: "get",
      path: `${collection}/{id}/secrets`,
      operationId: `get${noun}Secrets`,
      access: "admin",
      summary: summaries.getSecrets,
      tags,
      params: IdParams,
      responses: { 200: { description: "Secret names", schema: SecretNames } },
      errors: ["not_found"],
      handler: async ({ params }) => json(200, { set: await settings.secretNames(params.id) }),
    }),
    defineRoute({
      method: "patch",
      path: `${collection}/{id}/secrets`,
      operationId: `patch${noun}Secrets`,
      access: "admin",
      summary: summaries.patchSecrets,
      description: options.patchSecretsDescription,
      tags,
      params: IdParams,
      body: PatchBody,
      responses: { 200: { description: "Secret names", schema: SecretNames } },
      errors: patchSecretsErrors,
      handler: async ({ params, body }) => json(200, { set: await settings.patchSecrets(params.id, body) }),
    }),
  ];
}

/** Each code once, in the order of the code table (errors.ts), as routes list them. */
function inTableOrder(codes: ErrorCode[]): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => codes.includes(code));
}
