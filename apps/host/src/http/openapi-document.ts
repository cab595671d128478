/** Builds the host's own OpenAPI 3.1 description from the same route definitions that validate requests. */
import type { TSchema } from "@sinclair/typebox";
import { ErrorBody } from "../contract/common.js";
import { ERROR_STATUS } from "../errors.js";
import { accessOf, answerableErrors, type RouteDefinition } from "./route.js";

const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

export function buildOpenApiDocument(routes: RouteDefinition[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters = [
      ...properties(route.params).map(([name, schema]) => ({ name, in: "path", required: true, schema })),
      ...properties(route.query).map(([name, schema, required]) => ({ name, in: "query", required, schema })),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.schema && {
          content: { [response.contentType ?? "application/json"]: { schema: plain(response.schema) } },
        }),
      };
    }
    for (const code of answerableErrors(route)) {
      const status = String(ERROR_STATUS[code]);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}, ${code}` : code,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description && { description: route.description }),
      tags: route.tags,
      ...(accessOf(route) === "public" && { security: [] }),
      // Only what the definition declares: a test fails for a route without it.
      ...(route.access !== undefined && { "x-cyrnel-access": route.access }),
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && {
        requestBody: { required: true, content: { "application/json": { schema: plain(route.body) } } },
      }),
      responses,
    };
  }
  const { $id: _id, ...errorSchema } = plain(ErrorBody);
  return {
    openapi: "3.1.0",
    info: {
      title: "cyrnel",
      version,
      description:
        "Self-hosted gateway that runs LLM-written TypeScript against typed tools. Errors are " +
        '`{"error", "code", "details"?}`; lists are `{"items", "nextCursor"}` with `limit` and `cursor`.',
    },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "CYRNEL_API_KEY or a stored key (POST /keys), when authentication is on. `x-cyrnel-access` on each " +
            "operation says who may call it: public (no key), agent (any key), admin (admin keys only; 403 otherwise)",
        },
      },
      schemas: { Error: errorSchema },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

function properties(schema: TSchema | undefined): [string, Record<string, unknown>, boolean][] {
  if (!schema) return [];
  const object = plain(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => [
    name,
    property,
    object.required?.includes(name) ?? false,
  ]);
}
