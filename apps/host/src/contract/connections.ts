/** Schemas of a service's OAuth client and its connected accounts (routes/connections/). */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.js";

const Url = Type.String({ minLength: 1, maxLength: 2048 });
const Credentials = Type.Union([Type.Literal("shared"), Type.Literal("per-caller")], {
  description:
    "`shared`: one connected account for every caller (an admin connects it). `per-caller`: each key or OAuth " +
    "subject connects its own account; a caller without one gets `403 connection_required`",
});

export const AuthorizationCodeFlow = Type.Object({
  authorizationUrl: Type.String(),
  tokenUrl: Type.String(),
  scopes: Type.Array(Type.String()),
});

export const OAuthSettingsBody = Type.Object(
  {
    clientId: Type.String({ minLength: 1, maxLength: 512, description: "The client registered at the provider" }),
    clientSecret: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 4096 }), {
        description: "Write-only. Left out: the stored one is kept; null: removed (a public client, PKCE only)",
      }),
    ),
    authorizationUrl: Type.Optional(
      Nullable(Url, { description: "Where users sign in; left out: the one the definition declares" }),
    ),
    tokenUrl: Type.Optional(Nullable(Url, { description: "Left out: the one the definition declares" })),
    revocationUrl: Type.Optional(
      Nullable(Url, { description: "RFC 7009 endpoint, called when a connection is deleted" }),
    ),
    scopes: Type.Optional(
      Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 200 }), {
        description: "Scopes asked for; left out: the ones the definition declares",
      }),
    ),
    credentials: Type.Optional(Credentials),
    authorizationParams: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.String({ maxLength: 2048 }), {
        maxProperties: 20,
        description: 'Extra parameters of the authorization request, e.g. `{"access_type": "offline"}`',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OAuthSettings = Type.Object({
  serviceId: Type.String(),
  declared: Nullable(AuthorizationCodeFlow, { description: "The authorization-code flow the definition declares" }),
  clientId: Nullable(Type.String()),
  clientSecretSet: Type.Boolean({ description: "Whether a client secret is stored (it is never shown)" }),
  authorizationUrl: Nullable(Type.String()),
  tokenUrl: Nullable(Type.String()),
  revocationUrl: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  credentials: Credentials,
  authorizationParams: Type.Record(Type.String(), Type.String()),
  redirectUri: Type.String({ description: "Register this at the provider: `<CYRNEL_ADVERTISE_URL>/oauth/callback`" }),
  ready: Type.Boolean({ description: "Whether accounts can be connected (a client and both URLs are set)" }),
});

export const Connection = Type.Object({
  id: Type.String(),
  serviceId: Type.String(),
  owner: Type.String({
    description: "`shared`, or whose account it is: a key id, `oauth:<sub>`, or `bootstrap` (CYRNEL_API_KEY)",
  }),
  scopes: Type.Array(Type.String()),
  expiresAt: Nullable(Timestamp, { description: "When the current access token expires (it is refreshed before)" }),
  refreshable: Type.Boolean({ description: "Whether a refresh token is kept" }),
  createdAt: Timestamp,
  refreshedAt: Nullable(Timestamp),
});

export const ConnectionStart = Type.Object({
  authorizationUrl: Type.String({
    description: "Open it in a browser: the provider signs the user in and sends it back to /oauth/callback",
  }),
  expiresAt: Timestamp,
  owner: Type.String(),
});

export const ConnectionCallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 512 })),
  code: Type.Optional(Type.String({ maxLength: 8192 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
});

export type OAuthSettingsBody = Static<typeof OAuthSettingsBody>;
