import { describe, expect, it } from "vitest";
import { NamedTypes, type SchemaRoot } from "./named-types.js";
import type { Schema } from "./schema.js";

const root = (schema: Schema, alias = "Root"): SchemaRoot => ({ schema, alias });
const names = (types: NamedTypes) => types.declarations.map((type) => type.name);
const address = { type: "object", properties: { city: { type: "string" } } };

describe("NamedTypes", () => {
  it("declares a definition that every root carries once, and refers to it by name from each", () => {
    const roots = [0, 1, 2].map((i) =>
      root({ type: "array", items: { $ref: "#/$defs/Address" }, $defs: { Address: address } }, `T${i}.Input`),
    );
    const types = new NamedTypes(roots);
    expect(names(types)).toEqual(["Address"]);
    expect([0, 1, 2].map((i) => types.refType(i, "#/$defs/Address"))).toEqual(["Address", "Address", "Address"]);
  });

  it("numbers different definitions of one name in order of first use, the same way every time", () => {
    const build = () =>
      new NamedTypes([
        root({ $ref: "#/$defs/Address", $defs: { Address: address } }),
        root({ $ref: "#/$defs/Address", $defs: { Address: { type: "string" } } }),
        root({ $ref: "#/$defs/Address", $defs: { Address: address } }),
        root({ $ref: "#/$defs/P24", $defs: { P24: { type: "string" } } }),
        root({ $ref: "#/$defs/P24", $defs: { P24: { type: "number" } } }),
      ]);
    const types = build();
    expect(names(types)).toEqual(["Address", "Address2", "P24", "P24_2"]);
    expect([0, 1, 2].map((i) => types.refType(i, "#/$defs/Address"))).toEqual(["Address", "Address2", "Address"]);
    expect(names(build())).toEqual(names(types));
  });

  it("ignores annotations at the top of a definition (a use may describe it differently)", () => {
    const types = new NamedTypes([
      root({ $ref: "#/$defs/Address", $defs: { Address: { ...address, description: "Where to ship" } } }),
      root({ $ref: "#/$defs/Address", $defs: { Address: { ...address, description: "Billing", examples: [{}] } } }),
    ]);
    expect(names(types)).toEqual(["Address"]);
  });

  it("keeps apart definitions that look the same but refer to different definitions", () => {
    const wrap = { type: "object", properties: { inner: { $ref: "#/$defs/Inner" } } };
    const types = new NamedTypes([
      root({ $ref: "#/$defs/Wrap", $defs: { Wrap: wrap, Inner: { type: "string" } } }),
      root({ $ref: "#/$defs/Wrap", $defs: { Wrap: wrap, Inner: { type: "number" } } }),
      root({ $ref: "#/$defs/Wrap", $defs: { Wrap: wrap, Inner: { type: "string" } } }),
    ]);
    expect(names(types)).toEqual(["Wrap", "Wrap2", "Inner", "Inner2"]);
    expect(types.refType(2, "#/$defs/Wrap")).toBe("Wrap");
    expect(types.get("Wrap2")!.references).toEqual(["Inner2"]);
  });

  it("handles cycles: equal cycles are one type each, a difference anywhere on a cycle splits it", () => {
    const cycle = (leaf: Schema) => ({
      $ref: "#/$defs/A",
      $defs: {
        A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } },
        B: { type: "object", properties: { a: { $ref: "#/$defs/A" }, leaf: { $ref: "#/$defs/Leaf" } } },
        Leaf: leaf,
      },
    });
    const same = new NamedTypes([root(cycle({ type: "string" })), root(cycle({ type: "string" }))]);
    expect(names(same)).toEqual(["A", "B", "Leaf"]);
    const different = new NamedTypes([root(cycle({ type: "string" })), root(cycle({ type: "boolean" }))]);
    expect(names(different)).toEqual(["A", "A2", "B", "B2", "Leaf", "Leaf2"]);
    expect(different.get("A2")!.references).toEqual(["B2"]);
  });

  it("takes the name a schema gives itself, and matches it with the definition of that name", () => {
    const types = new NamedTypes([
      root({ "x-cyrnel-name": "Address", description: "Shipping", ...address }),
      root({ type: "array", items: { $ref: "#/$defs/Address" }, $defs: { Address: address } }),
    ]);
    expect(types.rootName(0)).toBe("Address");
    expect(types.refType(1, "#/$defs/Address")).toBe("Address");
    expect(names(types)).toEqual(["Address"]);
    expect(types.rootReferences(0)).toEqual(["Address"]);
  });

  it("resolves `#` to the root's alias, so a definition that uses it belongs to its root", () => {
    const tree = { type: "object", properties: { up: { $ref: "#" } } };
    const types = new NamedTypes([
      root({ type: "object", properties: { t: { $ref: "#/$defs/Tree" } }, $defs: { Tree: tree } }, "a.Input"),
      root({ type: "object", properties: { t: { $ref: "#/$defs/Tree" } }, $defs: { Tree: tree } }, "b.Input"),
    ]);
    expect(names(types)).toEqual(["Tree", "Tree2"]);
    expect(types.refType(0, "#")).toBe("a.Input");
    expect(types.refType(1, "#")).toBe("b.Input");
  });

  it("never takes a global or reserved name, and has no name for remote or dangling references", () => {
    const types = new NamedTypes(
      [
        root({
          type: "object",
          properties: {
            a: { $ref: "#/$defs/Array" },
            b: { $ref: "#/$defs/Input" },
            c: { $ref: "#/$defs/9lives" },
            d: { $ref: "https://example.com/x.json" },
            e: { $ref: "#/$defs/Missing" },
            f: { $ref: "#/$defs/%zz" },
          },
          $defs: { Array: { type: "string" }, Input: { type: "number" }, "9lives": { type: "boolean" } },
        }),
      ],
      ["Input"],
    );
    expect(names(types)).toEqual(["Array2", "Input2", "_9lives"]);
    expect(types.refType(0, "https://example.com/x.json")).toBeUndefined();
    expect(types.refType(0, "#/$defs/Missing")).toBeUndefined();
    expect(types.refType(0, "#/$defs/%zz")).toBeUndefined();
  });

  it("lists the types within a number of steps", () => {
    const types = new NamedTypes([
      root({
        $ref: "#/$defs/A",
        $defs: {
          A: { properties: { b: { $ref: "#/$defs/B" } } },
          B: { properties: { c: { $ref: "#/$defs/C" } } },
          C: { type: "string" },
        },
      }),
    ]);
    expect(types.within(["A"], 0)).toEqual(["A"]);
    expect(types.within(["A"], 1)).toEqual(["A", "B"]);
    expect(types.within(["A"], 5)).toEqual(["A", "B", "C"]);
  });
});
