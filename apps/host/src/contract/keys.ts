/** API keys: stored keys with a role and an optional service allow-list (`CYRNEL_API_KEY` is never one of them). */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.js";

export const KeyRole = Type.Union([Type.Literal("admin"), Type.Literal("agent")], {
  description: "admin: every route; agent: discovery, processes of its own, tool calls and /mcp",
});

const ServiceAllowList = Nullable(Type.Array(Type.String()), {
  description:
    "Agent keys only: the services the key may see and call (others look as if they did not exist); null = all",
});

export const KeyRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: KeyRole,
  services: ServiceAllowList,
  createdAt: Timestamp,
  expiresAt: Nullable(Timestamp, { description: "After this instant the key is refused (401); null = never" }),
  lastUsedAt: Nullable(Timestamp, {
    description: "Last request made with the key, to the minute (written at most once a minute)",
  }),
  revokedAt: Nullable(Timestamp, {
    description: "When the key was revoked; from then on it is refused as an unknown key (401). null = live",
  }),
  revokedBy: Nullable(Type.String(), {
    description: "Who revoked it: a key id, `bootstrap` for CYRNEL_API_KEY, or `oauth:<sub>`; null = live",
  }),
});

/** What `POST /keys` answers: the record and the key itself, shown this once. */
export const CreatedKey = Type.Composite([
  KeyRecord,
  Type.Object({
    key: Type.String({ description: "The bearer key (cyk_…). Shown only in this answer: only its SHA-256 is stored" }),
  }),
]);

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ description: "What the key is for, e.g. the agent's name (1–100 characters)" }),
    role: KeyRole,
    services: Type.Optional(ServiceAllowList),
    expiresAt: Type.Optional(
      Nullable(Type.String({ format: "date-time", description: "ISO-8601 instant in the future" })),
    ),
  },
  { additionalProperties: false },
);

export type KeyRole = Static<typeof KeyRole>;
export type KeyRecord = Static<typeof KeyRecord>;
export type CreatedKey = Static<typeof CreatedKey>;
export type CreateKeyBody = Static<typeof CreateKeyBody>;
