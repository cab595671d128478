import { describe, expect, it } from "vitest";
import { encodeBody } from "./body.js";
import type { BodyBinding } from "./domain.js";

const binding = (mediaType: string, extra: Partial<BodyBinding> = {}): BodyBinding => ({
  mediaType,
  encoding: {},
  files: [],
  ...extra,
});

async function multipartParts(form: FormData): Promise<[string, string, string | null, string | null][]> {
  const parts: [string, string, string | null, string | null][] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") parts.push([name, value, null, null]);
    else parts.push([name, await value.text(), value.name, value.type]);
  }
  return parts;
}

describe("encodeBody", () => {
  it.each([
    ["application/json", { a: 1, b: [true, null] }, "application/json", '{"a":1,"b":[true,null]}'],
    ["application/vnd.api+json", { a: 1 }, "application/vnd.api+json", '{"a":1}'],
    ["*/*", "x", "application/json", '"x"'],
    ["text/plain", "hello world", "text/plain", "hello world"],
    ["text/plain", { a: 1 }, "text/plain", '{"a":1}'],
    ["application/xml", "<pet/>", "application/xml", "<pet/>"],
    [
      "application/x-www-form-urlencoded",
      { name: "a b", n: 1, tags: ["x", "y"], ok: true },
      "application/x-www-form-urlencoded",
      "name=a+b&n=1&tags=x&tags=y&ok=true",
    ],
    ["application/x-www-form-urlencoded", "raw=1&b=2", "application/x-www-form-urlencoded", "raw=1&b=2"],
  ])("%s %j", (mediaType, value, contentType, body) => {
    expect(encodeBody(binding(mediaType), value)).toEqual({ contentType, body });
  });

  it("urlencoded bodies honour the encoding object", () => {
    const encoded = encodeBody(
      binding("application/x-www-form-urlencoded", {
        encoding: {
          tags: { style: "form", explode: false },
          meta: { contentType: "application/json" },
          deep: { style: "deepObject", explode: true },
        },
      }),
      { tags: ["x", "y"], meta: { a: 1 }, deep: { k: "v" } },
    );
    expect(encoded.body).toBe("tags=x,y&meta=%7B%22a%22%3A1%7D&deep[k]=v");
  });

  it("urlencoded object fields without an encoding style are JSON text, keeping the field's name", () => {
    const encoded = encodeBody(
      binding("application/x-www-form-urlencoded", { encoding: { flat: { explode: true } } }),
      { Data: { a: 1 }, flat: { x: "1" }, list: ["p", "q"] },
    );
    expect(encoded.body).toBe("Data=%7B%22a%22%3A1%7D&x=1&list=p&list=q");
  });

  it("multipart: fields, repeated arrays, JSON objects and file parts", async () => {
    const encoded = encodeBody(
      binding("multipart/form-data", {
        files: ["document", "photos"],
        encoding: { photos: { contentType: "image/png" } },
      }),
      {
        orderId: 7,
        note: "hi",
        tags: ["a", "b"],
        meta: { x: 1 },
        document: "file text",
        photos: ["p1", "p2"],
        skipped: null,
      },
    );
    expect(encoded.contentType).toBeUndefined();
    expect(await multipartParts(encoded.body as FormData)).toEqual([
      ["orderId", "7", null, null],
      ["note", "hi", null, null],
      ["tags", "a", null, null],
      ["tags", "b", null, null],
      ["meta", '{"x":1}', null, null],
      ["document", "file text", "document", "application/octet-stream"],
      ["photos", "p1", "photos", "image/png"],
      ["photos", "p2", "photos", "image/png"],
    ]);
  });
});
