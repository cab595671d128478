import { describe, expect, it } from "vitest";
import { collectionStyle, describeApi, pickSuccessStatus } from "./operations.js";
import type { JsonRecord } from "./records.js";

const openapi = (paths: JsonRecord, extra: JsonRecord = {}) =>
  describeApi({ version: "3.0", document: { openapi: "3.0.3", info: { title: "T", version: "1" }, paths, ...extra } });
const swagger = (paths: JsonRecord, extra: JsonRecord = {}) =>
  describeApi({ version: "2.0", document: { swagger: "2.0", info: { title: "T", version: "1" }, paths, ...extra } });
const ok = { "200": { description: "ok" } };

describe("describeApi (OpenAPI 3)", () => {
  it("emits operations in document order, methods in path-item order", () => {
    const api = openapi({
      "/b": { post: { responses: ok }, get: { responses: ok } },
      "/a": { delete: { responses: ok } },
      "x-ignored": {},
    });
    expect(api.operations.map((op) => `${op.method} ${op.path}`)).toEqual(["get /b", "post /b", "delete /a"]);
  });

  it("merges path-level and operation-level parameters; the operation wins on name and location", () => {
    const api = openapi(
      {
        "/items/{id}": {
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" }, description: "path level" },
            { name: "limit", in: "query", schema: { type: "integer" } },
            { $ref: "#/components/parameters/Trace" },
          ],
          get: {
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "integer" }, description: "operation level" },
              { name: "id", in: "query", schema: { type: "string" } },
            ],
            responses: ok,
          },
        },
      },
      { components: { parameters: { Trace: { name: "X-Trace", in: "header", schema: { type: "string" } } } } },
    );
    const params = api.operations[0]!.parameters.map((p) => [p.in, p.name, p.description ?? null, p.schema]);
    expect(params).toEqual([
      ["query", "limit", null, { type: "integer" }],
      ["header", "X-Trace", null, { type: "string" }],
      ["path", "id", "operation level", { type: "integer" }],
      ["query", "id", null, { type: "string" }],
    ]);
  });

  it("defaults style and explode per location and ignores Accept/Content-Type/Authorization headers", () => {
    const api = openapi({
      "/p/{a}": {
        get: {
          parameters: [
            { name: "a", in: "path", required: true, schema: { type: "string" } },
            { name: "q", in: "query", schema: { type: "string" } },
            { name: "h", in: "header", schema: { type: "string" } },
            { name: "c", in: "cookie", schema: { type: "string" } },
            { name: "d", in: "query", style: "deepObject", explode: true, schema: { type: "object" } },
            { name: "Accept", in: "header", schema: { type: "string" } },
            { name: "content-type", in: "header", schema: { type: "string" } },
            { name: "Authorization", in: "header", schema: { type: "string" } },
          ],
          responses: ok,
        },
      },
    });
    expect(api.operations[0]!.parameters.map((p) => [p.name, p.style, p.explode, p.required])).toEqual([
      ["a", "simple", false, true],
      ["q", "form", true, false],
      ["h", "simple", false, false],
      ["c", "form", true, false],
      ["d", "deepObject", true, false],
    ]);
  });

  it("content-based parameters take the media type's schema", () => {
    const api = openapi({
      "/a": {
        get: {
          parameters: [
            { name: "filter", in: "query", content: { "application/json": { schema: { type: "object" } } } },
          ],
          responses: ok,
        },
      },
    });
    expect(api.operations[0]!.parameters[0]).toMatchObject({
      contentType: "application/json",
      schema: { type: "object" },
    });
  });

  it("adds undeclared path placeholders as required string parameters", () => {
    const api = openapi({
      "/users/{userId}/repos/{repo}": {
        get: { parameters: [{ name: "repo", in: "path", required: true, schema: { type: "integer" } }], responses: ok },
      },
    });
    expect(api.operations[0]!.parameters.map((p) => [p.name, p.required, p.schema])).toEqual([
      ["repo", true, { type: "integer" }],
      ["userId", true, { type: "string" }],
    ]);
  });

  it("collects parameter examples", () => {
    const api = openapi(
      {
        "/a": {
          get: {
            parameters: [
              { name: "x", in: "query", schema: { type: "string" }, example: "one" },
              {
                name: "y",
                in: "query",
                schema: { type: "string" },
                examples: { a: { value: "two" }, b: { $ref: "#/components/examples/Three" } },
              },
            ],
            responses: ok,
          },
        },
      },
      { components: { examples: { Three: { value: "three" } } } },
    );
    expect(api.operations[0]!.parameters.map((p) => p.examples)).toEqual([["one"], ["two", "three"]]);
  });

  it("resolves request bodies, keeps media types in order and the success response", () => {
    const api = openapi(
      {
        "/a": {
          post: {
            requestBody: { $ref: "#/components/requestBodies/Pet" },
            responses: {
              "404": { description: "no" },
              "201": { description: "created", content: { "application/json": { schema: { type: "object" } } } },
              "200": { description: "ok" },
            },
          },
        },
      },
      {
        components: {
          requestBodies: {
            Pet: {
              required: true,
              description: "A pet",
              content: {
                "application/xml": { schema: { type: "object" } },
                "application/json": { schema: { type: "object" } },
              },
            },
          },
        },
      },
    );
    const op = api.operations[0]!;
    expect(op.body).toMatchObject({ required: true, description: "A pet" });
    expect(op.body!.content.map((c) => c.type)).toEqual(["application/xml", "application/json"]);
    expect(op.success).toMatchObject({ status: "200", description: "ok", content: [] });
  });

  it("resolves operation and path servers, operation first", () => {
    const api = openapi(
      {
        "/a": {
          servers: [{ url: "https://path.example.com" }],
          get: {
            servers: [
              { url: "https://{region}.op.example.com", variables: { region: { default: "eu", enum: ["eu", "us"] } } },
            ],
            responses: ok,
          },
          put: { responses: ok },
        },
      },
      { servers: [{ url: "https://global.example.com/v1" }] },
    );
    expect(api.servers).toEqual([{ url: "https://global.example.com/v1", variables: [] }]);
    expect(api.operations.map((op) => op.servers)).toEqual([
      [{ url: "https://{region}.op.example.com", variables: [{ name: "region", default: "eu", enum: ["eu", "us"] }] }],
      [{ url: "https://path.example.com", variables: [] }],
    ]);
  });

  it("inherits global security unless the operation overrides it; [] means none", () => {
    const api = openapi(
      {
        "/a": {
          get: { responses: ok },
          put: { security: [], responses: ok },
          post: { security: [{ key: [] }, {}], responses: ok },
        },
      },
      { security: [{ oauth: ["read", "write"], key: [] }] },
    );
    expect(api.operations.map((op) => op.security)).toEqual([
      [
        [
          { scheme: "oauth", scopes: ["read", "write"] },
          { scheme: "key", scopes: [] },
        ],
      ],
      [],
      [[{ scheme: "key", scopes: [] }], []],
    ]);
  });

  it("falls back on info for the service name and description", () => {
    expect(openapi({})).toMatchObject({ title: "T", description: "T" });
    const api = describeApi({
      version: "3.1",
      document: { openapi: "3.1.0", info: { title: " X ", summary: "Sum", version: "1" } },
    });
    expect(api).toMatchObject({ title: "X", description: "Sum", operations: [] });
  });
});

