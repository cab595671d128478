/** Services: installed API definitions whose operations are tools. */
import { type Static, Type } from "@sinclair/typebox";
import { JsonObject, Nullable, Timestamp, VersionChange, VersionChoice } from "./common.js";

export const ServiceRecord = Type.Object({
  id: Type.String({ description: "The id used in code: cyrnel.services.<id>" }),
  name: Type.String(),
  description: Type.String(),
  adapter: Type.String({ description: "Id of the adapter module" }),
  source: Nullable(Type.String({ description: "Registry descriptor URL; null for direct installs" })),
  version: Nullable(Type.String({ description: "Registry version; null for direct installs" })),
  hash: Type.String({ description: "SHA-256 of the definition text" }),
  enabled: Type.Boolean({ description: "Only enabled services that are not stale can be called" }),
  stale: Type.Boolean({
    description: "The adapter no longer accepts the stored definition; an operator must update it",
  }),
  toolCount: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** Why a service's types are not made whole (see `CYRNEL_TYPES_BUDGET_CHARS`); absent when they fit. */
const TypesNote = Type.String({
  description:
    "Present when the service's tools are too large to type whole: whole-service types are refused (413 " +
    "types_too_large) and code is type-checked against the tools it names",
});

export const ServiceDetail = Type.Composite([
  ServiceRecord,
  Type.Object({
    staleReason: Nullable(Type.String()),
    error: Nullable(
      Type.String({
        description:
          "Why an enabled service is not running right now, e.g. its secrets cannot be decrypted with the " +
          "configured key; null when it runs or is disabled",
      }),
    ),
    configSchema: JsonObject,
    secretsSchema: JsonObject,
    typesNote: Type.Optional(TypesNote),
  }),
]);

export const EnableFailure = Type.Object(
  { code: Type.String(), error: Type.String() },
  { description: "Why enabling failed; the service stays installed and disabled" },
);

export const InstalledService = Type.Composite([
  ServiceDetail,
  Type.Object({ enableError: Type.Optional(EnableFailure) }),
]);

export const UpdateResult = Type.Object({
  id: Type.String(),
  updated: Type.Boolean({ description: "false when the definition text is unchanged (same hash)" }),
  enabled: Type.Boolean(),
  enableError: Type.Optional(EnableFailure),
  typesNote: Type.Optional(TypesNote),
});

export const DefinitionSource = {
  definition: Type.Optional(Type.String({ description: "The definition text (e.g. an OpenAPI document)" })),
  url: Type.Optional(Type.String({ description: "http(s) URL to download the definition from (≤ 32 MiB, 10 s)" })),
};

export const RegistryInstallBody = Type.Object(
  {
    source: Type.String({ description: "Descriptor URL (an index item's `source`)" }),
    id: Type.Optional(Type.String({ description: "Service id; defaults to the descriptor's id" })),
    ...VersionChoice,
    adapter: Type.Optional(Type.String({ description: "Adapter module id; defaults to openapi" })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const RegistryUpdateResult = Type.Composite([UpdateResult, Type.Object(VersionChange)]);

export type ServiceRecord = Static<typeof ServiceRecord>;
export type ServiceDetail = Static<typeof ServiceDetail>;
export type EnableFailure = Static<typeof EnableFailure>;
export type InstalledService = Static<typeof InstalledService>;
export type UpdateResult = Static<typeof UpdateResult>;
export type RegistryInstallBody = Static<typeof RegistryInstallBody>;
export type RegistryUpdateResult = Static<typeof RegistryUpdateResult>;
