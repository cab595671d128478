/**
 * Inputs built to exhaust or trick the host, made at run time (nothing big
 * is committed), for the tests that send them one by one and for the
 * hostile campaign that sends them all at once.
 */

/** A 1.7 KB YAML document with 25 nested anchors, each referencing the previous twice: 2^25 values expanded. */
export function yamlAliasBomb(): string {
  const lines = ["openapi: 3.0.3", "info: {title: Bomb, version: '1'}", "paths: {}", "components:", "  schemas:"];
  lines.push("    l0: &l0 {type: string}");
  for (let i = 1; i < 25; i++)
    lines.push(`    l${i}: &l${i} {type: object, properties: {a: *l${i - 1}, b: *l${i - 1}}}`);
  return `${lines.join("\n")}\n`;
}

/** JSON whose schemas `$ref` the previous one twice, used by one operation: 2^(levels-1) schemas once dereferenced. */
export function refDoubling(levels: number): string {
  const ref = (i: number) => ({ $ref: `#/components/schemas/l${i}` });
  const schemas: Record<string, unknown> = { l0: { type: "string" } };
  for (let i = 1; i < levels; i++) schemas[`l${i}`] = { type: "object", properties: { a: ref(i - 1), b: ref(i - 1) } };
  const content = { "application/json": { schema: ref(levels - 1) } };
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Refs", version: "1" },
    paths: { "/x": { get: { operationId: "getX", responses: { "200": { description: "ok", content } } } } },
    components: { schemas },
  });
}

/** A ~900 KB OpenAPI document with one schema nested 20,000 levels deep. */
export function deepDefinition(depth = 20_000): string {
  const open = '{"type":"object","properties":{"x":';
  return (
    '{"openapi":"3.0.3","info":{"title":"Deep","version":"1"},"paths":{},"components":{"schemas":{"Deep":' +
    `${open.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}}}}`
  );
}

/** JSON text `{"a":{"a":…1…}}` nested `depth` levels (a merge patch 100,000 deep in the report). */
export const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** `count` RFC 6902 `copy` operations of one small value: past the per-patch operation limit. */
export const manyCopies = (count: number) => [
  { op: "add", path: "/seed", value: "x" },
  ...Array.from({ length: count }, (_, i) => ({ op: "copy", from: "/seed", path: `/c${i}` })),
];

/** `copy` ops that double the document each time: 2^n growth from a few bytes. */
export const doublingCopies = (count: number) => [
  { op: "add", path: "/x0", value: "0123456789abcdef" },
  ...Array.from({ length: count }, (_, i) => ({ op: "add", path: `/x${i + 1}`, value: {} })).flatMap((add, i) => [
    add,
    { op: "copy", from: `/x${i}`, path: `/x${i + 1}/a` },
    { op: "copy", from: `/x${i}`, path: `/x${i + 1}/b` },
  ]),
];

/**
 * `GET /files/{a}/{b}/{c}` (enabled) beside `DELETE /admin/secret` (to be
 * disabled), both behind a bearer token: path parameters `..` must not turn
 * the first into the second.
 */
export function filesDocument(): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: { title: "Files", version: "1" },
    components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } },
    security: [{ token: [] }],
    paths: {
      "/files/{a}/{b}/{c}": {
        get: {
          operationId: "getFile",
          parameters: ["a", "b", "c"].map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
          responses: { "200": { description: "ok" } },
        },
      },
      "/admin/secret": { delete: { operationId: "deleteSecret", responses: { "204": { description: "gone" } } } },
    },
  };
}

/** `GET /items` with an apiKey sent in the query string (`?key=`). */
export function queryKeyDocument(): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: { title: "Keyed", version: "1" },
    components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "key" } } },
    security: [{ key: [] }],
    paths: { "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } } },
  };
}

/** The forms a secret takes on the wire and in echoes of it: as is, percent-encoded (either case), form-encoded. */
export function secretForms(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const lower = (text: string) => text.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
  return [secret, percent, lower(percent), percent.replaceAll("%20", "+"), lower(percent.replaceAll("%20", "+"))];
}
