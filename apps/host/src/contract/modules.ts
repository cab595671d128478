/** Modules: adapter and environment modules, built in or custom (installed from archives). */
import { type Static, Type } from "@sinclair/typebox";
import { JsonObject, Nullable, VersionChange } from "./common.js";

export const ModuleRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal("adapter"), Type.Literal("environment"), Type.Null()], {
    description: "null only for a custom module whose module.json cannot be read",
  }),
  version: Nullable(Type.String()),
  builtin: Type.Boolean(),
  enabled: Type.Boolean({ description: "The operator's choice (persisted)" }),
  active: Type.Boolean({ description: "Set up and serving right now" }),
  missing: Type.Boolean({ description: "Known to the database but its folder is gone" }),
  quarantined: Type.Boolean({
    description:
      "Its code stopped the host or never finished loading, so it is not run again until its files change " +
      "(`error` says which)",
  }),
  source: Nullable(Type.String()),
  error: Nullable(Type.String(), { description: "Why the module failed to load or start" }),
});

export const ModuleDetail = Type.Composite([
  ModuleRecord,
  Type.Object({ configSchema: JsonObject, secretsSchema: JsonObject }),
]);

export const ModuleUpdateResult = Type.Object({
  id: Type.String(),
  updated: Type.Boolean({ description: "false when the archive holds exactly the installed files" }),
  ...VersionChange,
});

export type ModuleRecord = Static<typeof ModuleRecord>;
export type ModuleDetail = Static<typeof ModuleDetail>;
export type ModuleUpdateResult = Static<typeof ModuleUpdateResult>;
