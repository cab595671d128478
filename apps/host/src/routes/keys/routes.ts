import { Type } from "@sinclair/typebox";
import { ListOf, ListQuery } from "../../contract/common.js";
import { CreatedKey, CreateKeyBody, KeyRecord } from "../../contract/keys.js";
import { type ApiKeys, keyRecord } from "../../domain/governance/api-keys.js";
import { decodeCursor, isTwoStrings, toPage } from "../../http/pagination.js";
import { defineRoute, json, noContent, type RouteDefinition } from "../../http/route.js";

const tags = ["keys"];
const IdParams = Type.Object({ id: Type.String() });

/** Stored API keys; admin only. The key itself is in the answer to `POST /keys` and nowhere else. */
export function keyRoutes(keys: ApiKeys): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/keys",
      operationId: "createKey",
      access: "admin",
      noStore: true,
      summary: "Create an API key (the key is shown in this answer only)",
      description:
        "`key` is `cyk_` and 43 base64url characters; only its SHA-256 is stored, so it cannot be shown again. " +
        "Creating the first key turns authentication on. Without CYRNEL_API_KEY the first key must be an admin key " +
        "(409 otherwise), so that someone can still manage the host. `services` (agent keys only) limits the " +
        "services the key sees and calls; ids of services not installed yet are allowed.",
      tags,
      body: CreateKeyBody,
      responses: { 201: { description: "Created, with the key", schema: CreatedKey } },
      errors: ["bad_request", "validation_failed", "conflict"],
      handler: async ({ body }) => json(201, await keys.create(body)),
    }),
    defineRoute({
      method: "get",
      path: "/keys",
      operationId: "listKeys",
      access: "admin",
      summary: "List API keys, oldest first, revoked ones too (never the keys themselves)",
      tags,
      query: Type.Object({
        ...ListQuery,
        revoked: Type.Optional(
          Type.Boolean({ description: "true: only revoked keys; false: only live ones; absent: both" }),
        ),
      }),
      responses: { 200: { description: "A page of keys", schema: ListOf(KeyRecord) } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query }) => {
        const limit = query.limit ?? 100;
        const rows = await keys.list({
          limit,
          after: decodeCursor(query.cursor, isTwoStrings),
          revoked: query.revoked,
        });
        return json(
          200,
          toPage(rows, limit, keyRecord, (row) => [row.createdAt, row.id]),
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/keys/{id}",
      operationId: "getKey",
      access: "admin",
      summary: "Get an API key, live or revoked (never the key itself)",
      tags,
      params: IdParams,
      responses: { 200: { description: "The key's record", schema: KeyRecord } },
      errors: ["not_found"],
      handler: async ({ params }) => json(200, await keys.get(params.id)),
    }),
    defineRoute({
      method: "delete",
      path: "/keys/{id}",
      operationId: "revokeKey",
      access: "admin",
      summary: "Revoke an API key at once",
      description:
        "The next request with the key is a 401, and tool calls of processes it started fail with 403 forbidden. " +
        "The key stays listed, with `revokedAt` and `revokedBy`; revoking it again is a 404. " +
        "Without CYRNEL_API_KEY the last admin key cannot be revoked (409).",
      tags,
      params: IdParams,
      responses: { 204: { description: "Revoked" } },
      errors: ["not_found", "conflict"],
      handler: async ({ params, caller }) => {
        await keys.revoke(params.id, caller);
        return noContent();
      },
    }),
  ];
}
