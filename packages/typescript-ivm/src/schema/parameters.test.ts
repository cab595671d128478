import { describe, expect, it } from "vitest";
import { parameterRows } from "./parameters.js";

describe("parameterRows", () => {
  it("expands nested objects, arrays of objects, refs and allOf; stops at recursion", () => {
    const rows = parameterRows({
      type: "object",
      required: ["owner"],
      properties: {
        owner: {
          type: "object",
          description: "Who owns it",
          required: ["name"],
          properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
        },
        tags: { type: "array", items: { $ref: "#/$defs/Tag" } },
        kind: { enum: ["a", "b"], default: "a" },
        extra: { allOf: [{ type: "object", properties: { x: { type: "integer" } } }], required: ["x"] },
        tree: { $ref: "#/$defs/Tree" },
      },
      $defs: {
        Tag: { type: "object", properties: { label: { type: ["string", "null"] } } },
        Tree: { type: "object", properties: { next: { $ref: "#/$defs/Tree" } } },
      },
    });
    expect(rows).toEqual([
      { path: "owner", type: "object", required: true, description: "Who owns it" },
      { path: "owner.name", type: "string", required: true },
      { path: "owner.email", type: "string", required: false, format: "email" },
      { path: "tags", type: "Tag[]", required: false },
      { path: "tags[].label", type: "string | null", required: false },
      { path: "kind", type: '"a" | "b"', required: false, enum: ["a", "b"], default: "a" },
      { path: "extra", type: "object", required: false },
      { path: "extra.x", type: "integer", required: true },
      { path: "tree", type: "Tree", required: false },
      { path: "tree.next", type: "Tree", required: false },
    ]);
  });

  it("has no rows for a schema without properties", () => {
    expect(parameterRows({ type: "object" })).toEqual([]);
    expect(parameterRows(true)).toEqual([]);
  });
});
