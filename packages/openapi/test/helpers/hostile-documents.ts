/**
 * Small texts that are expensive to process: they stand for what a caller
 * with a valid key could send to `POST /services`.
 */

/** YAML with `levels` anchors, each a schema aliasing the previous one twice: 2^levels schemas once expanded. */
export function aliasBomb(levels: number): string {
  const lines = ["openapi: 3.0.3", "info: {title: Bomb, version: '1'}", "paths: {}", "components:", "  schemas:"];
  lines.push("    l0: &l0 {type: string}");
  for (let i = 1; i < levels; i++) {
    lines.push(`    l${i}: &l${i} {type: object, properties: {a: *l${i - 1}, b: *l${i - 1}}}`);
  }
  return `${lines.join("\n")}\n`;
}

/** JSON whose schemas `$ref` the previous one twice, used by one operation: 2^levels schemas once dereferenced. */
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

/** JSON with one schema nested `depth` levels deep (written as text: JSON.stringify would overflow the stack). */
export function deepJson(depth: number): string {
  const open = '{"type":"object","properties":{"x":';
  return (
    '{"openapi":"3.0.3","info":{"title":"Deep","version":"1"},"paths":{},"components":{"schemas":{"Deep":' +
    `${open.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}}}}`
  );
}

/** The same in YAML flow style. */
export function deepYaml(depth: number): string {
  return (
    "openapi: 3.0.3\ninfo: {title: Deep, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Deep: " +
    `${"{type: object, properties: {x: ".repeat(depth)}{type: string}${"}}".repeat(depth)}\n`
  );
}
