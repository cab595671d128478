/** Tools: one per operation of a service, each with JSON Schemas for its input and output. */
import { type Static, Type } from "@sinclair/typebox";
import { JsonObject } from "./common.js";
import { PolicyAction, ToolAnnotations } from "./governance.js";

export const ToolRecord = Type.Object({
  serviceId: Type.String(),
  id: Type.String({ description: "The id used in code: cyrnel.services.<serviceId>.tools.<id>" }),
  name: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  effectivelyEnabled: Type.Boolean({
    description: "Tool and service enabled, service not stale; false: calls fail",
  }),
  annotations: ToolAnnotations,
  policy: PolicyAction,
});

export const ToolDetail = Type.Composite([
  ToolRecord,
  Type.Object({ inputSchema: JsonObject, outputSchema: JsonObject }),
]);

/** A list item: the schemas come along with `?include=schemas` (one request for an agent that wants them all). */
export const ToolListItem = Type.Composite([
  ToolRecord,
  Type.Object({ inputSchema: Type.Optional(JsonObject), outputSchema: Type.Optional(JsonObject) }),
]);

/** `GET /tools/{serviceId}/{toolId}/docs`. */
export const ToolDocsQuery = Type.Object({
  expand: Type.Optional(
    Type.String({
      minLength: 1,
      description: "A type named on the page (or `Input`/`Output`, the whole parameter/result type) to show in full",
    }),
  ),
});

export type ToolRecord = Static<typeof ToolRecord>;
export type ToolDetail = Static<typeof ToolDetail>;
export type ToolListItem = Static<typeof ToolListItem>;
