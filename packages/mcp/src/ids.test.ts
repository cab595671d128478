import { isValidIdentifier, MAX_IDENTIFIER_CHARS } from "@cyrnel/sdk";
import { describe, expect, it } from "vitest";
import { baseToolId, toolIds } from "./ids.js";

describe("baseToolId", () => {
  it.each([
    ["read_file", "read_file"],
    ["echo", "echo"],
    ["get-sum", "getSum"],
    ["git.status", "gitStatus"],
    ["files/read-all", "filesReadAll"],
    ["café-menu", "cafeMenu"],
    ["2fa", "_2fa"],
    ["delete", "delete_"],
    ["__proto__", "__proto___"],
    ["constructor", "constructor_"],
  ])("%s → %s", (name, id) => {
    expect(baseToolId(name)).toBe(id);
  });

  it("names without ASCII letters or digits get a stable digest id", () => {
    expect(baseToolId("搜索")).toMatch(/^tool_[0-9a-f]{8}$/);
    expect(baseToolId("搜索")).toBe(baseToolId("搜索"));
    expect(baseToolId("搜索")).not.toBe(baseToolId("检索"));
  });

  it("long names keep their start and a digest, within the limit", () => {
    const id = baseToolId(`a${"b".repeat(300)}`);
    expect(id.length).toBeLessThanOrEqual(MAX_IDENTIFIER_CHARS - 8);
    expect(id).toMatch(/^ab+_[0-9a-f]{8}$/);
    expect(isValidIdentifier(id)).toBe(true);
  });
});

describe("toolIds", () => {
  it.each([
    [
      ["get-sum", "getSum"],
      ["getSum_2", "getSum"],
    ],
    [
      ["getSum", "get-sum"],
      ["getSum", "getSum_2"],
    ],
    [
      ["a-b", "a.b", "a/b"],
      ["aB", "aB_2", "aB_3"],
    ],
    // `aB_2` is a tool's own name: the duplicate of `a-b` skips it.
    [
      ["a-b", "a.b", "aB_2"],
      ["aB", "aB_3", "aB_2"],
    ],
    [
      ["x", "x"],
      ["x", "x_2"],
    ],
  ])("%j → %j", (names, ids) => {
    expect(toolIds(names)).toEqual(ids);
  });
});
