/**
 * Connected accounts of services (domain/connections/): the OAuth client an
 * admin sets up per service, connecting an account (an authorization URL,
 * then the provider's redirect to `/oauth/callback`), listing and revoking.
 */
import { Type } from "@sinclair/typebox";
import { ListOf } from "../../contract/common.js";
import {
  Connection,
  ConnectionCallbackQuery,
  ConnectionStart,
  OAuthSettings,
  OAuthSettingsBody,
} from "../../contract/connections.js";
import type { Connections, ConnectionView } from "../../domain/connections/connections.js";
import { defineRoute, json, noContent, type RouteDefinition, text } from "../../http/route.js";

const tags = ["connections"];
const IdParams = Type.Object({ id: Type.String() });
const ConnectionParams = Type.Object({ id: Type.String(), connectionId: Type.String() });

export function connectionRoutes(connections: Connections): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/services/{id}/oauth",
      operationId: "getServiceOAuth",
      access: "admin",
      summary: "The OAuth client a service's connected accounts use (never its secret)",
      tags,
      params: IdParams,
      responses: { 200: { description: "The settings", schema: OAuthSettings } },
      errors: ["not_found"],
      handler: async ({ params }) => json(200, await connections.view(params.id)),
    }),
    defineRoute({
      method: "put",
      path: "/services/{id}/oauth",
      operationId: "putServiceOAuth",
      access: "admin",
      summary: "Set up connections: the OAuth client, its URLs and whose account calls use",
      description:
        "From then on every call of the service acts for a connected account: the shared one, or the caller's own " +
        "(`credentials: per-caller`). URLs and scopes left out are the ones the service's definition declares (an " +
        "OpenAPI `authorizationCode` flow); without one, give `authorizationUrl` and `tokenUrl`. Register " +
        "`redirectUri` (in the answer) at the provider. Changing `credentials` drops the existing connections.",
      tags,
      params: IdParams,
      body: OAuthSettingsBody,
      responses: { 200: { description: "The settings", schema: OAuthSettings } },
      errors: ["not_found"],
      handler: async ({ params, body }) => json(200, await connections.configure(params.id, body)),
    }),
    defineRoute({
      method: "delete",
      path: "/services/{id}/oauth",
      operationId: "deleteServiceOAuth",
      access: "admin",
      summary: "Turn connections off: the client, and every connected account of the service",
      tags,
      params: IdParams,
      responses: { 204: { description: "Removed" } },
      errors: ["not_found"],
      handler: async ({ params }) => {
        await connections.unconfigure(params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: "post",
      path: "/services/{id}/connections",
      operationId: "startConnection",
      access: "agent",
      noStore: true,
      summary: "Connect an account: an authorization URL to open in a browser",
      description:
        "PKCE (S256) with a single-use `state`, good for 10 minutes. The provider sends the browser back to " +
        "`/oauth/callback`, which stores the tokens (sealed like secrets). Under `per-caller` credentials the " +
        "account is the caller's own (an agent may connect its own); the `shared` account is connected by an admin. " +
        "A new connection replaces the owner's previous one.",
      tags,
      params: IdParams,
      responses: { 201: { description: "Open `authorizationUrl`", schema: ConnectionStart } },
      errors: ["not_found", "conflict", "forbidden"],
      handler: async ({ params, caller }) => json(201, await connections.start(params.id, caller)),
    }),
    defineRoute({
      method: "get",
      path: "/services/{id}/connections",
      operationId: "listConnections",
      access: "agent",
      summary: "Connected accounts of a service (an agent sees its own; never a token)",
      tags,
      params: IdParams,
      responses: { 200: { description: "The connections", schema: ListOf(Connection) } },
      errors: ["not_found"],
      handler: async ({ params, caller }) =>
        json(200, { items: await connections.list(params.id, caller), nextCursor: null }),
    }),
    defineRoute({
      method: "delete",
      path: "/services/{id}/connections/{connectionId}",
      operationId: "deleteConnection",
      access: "agent",
      summary: "Revoke a connected account (at the provider too, when it has a revocation URL)",
      tags,
      params: ConnectionParams,
      responses: { 204: { description: "Revoked and forgotten" } },
      errors: ["not_found"],
      handler: async ({ params, caller }) => {
        await connections.revoke(params.id, params.connectionId, caller);
        return noContent();
      },
    }),
    defineRoute({
      method: "get",
      path: "/oauth/callback",
      operationId: "connectionCallback",
      access: "public",
      noStore: true,
      summary: "Where a provider sends the browser back after the user signed in (no authentication)",
      description:
        "Takes the request its `state` names (once; 400 for a state unknown, used or older than 10 minutes), trades " +
        "the code for tokens and stores them. Answers a short HTML page, or JSON with `Accept: application/json`.",
      tags,
      query: ConnectionCallbackQuery,
      responses: {
        200: { description: "Connected", schema: Type.Object({ connection: Connection }) },
      },
      errors: ["validation_failed", "conflict", "upstream_error"],
      handler: async ({ query, context }) => {
        const connection = await connections.finish(query);
        if (context.req.header("accept")?.includes("application/json")) return json(200, { connection });
        return text(200, connectedPage(connection), "text/html; charset=utf-8");
      },
    }),
  ];
}

function connectedPage(connection: ConnectionView): string {
  const html = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    '<!doctype html><html><head><meta charset="utf-8"><title>Connected</title></head><body>' +
    `<p>The account is connected to service <b>${html(connection.serviceId)}</b> ` +
    `(connection ${html(connection.id)}). You can close this window.</p></body></html>`
  );
}
