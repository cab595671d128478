import { describe, expect, it } from "vitest";
import { contentOutputSchema, contentResult, joinedText } from "./content.js";

describe("contentResult", () => {
  it("joins the text blocks and keeps every block as sent", () => {
    const content = [
      { type: "text", text: "one" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "two" },
    ];
    expect(contentResult({ content })).toEqual({ text: "one\ntwo", content });
  });

  it("keeps structured content a server sent without an output schema", () => {
    expect(contentResult({ content: [], structuredContent: { a: 1 } })).toEqual({
      text: "",
      content: [],
      structuredContent: { a: 1 },
    });
  });

  it.each([[undefined], ["text"], [[null, 1, { type: "text" }]]])("tolerates odd content %j", (content) => {
    expect(joinedText(content)).toBe("");
  });
});

describe("contentOutputSchema", () => {
  it("names each kind of block under $defs, every $ref resolving", () => {
    const schema = contentOutputSchema();
    const defs = schema.$defs as Record<string, unknown>;
    const refs = JSON.stringify(schema).match(/#\/\$defs\/[A-Za-z]+/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(defs).toHaveProperty(ref.slice("#/$defs/".length));
    expect(schema.required).toEqual(["text", "content"]);
  });

  it("is a fresh copy each time", () => {
    expect(contentOutputSchema()).not.toBe(contentOutputSchema());
    expect(contentOutputSchema().$defs).not.toBe(contentOutputSchema().$defs);
  });
});
