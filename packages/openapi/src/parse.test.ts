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
