import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { FakeHost, rejection } from "./helpers/host.js";
import { json, startServer, type TestServer } from "./helpers/server.js";

/**
 * Path parameters must never change which operation the upstream sees:
 * per-tool gating is only worth something if `GET /files/{a}/{b}/{c}`
 * cannot be turned into `GET /admin/secret`. The assertions read the raw
 * request target from the request line the server received, because
 * `fetch` parses the URL (WHATWG) and would silently collapse `..`,
 * `%2e%2e` and friends before anything reaches the socket.
 */

let server: TestServer;
let host: FakeHost;

const anything = {};
const param = (name: string, style: string, explode: boolean) => ({
  name,
  in: "path",
  required: true,
  style,
  explode,
  schema: anything,
});
const op = (operationId: string, parameters: unknown[]) => ({
  get: { operationId, parameters, responses: { "200": { description: "ok" } } },
});

const document = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "Files", version: "1" },
  components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } },
  security: [{ token: [] }],
  paths: {
    "/files/{a}/{b}/{c}": op("getFile", [
      param("a", "simple", false),
      param("b", "simple", false),
      param("c", "simple", false),
    ]),
    "/admin/secret": { delete: { operationId: "deleteSecret", responses: { "204": { description: "gone" } } } },
    "/simple/{v}/end": op("simpleOne", [param("v", "simple", false)]),
    "/simple-exploded/{v}/end": op("simpleExploded", [param("v", "simple", true)]),
    "/label/{v}/end": op("labelOne", [param("v", "label", false)]),
    "/label-exploded/{v}/end": op("labelExploded", [param("v", "label", true)]),
    "/matrix/{v}/end": op("matrixOne", [param("v", "matrix", false)]),
    "/matrix-exploded/{v}/end": op("matrixExploded", [param("v", "matrix", true)]),
    "/joined/{x}{y}/end": op("joined", [param("x", "simple", false), param("y", "simple", false)]),
  },
});

beforeAll(async () => {
  server = await startServer();
  host = new FakeHost(instantiate());
  await host.install("files", document, { baseUrl: `${server.url}/api` }, { token: "files-token-1234" });
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.handle((_request, response) => json(response, 200, { ok: true }));
});

describe("dot segments in path parameters", () => {
  it("the reported escape: getFile(.., admin, secret) never reaches /admin/secret", async () => {
    const error = await rejection(host.invoke("files", "getFile", { a: "..", b: "admin", c: "secret" }));
    expect(error.message).toMatch(/path parameter "a".*"\.\."/i);
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["getFile", { a: "files", b: ".", c: "x" }, "b"],
    ["getFile", { a: "x", b: "y", c: ".." }, "c"],
    ["simpleOne", { v: [".."] }, "v"],
    ["simpleOne", { v: ["."] }, "v"],
    ["simpleExploded", { v: [".."] }, "v"],
    // Label style prefixes a dot: "" → ".", "." → "..", and so do empty arrays and objects.
    ["labelOne", { v: "" }, "v"],
    ["labelOne", { v: "." }, "v"],
    ["labelOne", { v: ["."] }, "v"],
    ["labelOne", { v: {} }, "v"],
    ["labelExploded", { v: ["", ""] }, "v"],
    ["labelExploded", { v: [""] }, "v"],
    // Two parameters that only together make a dot segment.
    ["joined", { x: ".", y: "." }, "x"],
    // A dot segment behind an encoded separator: a server that decodes %2F or %5C first resolves it.
    ["getFile", { a: "../admin", b: "x", c: "y" }, "a"],
    ["getFile", { a: "x", b: "y", c: "..\\..\\x" }, "c"],
    ["getFile", { a: "x", b: "a/./b", c: "y" }, "b"],
    ["simpleOne", { v: ["../x"] }, "v"],
  ])("%s %j is refused before any request", async (tool, parameters, named) => {
    const error = await rejection(host.invoke("files", tool, parameters));
    expect(error.message).toContain(`"${named}"`);
    expect(error.message).toMatch(/dot segment/);
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string]>([
    // Encoded dots are data: the `%` itself is encoded, so the server decodes them to the literal text.
    ["getFile", { a: "%2e%2e", b: "admin", c: "secret" }, "/api/files/%252e%252e/admin/secret"],
    ["getFile", { a: "%2E%2e", b: ".%2E", c: "%2e." }, "/api/files/%252E%252e/.%252E/%252e."],
    // Separators and delimiters inside a value stay inside the segment.
    ["getFile", { a: "..admin", b: "a/b", c: "x\\...\\.x" }, "/api/files/..admin/a%2Fb/x%5C...%5C.x"],
    ["getFile", { a: "q?x=1", b: "h#f", c: "%" }, "/api/files/q%3Fx%3D1/h%23f/%25"],
    ["getFile", { a: "...", b: ".a", c: "a." }, "/api/files/.../.a/a."],
    ["getFile", { a: " ..", b: "..\t", c: "\n.." }, "/api/files/%20../..%09/%0A.."],
    ["simpleOne", { v: [".", "."] }, "/api/simple/.,./end"],
    ["simpleExploded", { v: { ".": "..", "..": "." } }, "/api/simple-exploded/.=..,..=./end"],
    ["labelOne", { v: "x" }, "/api/label/.x/end"],
    ["labelOne", { v: ".." }, "/api/label/.../end"],
    ["labelExploded", { v: [".", "."] }, "/api/label-exploded/..../end"],
    ["matrixOne", { v: ".." }, "/api/matrix/;v=../end"],
    ["matrixExploded", { v: { "..": ".." } }, "/api/matrix-exploded/;..=../end"],
    ["matrixExploded", { v: [".", ".."] }, "/api/matrix-exploded/;v=.;v=../end"],
  ])("%s %j is sent as %s, byte for byte", async (tool, parameters, target) => {
    await host.invoke("files", tool, parameters);
    expect(server.requests.map((request) => request.target)).toEqual([target]);
  });
});
