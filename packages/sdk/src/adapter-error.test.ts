import { describe, expect, it } from "vitest";
import { AdapterError, adapterErrorDetails } from "./adapter-error.js";

describe("AdapterError", () => {
  it("is an Error carrying the upstream status and body", () => {
    const error = new AdapterError("GET /pets/1 → 404 Not Found", { status: 404, body: { message: "no such pet" } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("AdapterError");
    expect(error.message).toBe("GET /pets/1 → 404 Not Found");
    expect(adapterErrorDetails(error)).toEqual({ status: 404, body: { message: "no such pet" } });
  });

  it("keeps a cause and leaves out what it was not given", () => {
    const cause = new Error("socket hang up");
    const error = new AdapterError("failed", { cause });
    expect(error.cause).toBe(cause);
    expect("status" in error).toBe(false);
    expect(adapterErrorDetails(error)).toBeUndefined();
  });
});

describe("adapterErrorDetails", () => {
  it.each([
    ["an error of the same shape from another copy", Object.assign(new Error("x"), { status: 500 }), { status: 500 }],
    ["a body alone", Object.assign(new Error("x"), { body: "<html>" }), { body: "<html>" }],
    ["a falsy body", Object.assign(new Error("x"), { status: 204, body: null }), { status: 204, body: null }],
    ["a status that is not a number", Object.assign(new Error("x"), { status: "404" }), undefined],
    ["a plain Error", new Error("x"), undefined],
    ["a thrown string", "boom", undefined],
    ["null", null, undefined],
  ])("reads %s", (_what, error, expected) => {
    expect(adapterErrorDetails(error)).toEqual(expected);
  });
});
