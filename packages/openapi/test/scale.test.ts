import SwaggerParser from "@apidevtools/swagger-parser";
import { isValidIdentifier } from "@cyrnel/sdk";
import type { OpenAPI } from "openapi-types";
import { describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { hostAjv } from "./helpers/ajv.js";

/** A synthetic OpenAPI 3.0 document: `paths` paths × (get + post), shared and recursive schemas, shared parameters. */
function largeDocument(paths: number): string {
  const schemas: Record<string, unknown> = {
    Node: {
      type: "object",
      properties: { id: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
    },
    Error: {
      type: "object",
      required: ["message"],
      properties: { message: { type: "string" }, cause: { $ref: "#/components/schemas/Error" } },
    },
  };
  for (let i = 0; i < 50; i++) {
    schemas[`Resource${i}`] = {
      type: "object",
      required: ["id"],
      properties: {
        id: { type: "integer", format: "int64", readOnly: true },
        name: { type: "string", nullable: true, example: `name ${i}` },
        tree: { $ref: "#/components/schemas/Node" },
        next: { $ref: `#/components/schemas/Resource${(i + 1) % 50}` },
      },
    };
  }
  const document: Record<string, unknown> = {
    openapi: "3.0.3",
    info: { title: "Scale", version: "1" },
    servers: [{ url: "https://api.example.com/v1" }],
    components: {
      schemas,
      parameters: { Limit: { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } } },
      securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } },
    },
    security: [{ key: [] }],
    paths: {},
  };
  const pathItems = document.paths as Record<string, unknown>;
  for (let i = 0; i < paths; i++) {
    const resource = `#/components/schemas/Resource${i % 50}`;
    pathItems[`/group${i % 20}/items${i}/{itemId}`] = {
      parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "string" } }],
      get: {
        ...(i % 3 === 0 ? {} : { operationId: `items${i}/get-one` }),
        parameters: [
          { $ref: "#/components/parameters/Limit" },
          { name: "itemId", in: "query", schema: { type: "string" } },
        ],
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { $ref: resource } } } },
          default: {
            description: "error",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        },
      },
      post: {
        operationId: i % 7 === 0 ? "duplicate" : `createItem${i}`,
        requestBody: { required: true, content: { "application/json": { schema: { $ref: resource } } } },
        responses: {
          "201": { description: "created", content: { "application/json": { schema: { $ref: resource } } } },
        },
      },
    };
  }
  return JSON.stringify(document);
}

describe("scale", () => {
  it("installs a document with 2,000 operations deterministically", async () => {
    const text = largeDocument(1000);
    const adapter = instantiate();

    const started = performance.now();
    const first = await adapter.generateDefinition(text);
    const ours = performance.now() - started;
    const second = await adapter.generateDefinition(text);

    const baselineStarted = performance.now();
    await SwaggerParser.dereference(JSON.parse(text) as OpenAPI.Document);
    const baseline = performance.now() - baselineStarted;
    console.log(
      `scale: 2000 operations → generateDefinition ${ours.toFixed(0)} ms vs SwaggerParser.dereference ${baseline.toFixed(0)} ms (${(ours / baseline).toFixed(1)}×)`,
    );

    expect(first.tools).toHaveLength(2000);
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));

    const ids = first.tools.map((tool) => tool.id);
    expect(new Set(ids).size).toBe(2000);
    expect(ids.every((id) => isValidIdentifier(id))).toBe(true);
    expect(ids.slice(0, 4)).toEqual(["getGroup0Items0ItemId", "duplicate", "items1GetOne", "createItem1"]);
    expect(ids.filter((id) => id.startsWith("duplicate"))).toHaveLength(143);

    const ajv = hostAjv();
    for (const tool of first.tools.filter((_tool, index) => index % 40 === 0)) {
      ajv.compile(tool.inputSchema);
      ajv.compile(tool.outputSchema);
    }
    // Shared schemas are emitted once per tool, so the definition stays linear in the document.
    expect(JSON.stringify(first).length).toBeLessThan(text.length * 60);
  });
});
