/**
 * `GET /.well-known/oauth-protected-resource` (RFC 9728), and the same
 * document at the path-suffixed form for the MCP endpoint
 * (`/.well-known/oauth-protected-resource/mcp`): where an OAuth client
 * learns which authorization server issues tokens for this host. Public;
 * `404` when OAuth is off (no `CYRNEL_OAUTH_ISSUER`).
 */
import { Type } from "@sinclair/typebox";
import type { OAuthConfig } from "../../config-oauth.js";
import { ADMIN_SCOPE, AGENT_SCOPE } from "../../domain/governance/oauth-tokens.js";
import { CyrnelError } from "../../errors.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: "This host (`CYRNEL_ADVERTISE_URL`): the resource tokens are for" }),
    authorization_servers: Type.Array(Type.String(), { description: "The issuer (`CYRNEL_OAUTH_ISSUER`)" }),
    bearer_methods_supported: Type.Array(Type.Literal("header")),
    scopes_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
  },
  { additionalProperties: false },
);

export function oauthResourceRoutes(oauth: OAuthConfig | null): RouteDefinition[] {
  const handler = () => {
    if (oauth === null) {
      throw new CyrnelError("not_found", "OAuth is off on this host (CYRNEL_OAUTH_ISSUER is not set): use an API key");
    }
    return json(200, {
      resource: oauth.resource,
      authorization_servers: [oauth.issuer],
      bearer_methods_supported: ["header" as const],
      scopes_supported: [AGENT_SCOPE, ADMIN_SCOPE],
      resource_name: "cyrnel",
    });
  };
  const description =
    "The OAuth 2.0 protected resource metadata (RFC 9728) of this host: the authorization server " +
    "(`CYRNEL_OAUTH_ISSUER`) whose access tokens it accepts, and the resource (`CYRNEL_ADVERTISE_URL`) they must " +
    "be for. `cyrnel:agent` or `cyrnel:admin` gives the role; `cyrnel:service:<id>` scopes narrow an agent to " +
    "those services. 404 when OAuth is off.";
  const documents = [
    { path: RESOURCE_METADATA_PATH, operationId: "oauthProtectedResource", of: "", also: "" },
    {
      path: `${RESOURCE_METADATA_PATH}/mcp`,
      operationId: "oauthProtectedResourceMcp",
      of: ", for the MCP endpoint",
      also: " The same document, at the path RFC 9728 derives from `/mcp`.",
    },
  ];
  return documents.map(({ path, operationId, of, also }) =>
    defineRoute({
      method: "get",
      path,
      operationId,
      access: "public",
      summary: `OAuth protected resource metadata${of} (no authentication)`,
      description: `${description}${also}`,
      tags: ["system"],
      errors: ["not_found"],
      responses: { 200: { description: "The resource's metadata", schema: ProtectedResourceMetadata } },
      handler,
    }),
  );
}
