import { describe, expect, it } from "vitest";
import { annotationsOf } from "./annotations.js";

describe("annotationsOf", () => {
  it.each([
    ["get", { readOnly: true, destructive: false, idempotent: false }],
    ["head", { readOnly: true, destructive: false, idempotent: false }],
    ["options", { readOnly: true, destructive: false, idempotent: false }],
    ["put", { readOnly: false, destructive: false, idempotent: true }],
    ["delete", { readOnly: false, destructive: true, idempotent: true }],
    ["post", { readOnly: false, destructive: false, idempotent: false }],
    ["patch", { readOnly: false, destructive: false, idempotent: false }],
    ["trace", { readOnly: false, destructive: false, idempotent: false }],
  ] as const)("%s", (method, expected) => {
    expect(annotationsOf(method)).toEqual({ ...expected, openWorld: true });
  });
});