describe("pickSuccessStatus", () => {
  it.each([
    [["404", "201", "200"], "200"],
    [["default", "2XX"], "2XX"],
    [["default", "404"], "default"],
    [["400", "500"], undefined],
    [["204"], "204"],
  ])("%j → %s", (statuses, expected) => {
    expect(pickSuccessStatus(statuses)).toBe(expected);
  });
});

describe("describeApi (Swagger 2)", () => {
  it("derives the server from schemes, host and basePath", () => {
    expect(swagger({}, { host: "api.example.com", basePath: "/v1", schemes: ["http", "https"] }).servers).toEqual([
      { url: "https://api.example.com/v1", variables: [] },
    ]);
    expect(swagger({}, { host: "api.example.com", schemes: ["http"] }).servers).toEqual([
      { url: "http://api.example.com", variables: [] },
    ]);
    expect(swagger({}, { host: "api.example.com" }).servers).toEqual([
      { url: "https://api.example.com", variables: [] },
    ]);
    expect(swagger({}, { basePath: "/v2" }).servers).toEqual([{ url: "/v2", variables: [] }]);
    expect(swagger({}).servers).toEqual([]);
  });

  it("turns a body parameter into a request body with the consumed media types", () => {
    const api = swagger(
      {
        "/pets": {
          post: {
            parameters: [
              {
                name: "pet",
                in: "body",
                required: true,
                description: "The pet",
                schema: { $ref: "#/definitions/Pet" },
              },
            ],
            responses: ok,
          },
        },
      },
      { consumes: ["application/json", "application/xml"] },
    );
    expect(api.operations[0]!.body).toEqual({
      description: "The pet",
      required: true,
      content: [
        { type: "application/json", schema: { $ref: "#/definitions/Pet" }, encoding: {} },
        { type: "application/xml", schema: { $ref: "#/definitions/Pet" }, encoding: {} },
      ],
    });
  });

  it("turns formData parameters into an object body (multipart when a file is present)", () => {
    const api = swagger({
      "/upload": {
        post: {
          parameters: [
            { name: "file", in: "formData", type: "file", required: true, description: "The file" },
            { name: "tags", in: "formData", type: "array", items: { type: "string" }, collectionFormat: "multi" },
          ],
          responses: ok,
        },
      },
    });
    expect(api.operations[0]!.body).toEqual({
      required: true,
      content: [
        {
          type: "multipart/form-data",
          schema: {
            type: "object",
            properties: {
              file: { type: "file", description: "The file" },
              tags: { type: "array", items: { type: "string" } },
            },
            required: ["file"],
          },
          encoding: { tags: { style: "form", explode: true } },
        },
      ],
    });
  });

  it("maps collectionFormat and takes the parameter's own schema keywords", () => {
    const api = swagger({
      "/a": {
        get: {
          parameters: [
            {
              name: "ids",
              in: "query",
              type: "array",
              items: { type: "integer" },
              collectionFormat: "pipes",
              description: "Ids",
            },
            { name: "n", in: "query", type: "integer", minimum: 1, exclusiveMinimum: true, "x-example": 3 },
          ],
          responses: { "200": { description: "ok", schema: { type: "array", items: { type: "string" } } } },
          produces: ["application/xml", "application/json"],
        },
      },
    });
    const op = api.operations[0]!;
    expect(op.parameters.map((p) => [p.name, p.style, p.explode, p.schema, p.examples])).toEqual([
      ["ids", "pipeDelimited", false, { type: "array", items: { type: "integer" } }, []],
      ["n", "form", false, { type: "integer", minimum: 1, exclusiveMinimum: true }, [3]],
    ]);
    expect(op.success!.content.map((c) => c.type)).toEqual(["application/xml", "application/json"]);
  });

  it("converts security definitions to the OpenAPI 3 shape", () => {
    const api = swagger(
      {},
      {
        securityDefinitions: {
          basic: { type: "basic" },
          key: { type: "apiKey", name: "X-Key", in: "header" },
          app: { type: "oauth2", flow: "application", tokenUrl: "https://auth/token", scopes: { read: "Read" } },
          implicit: { type: "oauth2", flow: "implicit", authorizationUrl: "https://auth/authorize", scopes: {} },
          constructor: { type: "oauth2", flow: "constructor", scopes: {} },
        },
      },
    );
    expect(api.securitySchemes).toEqual({
      basic: { type: "http", scheme: "basic" },
      key: { type: "apiKey", name: "X-Key", in: "header" },
      app: {
        type: "oauth2",
        flows: { clientCredentials: { tokenUrl: "https://auth/token", scopes: { read: "Read" } } },
      },
      implicit: { type: "oauth2", flows: { implicit: { authorizationUrl: "https://auth/authorize", scopes: {} } } },
      constructor: { type: "oauth2", flows: {} },
    });
  });
});

describe("collectionStyle", () => {
  it.each([
    [undefined, "query", { style: "form", explode: false }],
    ["csv", "path", { style: "simple", explode: false }],
    ["csv", "header", { style: "simple", explode: false }],
    ["multi", "query", { style: "form", explode: true }],
    ["ssv", "query", { style: "spaceDelimited", explode: false }],
    ["tsv", "query", { style: "tabDelimited", explode: false }],
    ["pipes", "query", { style: "pipeDelimited", explode: false }],
  ] as const)("%s in %s", (format, location, expected) => {
    expect(collectionStyle(format, location)).toEqual(expected);
  });
});
