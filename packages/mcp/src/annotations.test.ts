import { describe, expect, it } from "vitest";
import { annotationsOf } from "./annotations.js";

describe("annotationsOf", () => {
  it.each([
    [undefined, { readOnly: false, destructive: true, idempotent: false, openWorld: true }],
    [{}, { readOnly: false, destructive: true, idempotent: false, openWorld: true }],
    [{ readOnlyHint: true }, { readOnly: true, destructive: false, idempotent: false, openWorld: true }],
    [
      { readOnlyHint: true, destructiveHint: true },
      { readOnly: true, destructive: false, idempotent: false, openWorld: true },
    ],
    [
      { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      { readOnly: false, destructive: false, idempotent: true, openWorld: false },
    ],
    [{ readOnlyHint: "yes" }, { readOnly: false, destructive: true, idempotent: false, openWorld: true }],
  ])("%j → %j", (hints, annotations) => {
    expect(annotationsOf(hints)).toEqual(annotations);
  });
});
