import type { ToolDocsInput } from "@cyrnel/sdk";

/** Tool descriptions with the schema features the generators must handle (shared by the docs tests). */
export const PETSTORE_ADD_PET: ToolDocsInput = {
  serviceId: "petstore",
  toolId: "addPet",
  description: "Add a new pet to the store.",
  inputSchema: {
    type: "object",
    required: ["body"],
    properties: {
      body: { $ref: "#/$defs/Pet", description: "The pet to add" },
      dryRun: { type: "boolean", default: false, description: "Validate only" },
      mode: { enum: ["fast", "safe"], description: "Write | mode" },
    },
    $defs: {
      Pet: {
        type: "object",
        required: ["name", "photoUrls"],
        properties: {
          id: { type: "integer", format: "int64" },
          name: { type: "string", examples: ["doggie"] },
          photoUrls: { type: "array", items: { type: "string", format: "uri" } },
          tags: { type: "array", items: { $ref: "#/$defs/Tag" } },
          status: { type: ["string", "null"], enum: ["available", "pending", "sold", null] },
          parent: { $ref: "#/$defs/Pet" },
          attributes: { type: "object", additionalProperties: { type: "string" } },
        },
      },
      Tag: {
        type: "object",
        properties: { id: { type: "integer" }, name: { type: "string" } },
        additionalProperties: false,
      },
    },
  },
  outputSchema: {
    anyOf: [{ $ref: "#/definitions/Pet" }, { type: "null" }],
    definitions: {
      Pet: {
        type: "object",
        required: ["id", "name"],
        properties: {
          id: { type: "integer" },
          name: { type: "string" },
          meta: {
            allOf: [
              { type: "object", properties: { created: { type: "string", format: "date-time" } } },
              { type: "object", properties: { version: { oneOf: [{ type: "integer" }, { type: "string" }] } } },
            ],
          },
        },
      },
    },
  },
};

export const WEATHER_FORECAST: ToolDocsInput = {
  serviceId: "weather",
  toolId: "forecast",
  description: "Daily forecast for a city.",
  inputSchema: {
    type: "object",
    required: ["city"],
    properties: {
      city: { type: "string", description: "City name" },
      days: { type: "integer", minimum: 1, maximum: 14, default: 3 },
      units: { enum: ["metric", "imperial"] },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    required: ["days"],
    properties: {
      days: {
        type: "array",
        items: {
          type: "object",
          required: ["date", "high"],
          properties: { date: { type: "string" }, high: { type: "number" } },
        },
      },
    },
  },
};

export const NO_PARAMS: ToolDocsInput = {
  serviceId: "clock",
  toolId: "now",
  description: "",
  inputSchema: { type: "object", properties: {} },
  outputSchema: { type: "string", format: "date-time" },
};
