import { describe, expect, it } from "vitest";
import { CyrnelError } from "../../errors.js";
import { selectVersion } from "./version-selection.js";

const descriptor = {
  id: "petstore",
  latestVersion: "2.0.0",
  versions: { "1.0.0": {}, "1.2.0": {}, "1.10.1": {}, "2.0.0": {}, "3.0.0-beta.1": {} },
};

describe("selectVersion", () => {
  it.each([
    [undefined, "2.0.0"],
    ["", "2.0.0"],
    ["latest", "2.0.0"],
    ["1.2.0", "1.2.0"],
    ["v1.2.0", "1.2.0"],
    ["^1.0.0", "1.10.1"],
    ["~1.2", "1.2.0"],
    ["1.x", "1.10.1"],
    [">=1.0.0", "2.0.0"],
    ["3.0.0-beta.1", "3.0.0-beta.1"],
    [">=3.0.0-beta.0", "3.0.0-beta.1"],
  ])("%s → %s", (requested, expected) => {
    expect(selectVersion(descriptor, requested, "http://r/d.json")).toBe(expected);
  });

  it.each([
    ["9.9.9", "not_found", "version 9.9.9"],
    ["^4.0.0", "not_found", 'satisfies "^4.0.0"'],
    ["not a version", "bad_request", "neither a semver version nor a semver range"],
  ])("%s is refused (%s)", (requested, code, message) => {
    try {
      selectVersion(descriptor, requested, "http://r/d.json");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CyrnelError);
      expect((error as CyrnelError).code).toBe(code);
      expect((error as CyrnelError).message).toContain(message);
    }
  });

  it("names the available versions, newest first", () => {
    expect(() => selectVersion(descriptor, "0.1.0", "http://r/d.json")).toThrow(
      "available: 3.0.0-beta.1, 2.0.0, 1.10.1, 1.2.0, 1.0.0",
    );
  });

  it("refuses a descriptor with versions that are not semver", () => {
    const broken = { id: "x", latestVersion: "one", versions: { one: {} } };
    expect(() => selectVersion(broken, undefined, "http://r/d.json")).toThrow("not semver: one");
  });
});
