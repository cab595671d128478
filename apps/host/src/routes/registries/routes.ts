import { Type } from "@sinclair/typebox";
import { ListOf, ListQuery } from "../../contract/common.js";
import { AddRegistryBody, IndexItem, RegistryRecord } from "../../contract/registries.js";
import type { IndexKind, Registries } from "../../domain/registries/registries.js";
import { decodeCursor, encodeCursor, isNumber, isString, toPage } from "../../http/pagination.js";
import { defineRoute, json, noContent, type RouteDefinition } from "../../http/route.js";

const tags = ["registries"];
const IdParams = Type.Object({ id: Type.String() });
const BrowseQuery = Type.Object({
  query: Type.Optional(Type.String({ description: "Case-insensitive substring of id, name or description" })),
  ...ListQuery,
});

const isOffset = (value: unknown): value is number => isNumber(value) && value >= 0;

export function registryRoutes(registries: Registries): RouteDefinition[] {
  const browse = (kind: IndexKind, operationId: string, summary: string) =>
    defineRoute({
      method: "get",
      path: `/registries/{id}/${kind}`,
      operationId,
      access: "admin",
      summary,
      description:
        "Reads the registry's index live, following `next` links (at most 50 pages and 10,000 items), then " +
        "filters and pages the result. A registry that publishes no such index has no items. Pass an item's " +
        "`source` to the matching install route. An unreachable or failing registry is a 502 `upstream_error`, " +
        "an invalid index page a 400.",
      tags,
      params: IdParams,
      query: BrowseQuery,
      responses: { 200: { description: "A page of index items", schema: ListOf(IndexItem) } },
      errors: ["bad_request", "validation_failed", "not_found", "upstream_error"],
      handler: async ({ params, query }) => {
        const limit = query.limit ?? 100;
        const offset = decodeCursor(query.cursor, isOffset) ?? 0;
        const items = await registries.browse(params.id, kind, query.query);
        const page = items.slice(offset, offset + limit);
        return json(200, {
          items: page,
          nextCursor: offset + limit < items.length ? encodeCursor(offset + limit) : null,
        });
      },
    });

  return [
    defineRoute({
      method: "get",
      path: "/registries",
      operationId: "listRegistries",
      access: "admin",
      summary: "List the registries that were added",
      tags,
      query: Type.Object(ListQuery),
      responses: { 200: { description: "A page of registries", schema: ListOf(RegistryRecord) } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query }) => {
        const limit = query.limit ?? 100;
        const rows = await registries.list({ limit, after: decodeCursor(query.cursor, isString) });
        return json(
          200,
          toPage(
            rows,
            limit,
            (row) => row,
            (row) => row.id,
          ),
        );
      },
    }),
    defineRoute({
      method: "post",
      path: "/registries",
      operationId: "addRegistry",
      access: "admin",
      summary: "Add a registry",
      description:
        "Fetches `<url>/.well-known/cyrnel-registry.json` and checks it. Relative index URLs in it are resolved " +
        "against the document's own URL. A registry that cannot be reached, times out or answers HTTP 5xx is a " +
        "502 `upstream_error`; an HTTP 4xx, invalid JSON or a document of the wrong shape is a 400. Both name " +
        "the URL and the reason.",
      tags,
      body: AddRegistryBody,
      responses: { 201: { description: "Added", schema: RegistryRecord } },
      errors: ["bad_request", "validation_failed", "conflict", "upstream_error"],
      handler: async ({ body }) => json(201, await registries.add(body)),
    }),
    defineRoute({
      method: "get",
      path: "/registries/{id}",
      operationId: "getRegistry",
      access: "admin",
      summary: "Get a registry",
      tags,
      params: IdParams,
      responses: { 200: { description: "The registry", schema: RegistryRecord } },
      errors: ["not_found"],
      handler: async ({ params }) => json(200, await registries.get(params.id)),
    }),
    defineRoute({
      method: "delete",
      path: "/registries/{id}",
      operationId: "deleteRegistry",
      access: "admin",
      summary: "Forget a registry",
      description: "Services and modules installed from it keep their descriptor URL and can still be updated.",
      tags,
      params: IdParams,
      responses: { 204: { description: "Deleted" } },
      errors: ["not_found"],
      handler: async ({ params }) => {
        await registries.remove(params.id);
        return noContent();
      },
    }),
    browse("definitions", "browseRegistryDefinitions", "Browse a registry's service definitions"),
    browse("modules", "browseRegistryModules", "Browse a registry's modules"),
  ];
}
