import { describe, expect, it } from "vitest";
import { encodeToolFailure, encodeToolSuccess } from "./tool-outcome.js";

describe("tool outcomes", () => {
  it("encodes results as JSON", () => {
    expect(JSON.parse(encodeToolSuccess({ a: [1, "b"] }))).toEqual({ ok: true, value: { a: [1, "b"] } });
    expect(JSON.parse(encodeToolSuccess(undefined))).toEqual({ ok: true });
  });

  it("turns an unserialisable result into a failure", () => {
    expect(JSON.parse(encodeToolSuccess({ n: 1n }))).toEqual({
      ok: false,
      error: { message: expect.stringContaining("the tool result is not JSON-serialisable") },
    });
  });

  it("mirrors status, code and details of the host's error", () => {
    const error = Object.assign(new Error("Invalid parameters"), {
      status: 400,
      code: "validation_failed",
      details: [{ path: "/city" }],
    });
    expect(JSON.parse(encodeToolFailure(error))).toEqual({
      ok: false,
      error: { message: "Invalid parameters", status: 400, code: "validation_failed", details: [{ path: "/city" }] },
    });
  });

  it("accepts plain objects and non-errors, and drops details that cannot be serialised", () => {
    expect(JSON.parse(encodeToolFailure({ message: "m", status: 409, code: "tool_disabled", details: 1n }))).toEqual({
      ok: false,
      error: { message: "m", status: 409, code: "tool_disabled" },
    });
    expect(JSON.parse(encodeToolFailure("plain"))).toEqual({ ok: false, error: { message: "plain" } });
    expect(JSON.parse(encodeToolFailure({ status: "409" }))).toEqual({
      ok: false,
      error: { message: "[object Object]" },
    });
  });
});
