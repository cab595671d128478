import { describe, expect, it } from "vitest";
import { readExample } from "../test/helpers/examples.js";
import { generateDefinition } from "./definition.js";
import type { ToolDomain } from "./domain.js";

const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "T", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths,
    ...extra,
  });
const ok = { "200": { description: "ok" } };

describe("generateDefinition", () => {
  it.each([
    "3.0/json/petstore.json",
    "3.1/json/train-travel.json",
    "3.0/json/schema-circular.json",
    "2.0/yaml/petstore.yaml",
  ])("is pure: the same text gives a deep-equal definition (%s)", async (file) => {
    const text = readExample(file);
    const [a, b] = await Promise.all([generateDefinition(text), generateDefinition(text)]);
    const c = await generateDefinition(text);
    expect(b).toEqual(a);
    expect(JSON.stringify(c)).toBe(JSON.stringify(a));
  });

  it("applies the parameter clash rule and reserves body for the request body", async () => {
    const definition = await generateDefinition(
      doc({
        "/items/{id}": {
          parameters: [{ name: "id", in: "path", required: true, description: "Path id", schema: { type: "string" } }],
          put: {
            operationId: "updateItem",
            parameters: [
              { name: "id", in: "query", description: "Query id", schema: { type: "integer" } },
              { name: "body", in: "query", schema: { type: "string" } },
              { name: "id", in: "header", schema: { type: "string" } },
            ],
            requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
            responses: ok,
          },
        },
      }),
    );
    const [tool] = definition.tools;
    expect(tool!.inputSchema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        query_id: { type: "integer", description: "Query id" },
        query_body: { type: "string" },
        header_id: { type: "string" },
        id: { type: "string", description: "Path id" },
        body: { type: "object", description: "Request body, sent as application/json." },
      },
      required: ["id", "body"],
      additionalProperties: false,
    });
    const domain = tool!.adapterDomain as unknown as ToolDomain;
    expect(domain.parameters.map((p) => [p.key, p.in, p.name])).toEqual([
      ["id", "path", "id"],
      ["query_id", "query", "id"],
      ["query_body", "query", "body"],
      ["header_id", "header", "id"],
    ]);
  });

  it("names and describes tools, never with empty text", async () => {
    const definition = await generateDefinition(
      doc({
        "/a": {
          get: { operationId: "getA", summary: "Get an A", responses: ok },
          post: { summary: "Make an A", description: "Makes one.", responses: ok },
          put: { deprecated: true, responses: ok },
          delete: { operationId: "getA", responses: ok },
        },
      }),
    );
    expect(definition.tools.map((t) => [t.id, t.name, t.description])).toEqual([
      ["getA", "Get an A", "Get an A"],
      ["putA", "PUT /a", "Deprecated. PUT /a"],
      ["postA", "Make an A", "Makes one."],
      ["getA_2", "getA", "DELETE /a"],
    ]);
  });

  it("makes parameters the secrets provide optional, says so, and binds them to their scheme", async () => {
    const token = {
      name: "token",
      in: "header",
      required: true,
      description: "Auth token.",
      schema: { type: "string" },
    };
    const definition = await generateDefinition(
      doc(
        {
          "/post": { post: { operationId: "post", parameters: [token], security: [{ slack: [] }], responses: ok } },
          "/open": { get: { operationId: "open", parameters: [token], security: [], responses: ok } },
          "/keyed": {
            get: {
              operationId: "keyed",
              parameters: [{ name: "X-Key", in: "header", required: true, schema: { type: "string" } }],
              responses: ok,
            },
          },
        },
        {
          components: {
            securitySchemes: {
              slack: {
                type: "oauth2",
                flows: { authorizationCode: { authorizationUrl: "https://x", tokenUrl: "https://y", scopes: {} } },
              },
              key: { type: "apiKey", in: "header", name: "x-key" },
            },
          },
        },
      ),
    );
    const [post, open, keyed] = definition.tools;
    expect(post!.inputSchema.required).toBeUndefined();
    expect(post!.inputSchema.properties).toMatchObject({
      token: {
        type: "string",
        description: 'Auth token. Optional: filled from the service\'s secret "slack" when omitted.',
      },
    });
    expect((post!.adapterDomain as unknown as ToolDomain).parameters[0]).toMatchObject({
      key: "token",
      secret: "slack",
    });
    // No security on the operation: nothing provides the token, so the caller must.
    expect(open!.inputSchema.required).toEqual(["token"]);
    expect((open!.adapterDomain as unknown as ToolDomain).parameters[0]!.secret).toBeUndefined();
    expect(keyed!.inputSchema.required).toBeUndefined();
    expect((keyed!.adapterDomain as unknown as ToolDomain).parameters[0]).toMatchObject({
      key: "X-Key",
      secret: "key",
    });
  });

  it("gives each tool its endpoint (method and path template, without a fragment), for the host's search", async () => {
    const definition = await generateDefinition(
      doc({
        "/pets/{petId}": { get: { operationId: "getPet", responses: ok } },
        "/x#frag": { post: { operationId: "x", responses: ok } },
      }),
    );
    expect(definition.tools.map((t) => t.endpoint)).toEqual(["GET /pets/{petId}", "POST /x"]);
  });

  it("outputSchema: lowest 2xx, then default, text for non-JSON, {} when nothing is declared", async () => {
    const json = (type: string) => ({ "application/json": { schema: { type } } });
    const definition = await generateDefinition(
      doc({
        "/a": {
          get: {
            operationId: "a",
            responses: {
              "404": { description: "no", content: json("string") },
              "201": { description: "made", content: json("integer") },
              "200": { description: "fine", content: json("object") },
            },
          },
          put: { operationId: "b", responses: { default: { description: "whatever", content: json("array") } } },
          post: {
            operationId: "c",
            responses: { "200": { description: "csv", content: { "text/csv": { schema: { type: "string" } } } } },
          },
          delete: { operationId: "d", responses: { "204": { description: "gone" } } },
          patch: { operationId: "e", responses: { "400": { description: "bad" } } },
        },
      }),
    );
    const byId = Object.fromEntries(definition.tools.map((t) => [t.id, t.outputSchema]));
    expect(byId.a).toEqual({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", description: "fine" });
    expect(byId.b).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      description: "whatever",
    });
    expect(byId.c).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "string",
      description: "csv Returned as text (text/csv).",
    });
    expect(byId.d).toEqual({});
    expect(byId.e).toEqual({});
  });

  it("picks the first supported request media type and records multipart file fields", async () => {
    const definition = await generateDefinition(
      doc({
        "/upload": {
          post: {
            operationId: "upload",
            requestBody: {
              content: {
                "application/xml": { schema: { type: "object" } },
                "multipart/form-data": {
                  schema: {
                    type: "object",
                    properties: {
                      name: { type: "string" },
                      file: { type: "string", format: "binary" },
                      more: { type: "array", items: { type: "string", format: "binary" } },
                    },
                  },
                  encoding: { file: { contentType: "image/png" } },
                },
              },
            },
            responses: ok,
          },
          put: {
            operationId: "raw",
            requestBody: { description: "The image", content: { "image/png": {} } },
            responses: ok,
          },
        },
      }),
    );
    const upload = definition.tools.find((tool) => tool.id === "upload");
    const raw = definition.tools.find((tool) => tool.id === "raw");
    expect((upload!.adapterDomain as unknown as ToolDomain).body).toEqual({
      mediaType: "multipart/form-data",
      encoding: { file: { contentType: "image/png" } },
      files: ["file", "more"],
    });
    expect((upload!.inputSchema.required as string[] | undefined) ?? []).not.toContain("body");
    const fileObject = expect.objectContaining({ type: "object", required: ["base64"] });
    expect((raw!.inputSchema.properties as Record<string, unknown>).body).toEqual({
      anyOf: [{ type: "string", description: "Text, sent as its UTF-8 bytes." }, fileObject],
      description: "The image",
    });
    const uploadBody = (upload!.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>)
      .body!;
    expect(uploadBody.properties.file).toEqual({
      anyOf: [{ type: "string", format: "binary", description: "Text, sent as its UTF-8 bytes." }, fileObject],
    });
    expect(uploadBody.properties.more).toEqual({
      type: "array",
      items: {
        anyOf: [{ type: "string", format: "binary", description: "Text, sent as its UTF-8 bytes." }, fileObject],
      },
    });
    expect((raw!.adapterDomain as unknown as ToolDomain).body?.mediaType).toBe("image/png");
  });

  it("drops the #fragment of path keys and keeps parameter descriptions and examples", async () => {
    const definition = await generateDefinition(
      doc({
        "/a#variant": {
          get: {
            operationId: "variant",
            parameters: [
              {
                name: "q",
                in: "query",
                description: "Search text",
                example: "cats",
                schema: { type: "string", description: "generic" },
              },
            ],
            responses: ok,
          },
        },
      }),
    );
    const [tool] = definition.tools;
    expect((tool!.adapterDomain as unknown as ToolDomain).path).toBe("/a");
    expect((tool!.inputSchema.properties as Record<string, unknown>).q).toEqual({
      type: "string",
      description: "Search text",
      examples: ["cats"],
    });
  });

  it("says which secrets each tool's call needs, as its security's alternatives the adapter can satisfy", async () => {
    const definition = await generateDefinition(
      doc(
        {
          "/global": { get: { operationId: "global", responses: ok } },
          "/either": { get: { operationId: "either", security: [{ key: [] }, { basic: [], key: [] }], responses: ok } },
          "/anonymous": { get: { operationId: "anonymous", security: [{ key: [] }, {}], responses: ok } },
          "/none": { get: { operationId: "none", security: [], responses: ok } },
          "/tls": { get: { operationId: "tls", security: [{ tls: [] }], responses: ok } },
          "/partly": { get: { operationId: "partly", security: [{ tls: [] }, { oauth: ["read"] }], responses: ok } },
        },
        {
          security: [{ key: [] }],
          components: {
            securitySchemes: {
              key: { type: "apiKey", in: "header", name: "X-Key" },
              basic: { type: "http", scheme: "basic" },
              tls: { type: "http", scheme: "digest" },
              oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "/token", scopes: { read: "" } } } },
            },
          },
        },
      ),
    );
    const secrets = Object.fromEntries(definition.tools.map((tool) => [tool.id, tool.secrets]));
    expect(secrets).toEqual({
      global: [["key"]],
      either: [["key"], ["basic", "key"]],
      // An anonymous alternative, no security, or only schemes no secret can fill: nothing to ask an operator for.
      anonymous: undefined,
      none: undefined,
      tls: undefined,
      partly: [["oauth"]],
    });
  });

  it("carries config and secrets schemas and the service domain", async () => {
    const definition = await generateDefinition(
      doc(
        { "/a": { get: { responses: ok } } },
        { components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } } },
      ),
    );
    expect(definition.name).toBe("T");
    expect(definition.description).toBe("T");
    expect(Object.keys(definition.configSchema.properties as object)).toEqual([
      "baseUrl",
      "timeoutMs",
      "maxResponseBytes",
      "followCrossOriginRedirects",
      "headers",
    ]);
    expect(Object.keys(definition.secretsSchema.properties as object)).toEqual(["token"]);
    expect(definition.adapterDomain).toEqual({
      format: 1,
      server: { template: "https://api.example.com", variables: [], defaultBaseUrl: "https://api.example.com" },
      securitySchemes: { token: { type: "bearer" } },
    });
  });
});
