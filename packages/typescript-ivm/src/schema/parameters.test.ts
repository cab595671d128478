import { describe, expect, it } from "vitest";
import { parameterRows } from "./parameters.js";
import { isSchemaObject, type Schema } from "./schema.js";

const schema: Schema = {
  type: "object",
  required: ["owner"],
  properties: {
    owner: {
      type: "object",
      description: "Who <b>owns</b> it",
      required: ["name"],
      properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
    },
    tags: { type: "array", items: { $ref: "#/$defs/Tag" } },
    kind: { enum: ["a", "b"], default: "a" },
    extra: { allOf: [{ type: "object", properties: { x: { type: "integer" } } }], required: ["x"] },
    tree: { $ref: "#/$defs/Tree", default: {} },
  },
  $defs: {
    Tag: { type: "object", properties: { label: { type: ["string", "null"] } } },
    Tree: { type: "object", properties: { next: { $ref: "#/$defs/Tree" } } },
  },
};

/** The rows without the schema each describes (checked on its own). */
const summary = (rows: ReturnType<typeof parameterRows>["rows"]) => rows.map(({ schema: _schema, ...row }) => row);

describe("parameterRows", () => {
  it("expands nested objects, arrays of objects, refs and allOf; stops at recursion; descriptions in Markdown", () => {
    const { rows, truncated } = parameterRows(schema);
    expect(truncated).toBe(false);
    expect(summary(rows)).toEqual([
      { path: "owner", type: "object", required: true, description: "Who **owns** it" },
      { path: "owner.name", type: "string", required: true },
      { path: "owner.email", type: "string", required: false },
      { path: "tags", type: "Tag[]", required: false },
      { path: "tags[].label", type: "string | null", required: false },
      { path: "kind", type: '"a" | "b"', required: false, enum: ["a", "b"] },
      { path: "extra", type: "object", required: false },
      { path: "extra.x", type: "integer", required: true },
      { path: "tree", type: "Tree", required: false },
      { path: "tree.next", type: "Tree", required: false },
    ]);
    // The schema of a row is the referenced one as this use sees it (its own `default` wins).
    const tree = rows.find((row) => row.path === "tree")!.schema;
    expect(isSchemaObject(tree) && tree.default).toEqual({});
    expect(rows.find((row) => row.path === "owner.email")!.schema).toEqual({ type: "string", format: "email" });
  });

  it("stops at maxDepth and says so", () => {
    const { rows, truncated } = parameterRows(schema, { maxDepth: 0 });
    expect(rows.map((row) => row.path)).toEqual(["owner", "tags", "kind", "extra", "tree"]);
    expect(truncated).toBe(true);
  });

  it("does not expand named types: they are declared once on the page", () => {
    const typeName = (node: Schema) =>
      isSchemaObject(node) && typeof node.$ref === "string" ? `${node.$ref.split("/").pop()}Type` : undefined;
    const { rows } = parameterRows(schema, { maxDepth: 8, typeName });
    expect(rows.map((row) => [row.path, row.type])).toEqual([
      ["owner", "object"],
      ["owner.name", "string"],
      ["owner.email", "string"],
      ["tags", "TagType[]"],
      ["kind", '"a" | "b"'],
      ["extra", "object"],
      ["extra.x", "integer"],
      ["tree", "TreeType"],
    ]);
  });

  it("has no rows for a schema without properties", () => {
    expect(parameterRows({ type: "object" }).rows).toEqual([]);
    expect(parameterRows(true).rows).toEqual([]);
  });
});
