import { describe, expect, it } from "vitest";
import { fileInputSchema, filePayload } from "./files.js";

describe("filePayload", () => {
  it.each<[string, unknown, number[], Record<string, string>]>([
    ["text as UTF-8", "hé", [0x68, 0xc3, 0xa9], {}],
    [
      "base64 with name and type",
      { base64: "AAH/", filename: "a.bin", contentType: "x/y" },
      [0, 1, 255],
      { filename: "a.bin", contentType: "x/y" },
    ],
    ["base64 with line breaks and URL-safe characters", { base64: "AA\nH_" }, [0, 1, 255], {}],
    ["other values as JSON text", { a: 1 }, [...Buffer.from('{"a":1}')], {}],
  ])("%s", (_label, value, bytes, extra) => {
    const payload = filePayload(value);
    expect([...payload.bytes]).toEqual(bytes);
    expect({ ...payload, bytes: undefined }).toEqual({ bytes: undefined, ...extra });
  });

  it("refuses text that is not base64", () => {
    expect(() => filePayload({ base64: "not base64!" })).toThrow("A file's base64 value is not valid base64");
  });
});

describe("fileInputSchema", () => {
  it("keeps the document's string constraints in the text branch and adds the base64 object", () => {
    const schema = fileInputSchema({ type: "string", format: "binary", description: "The file" });
    expect(schema.description).toBe("The file");
    expect(schema.anyOf).toEqual([
      { type: "string", format: "binary", description: "Text, sent as its UTF-8 bytes." },
      expect.objectContaining({ required: ["base64"], additionalProperties: false }),
    ]);
  });
});
