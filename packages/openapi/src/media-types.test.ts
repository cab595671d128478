import { describe, expect, it } from "vitest";
import { acceptHeader, bodyKind, isJsonType, pickRequestMediaType, pickResponseMediaType } from "./media-types.js";

describe("media types", () => {
  it.each([
    ["application/json", "json"],
    ["application/json; charset=utf-8", "json"],
    ["application/vnd.api+json", "json"],
    ["*/*", "json"],
    ["Application/X-WWW-Form-Urlencoded", "form"],
    ["multipart/form-data", "multipart"],
    ["text/plain; charset=utf-8", "text"],
    ["application/xml", "raw"],
    ["application/octet-stream", "raw"],
    ["image/png", "raw"],
  ])("%s is %s", (type, kind) => {
    expect(bodyKind(type)).toBe(kind);
  });

  it.each([
    [["application/xml", "application/json"], "application/json"],
    [["application/xml", "multipart/form-data", "application/json"], "multipart/form-data"],
    [["image/png", "application/octet-stream"], "image/png"],
    [["text/plain", "application/json"], "text/plain"],
  ])("request %j picks %s", (types, expected) => {
    expect(pickRequestMediaType(types.map((type) => ({ type })))?.type).toBe(expected);
  });

  it.each([
    [["application/xml", "application/json"], "application/json"],
    [["text/html", "text/plain"], "text/html"],
    [[], undefined],
  ])("response %j picks %s", (types, expected) => {
    expect(pickResponseMediaType(types.map((type) => ({ type })))?.type).toBe(expected);
  });

  it("builds Accept with JSON types first", () => {
    expect(acceptHeader(["application/xml", "application/json", "application/xml"])).toBe(
      "application/json, application/xml",
    );
    expect(acceptHeader([])).toBeUndefined();
    expect(isJsonType(null)).toBe(false);
  });
});
