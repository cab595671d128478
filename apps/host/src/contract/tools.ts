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
  missingSecrets: Type.Optional(
    Type.Array(Type.Array(Type.String()), {
      description:
        "Present when calls cannot authenticate yet: the service secrets the tool needs, as alternatives (one " +
        "alternative's names all set is enough), none of which is set. Calls fail until an operator sets one " +
        "(PATCH /services/{id}/secrets)",
    }),
  ),
});

/** An operator's override of a tool's input constraints (see `PUT /tools/{serviceId}/{toolId}/input-override`). */
export const InputOverride = Type.Object({
  patch: JsonObject,
  reason: Type.String(),
  setBy: Type.String({ description: "The key's name (or \"the host's API key\")" }),
  setAt: Type.String({ format: "date-time" }),
  documentInputSchema: Type.Unknown({
    description: "The input schema the adapter made from the API's document, before the patch",
  }),
});

export const ToolDetail = Type.Composite([
  ToolRecord,
  Type.Object({
    inputSchema: JsonObject,
    outputSchema: JsonObject,
    inputOverride: Type.Optional(
      Type.Union([InputOverride, Type.Null()], {
        description:
          "On a single tool's answer: the operator's override of its input constraints (inputSchema is the " +
          "patched one), or null when the schema is the document's",
      }),
    ),
  }),
]);

/** `PUT /tools/{serviceId}/{toolId}/input-override`. */
export const InputOverrideBody = Type.Object(
  {
    patch: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "A JSON Merge Patch (RFC 7396) applied to the input schema the API's document gives, e.g. " +
        '`{"properties": {"orderId": {"maximum": null}}}` lifts a maximum; `null` removes a keyword',
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: "Why (recorded with it): e.g. the API returns orders past the documented maximum",
    }),
  },
  { additionalProperties: false },
);

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

/** Most tool ids one bulk switch may name (GitHub's REST API has 1,223 tools; Stripe's fewer than 600). */
export const MAX_BULK_TOOL_IDS = 10_000;

/** `POST /services/{id}/tools/enabled`: which tools of the service to switch, all of them when nothing narrows it. */
export const ToolsEnabledBody = Type.Object(
  {
    enabled: Type.Boolean(),
    toolIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: MAX_BULK_TOOL_IDS,
        description: "Only these tools (each must exist, else nothing changes: 404)",
      }),
    ),
    destructive: Type.Optional(
      Type.Boolean({
        description: "Only tools annotated destructive (true) or not (false); combines with toolIds (both must hold)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ToolsEnabledResult = Type.Object({
  enabled: Type.Boolean(),
  matched: Type.Integer({ description: "Tools the request selected" }),
  changed: Type.Integer({ description: "Of those, the ones whose flag changed (the rest had it already)" }),
});

export type ToolRecord = Static<typeof ToolRecord>;
export type ToolDetail = Static<typeof ToolDetail>;
export type InputOverride = Static<typeof InputOverride>;
export type ToolListItem = Static<typeof ToolListItem>;
