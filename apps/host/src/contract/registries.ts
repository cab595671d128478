/** Registries: catalogues of service definitions and module archives that installs and updates read. */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.js";

const NullableUrl = (description: string) => Nullable(Type.String(), { description });

export const RegistryRecord = Type.Object({
  id: Type.String({ description: "Registry id (lowercase letters, digits, `.`, `_`, `-`)" }),
  name: Type.String(),
  url: Type.String({ description: "Base URL; the well-known document is `<url>.well-known/cyrnel-registry.json`" }),
  definitionsUrl: NullableUrl("Absolute URL of the definitions index; null when the registry publishes none"),
  modulesUrl: NullableUrl("Absolute URL of the modules index; null when the registry publishes none"),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AddRegistryBody = Type.Object(
  {
    url: Type.String({
      description: "Base URL of the registry (or the URL of its `.well-known/cyrnel-registry.json` itself)",
    }),
    id: Type.Optional(Type.String({ description: "Local id; defaults to the id in the registry's document" })),
  },
  { additionalProperties: false },
);

export const IndexItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  kind: Nullable(Type.String(), { description: 'What the entry is, e.g. "openapi@3"' }),
  source: Type.String({ description: "Absolute descriptor URL: pass it as `source` to install" }),
});

export type RegistryRecord = Static<typeof RegistryRecord>;
export type IndexItem = Static<typeof IndexItem>;
