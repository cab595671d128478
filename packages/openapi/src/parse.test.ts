import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../test/helpers/server.js";
import { parseDocument } from "./parse.js";

const minimal = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "T", version: "1" },
    paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } },
    ...extra,
  });

describe("parseDocument", () => {
  it.each([
    ["Swagger 2.0 JSON", JSON.stringify({ swagger: "2.0", info: { title: "T", version: "1" }, paths: {} }), "2.0"],
    ["Swagger 2.0 YAML", "swagger: '2.0'\ninfo:\n  title: T\n  version: '1'\npaths: {}\n", "2.0"],
    ["OpenAPI 3.0 JSON", minimal(), "3.0"],
    ["OpenAPI 3.0 YAML", "openapi: 3.0.3\ninfo:\n  title: T\n  version: '1'\npaths: {}\n", "3.0"],
    ["OpenAPI 3.1 JSON", JSON.stringify({ openapi: "3.1.0", info: { title: "T", version: "1" }, paths: {} }), "3.1"],
    ["OpenAPI 3.1 webhooks only", "openapi: 3.1.0\ninfo:\n  title: T\n  version: '1'\nwebhooks: {}\n", "3.1"],
    ["JSON with a byte order mark", `\uFEFF${minimal()}`, "3.0"],
  ])("accepts %s", async (_label, text, version) => {
    const parsed = await parseDocument(text);
    expect(parsed.version).toBe(version);
  });

  it("keeps $refs as written", async () => {
    const text = minimal({
      paths: { "/a": { get: { responses: { "200": { $ref: "#/components/responses/Ok" } } } } },
      components: { responses: { Ok: { description: "ok" } } },
    });
    const { document } = await parseDocument(text);
    expect(JSON.stringify(document)).toContain('"$ref":"#/components/responses/Ok"');
  });

  it.each([
    ["empty text", "", /definition is empty/],
    ["whitespace", "  \n ", /definition is empty/],
    [
      "malformed JSON (with line and column)",
      '{\n  "openapi": "3.0.3",\n  "info": {,}\n}',
      /^Invalid JSON: .*line 3, column 12/,
    ],
    [
      "malformed YAML",
      "openapi: 3.0.3\ninfo:\n  title: t\n   version: '1'\npaths: {}\n",
      /^Invalid YAML: bad indentation .*\(4:11\)/s,
    ],
    ["a YAML scalar", "hello", /Invalid OpenAPI document/],
    [
      "not OpenAPI at all",
      JSON.stringify({ hello: "world" }),
      /Invalid OpenAPI document: the document is not a valid Openapi API definition/,
    ],
    [
      "an unsupported OpenAPI version",
      JSON.stringify({ openapi: "4.0.0", info: { title: "T", version: "1" }, paths: {} }),
      /Unsupported OpenAPI version: 4\.0\.0/,
    ],
    [
      "a Swagger version number",
      JSON.stringify({ swagger: 2, info: { title: "T", version: "1" }, paths: {} }),
      /must be a string/,
    ],
    [
      "a schema violation (names the JSON pointer)",
      minimal({ paths: { "/a": { get: { responses: { "200": {} } } } } }),
      /Invalid OpenAPI document: #\/paths\/~1a\/get\/responses\/200 must have required property 'description'/,
    ],
    [
      "unknown keys (named, each problem once)",
      minimal({ source: "x", paths: { "/a": { get: { responses: { "200": { description: "ok" } }, bogus: 1 } } } }),
      /^Invalid OpenAPI document: #\/ must NOT have the additional property "source"; #\/paths\/~1a\/get must NOT have the additional property "bogus"$/,
    ],
    [
      "a $ref that does not resolve (names the reference and where it is)",
      minimal({ paths: { "/a": { get: { responses: { "200": { $ref: "#/components/responses/Nope" } } } } } }),
      /\$ref "#\/components\/responses\/Nope" at #\/paths\/~1a\/get\/responses\/200 does not resolve/,
    ],
    [
      "a relative file $ref",
      minimal({ paths: { "/a": { get: { responses: { "200": { $ref: "./responses.yaml#/Ok" } } } } } }),
      /external \$ref "\.\/responses\.yaml#\/Ok" at #\/paths\/~1a\/get\/responses\/200 is not supported/,
    ],
    [
      "an absolute file $ref (never read)",
      minimal({ components: { schemas: { P: { $ref: "/etc/passwd" } } } }),
      /external \$ref "\/etc\/passwd" at #\/components\/schemas\/P is not supported/,
    ],
    [
      "a plain-name fragment",
      minimal({ components: { schemas: { P: { $ref: "#Pet" } } } }),
      /not a JSON pointer .* \(at #\/components\/schemas\/P\)/,
    ],
  ])("rejects %s", async (_label, text, message) => {
    await expect(parseDocument(text)).rejects.toThrow(message);
  });

  describe("a $ref must resolve to what its place expects (as if the document were dereferenced)", () => {
    const operation = (extra: Record<string, unknown> = {}) => ({
      responses: { "200": { description: "ok" } },
      ...extra,
    });
    const document = (openapi: string, paths: Record<string, unknown>, components: Record<string, unknown> = {}) =>
      JSON.stringify({ openapi, info: { title: "T", version: "1" }, paths, components });
    const schemas = { S: { type: "string" }, A: { type: "object", properties: { a: { type: "string" } } } };
    const parameters = { P: { name: "p", in: "query", schema: { type: "string" } } };

    it.each([
      [
        "a parameter that is a schema",
        document(
          "3.0.3",
          { "/a": { get: operation({ parameters: [{ $ref: "#/components/schemas/S" }] }) } },
          { schemas },
        ),
        /#\/paths\/~1a\/get\/parameters\/0 must have required property 'name'/,
      ],
      [
        "a parameter component that is a reference to a schema",
        document(
          "3.0.3",
          { "/a": { get: operation({ parameters: [{ $ref: "#/components/parameters/P" }] }) } },
          { schemas, parameters: { P: { $ref: "#/components/schemas/S" } } },
        ),
        /#\/components\/parameters\/P must have required property 'name'/,
      ],
      [
        "a response that is a parameter",
        document(
          "3.0.3",
          { "/a": { get: { responses: { "200": { $ref: "#/components/parameters/P" } } } } },
          { parameters },
        ),
        /#\/paths\/~1a\/get\/responses\/200 must have required property 'description'/,
      ],
      [
        "a request body that is a response",
        document(
          "3.0.3",
          { "/a": { post: operation({ requestBody: { $ref: "#/components/responses/R" } }) } },
          {
            responses: { R: { description: "r" } },
          },
        ),
        /^Invalid OpenAPI document: #\/paths\/~1a\/post\/requestBody must have required property 'content'$/,
      ],
      [
        "a path item that is an operation",
        document("3.0.3", { "/a": { get: operation() }, "/b": { $ref: "#/paths/~1a/get" } }),
        /#\/paths\/~1b must NOT have the additional property "responses"/,
      ],
      [
        "a schema $ref with an unknown key next to it (merged into the target, as dereferencing does)",
        document(
          "3.0.3",
          {
            "/a": {
              get: operation({
                parameters: [{ name: "p", in: "query", schema: { $ref: "#/components/schemas/A", bogus: 1 } }],
              }),
            },
          },
          { schemas },
        ),
        /^Invalid OpenAPI document: #\/paths\/~1a\/get\/parameters\/0\/schema must NOT have the additional property "bogus"$/,
      ],
      [
        "3.1: a parameter that is a schema",
        document(
          "3.1.0",
          { "/a": { get: operation({ parameters: [{ $ref: "#/components/schemas/S" }] }) } },
          { schemas },
        ),
        /#\/paths\/~1a\/get\/parameters\/0 must have required property 'in'/,
      ],
      [
        "3.1: a parameter $ref with an unknown key next to it",
        document(
          "3.1.0",
          { "/a": { get: operation({ parameters: [{ $ref: "#/components/parameters/P", bogus: 1 }] }) } },
          {
            parameters,
          },
        ),
        /#\/paths\/~1a\/get\/parameters\/0 must NOT have unevaluated properties/,
      ],
      [
        "the same parameter twice, once through a reference",
        document(
          "3.0.3",
          { "/a": { get: operation({ parameters: [{ $ref: "#/components/parameters/P" }, parameters.P] }) } },
          { parameters },
        ),
        /#\/paths\/~1a\/get\/parameters must NOT have duplicate items \(items ## 0 and 1 are identical\)/,
      ],
      [
        "a $ref where no reference may stand (OAuth2 scopes), checked as dereferenced",
        document(
          "3.0.3",
          {},
          {
            schemas,
            securitySchemes: {
              o: {
                type: "oauth2",
                flows: { implicit: { authorizationUrl: "https://x.test", scopes: { $ref: "#/components/schemas/A" } } },
              },
            },
          },
        ),
        /#\/components\/securitySchemes\/o\/flows\/implicit\/scopes\/properties must be string/,
      ],
      [
        "a $ref where no reference may stand, in a document with a reference inside components/examples",
        document(
          "3.0.3",
          {},
          {
            schemas,
            examples: { E: { $ref: "#/components/examples/F" }, F: { value: 1 } },
            securitySchemes: {
              o: {
                type: "oauth2",
                flows: { implicit: { authorizationUrl: "https://x.test", scopes: { $ref: "#/components/schemas/A" } } },
              },
            },
          },
        ),
        /#\/components\/securitySchemes\/o\/flows\/implicit\/scopes\/properties must be string/,
      ],
      [
        "an example $ref that resolves to nothing",
        document("3.0.3", {}, { examples: { E: { $ref: "#/components/examples/Nope" } } }),
        /#\/components\/examples\/E \$ref "#\/components\/examples\/Nope" does not resolve to anything in the document/,
      ],
      [
        "3.1: a Schema Object that is a reference to a string",
        document("3.1.0", {
          "/a": { get: operation({ parameters: [{ name: "p", in: "query", schema: { $ref: "#/info/title" } }] }) },
        }),
        /#\/paths\/~1a\/get\/parameters\/0\/schema must be object,boolean/,
      ],
    ])("refuses %s, naming the reference", async (_label, text, message) => {
      await expect(parseDocument(text)).rejects.toThrow(message);
    });

    it.each([
      [
        "a response $ref into paths",
        document("3.0.3", {
          "/a": { get: operation() },
          "/b": { get: { responses: { "200": { $ref: "#/paths/~1a/get/responses/200" } } } },
        }),
      ],
      ["a path item $ref", document("3.0.3", { "/a": { get: operation() }, "/b": { $ref: "#/paths/~1a" } })],
      [
        "a schema $ref with a description next to it",
        document(
          "3.0.3",
          {
            "/a": {
              get: operation({
                parameters: [{ name: "p", in: "query", schema: { $ref: "#/components/schemas/A", description: "d" } }],
              }),
            },
          },
          { schemas },
        ),
      ],
      [
        "3.1: a path item $ref in paths",
        document("3.1.0", { "/a": { get: operation() }, "/b": { $ref: "#/paths/~1a" } }),
      ],
      [
        "3.1: a parameter $ref with an extension next to it",
        document(
          "3.1.0",
          { "/a": { get: operation({ parameters: [{ $ref: "#/components/parameters/P", "x-note": 1 }] }) } },
          {
            parameters,
          },
        ),
      ],
    ])("accepts %s", async (_label, text) => {
      await expect(parseDocument(text)).resolves.toMatchObject({ document: JSON.parse(text) });
    });
  });

  it("shows each validation line once", async () => {
    const text = minimal({
      paths: {
        "/a": {
          get: {
            parameters: [{ name: "x", in: "query", schema: { type: "string" }, content: {}, required: "yes" }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    const message = await parseDocument(text).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(message).toMatch(/#\/paths\/~1a\/get\/parameters\/0\/required must be boolean/);
    expect(message.split("must match exactly one schema in oneOf").length).toBe(2);
  });

  it("ignores $ref-looking keys inside examples and extensions", async () => {
    const text = minimal({
      components: {
        schemas: {
          P: { type: "object", example: { $ref: "not-a-ref" }, "x-note": { $ref: "https://example.invalid/x" } },
        },
      },
    });
    await expect(parseDocument(text)).resolves.toMatchObject({ version: "3.0" });
  });

  describe("never fetches external references", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer();
    });
    afterAll(() => server.close());

    it("rejects a URL $ref without requesting it", async () => {
      const ref = `${server.url}/schemas.json#/Pet`;
      const text = minimal({ components: { schemas: { Pet: { $ref: ref } } } });
      await expect(parseDocument(text)).rejects.toThrow(
        `external $ref "${ref}" at #/components/schemas/Pet is not supported`,
      );
      expect(server.requests).toHaveLength(0);
    });
  });
});
