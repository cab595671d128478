import { isValidIdentifier, MAX_IDENTIFIER_CHARS } from "@cyrnel/sdk";
import { describe, expect, it } from "vitest";
import { baseToolId, uniqueToolIds } from "./ids.js";

describe("baseToolId", () => {
  it.each([
    // [operationId, method, path, expected]
    ["listPets", "get", "/pets", "listPets"],
    ["get_pets", "get", "/pets", "get_pets"],
    ["$special", "get", "/pets", "$special"],
    ["repos/get-content", "get", "/x", "reposGetContent"],
    ["repos/get-HTMLPage", "get", "/x", "reposGetHTMLPage"],
    ["Pets.List", "get", "/x", "PetsList"],
    ["pets list all", "get", "/x", "petsListAll"],
    ["2fa-verify", "post", "/x", "_2faVerify"],
    ["123", "post", "/x", "_123"],
    ["delete", "delete", "/x", "delete_"],
    ["class", "get", "/x", "class_"],
    ["__proto__", "get", "/x", "__proto___"],
    ["constructor", "get", "/x", "constructor_"],
    ["prototype", "get", "/x", "prototype_"],
    ["café-crème", "get", "/x", "cafeCreme"],
    ["---", "get", "/pets/{petId}", "getPetsPetId"],
    ["日本語", "get", "/pets", "getPets"],
    [undefined, "get", "/pets/{petId}", "getPetsPetId"],
    [undefined, "post", "/pets", "postPets"],
    [undefined, "get", "/", "get"],
    [undefined, "delete", "/", "delete_"],
    [undefined, "get", "/v1/users/{user-id}/repos.json", "getV1UsersUserIdReposJson"],
    [undefined, "get", "/cookies#formNonExploded", "getCookies"],
    [undefined, "get", "/search?type=user", "getSearch"],
  ])("%s (%s %s) → %s", (operationId, method, path, expected) => {
    const id = baseToolId(operationId, method, path);
    expect(id).toBe(expected);
    expect(isValidIdentifier(id)).toBe(true);
  });
});

describe("long ids", () => {
  it("shortens an id past the cap to its start and a digest: distinct, valid, and room for a duplicate's suffix", () => {
    const long = `op${"x".repeat(180 * 1024)}`;
    const other = `op${"x".repeat(180 * 1024 - 1)}y`;
    const id = baseToolId(long, "get", "/x");
    expect(id).toHaveLength(MAX_IDENTIFIER_CHARS - 8);
    expect(id).toMatch(/^opx+_[0-9a-f]{8}$/);
    expect(baseToolId(long, "get", "/x")).toBe(id);
    expect(baseToolId(other, "get", "/x")).not.toBe(id);
    const words = baseToolId(`get-${"very-".repeat(100)}long`, "get", "/x");
    expect(words.length).toBeLessThanOrEqual(MAX_IDENTIFIER_CHARS - 8);
    const [first, second] = uniqueToolIds([id, id]);
    expect(first).toBe(id);
    expect(second).toBe(`${id}_2`);
    for (const made of [id, words, second]) expect(isValidIdentifier(made)).toBe(true);
    expect(isValidIdentifier("a".repeat(MAX_IDENTIFIER_CHARS + 1))).toBe(false);
  });
});

describe("uniqueToolIds", () => {
  it.each([
    [
      ["a", "b"],
      ["a", "b"],
    ],
    [
      ["a", "a", "a"],
      ["a", "a_2", "a_3"],
    ],
    // A later operation's own id is never taken by an earlier duplicate.
    [
      ["a", "a", "a_2"],
      ["a", "a_3", "a_2"],
    ],
    [
      ["a_2", "a", "a"],
      ["a_2", "a", "a_3"],
    ],
    [
      ["x", "y", "x", "y"],
      ["x", "y", "x_2", "y_2"],
    ],
  ])("%j → %j", (bases, expected) => {
    expect(uniqueToolIds(bases)).toEqual(expected);
  });

  it("always yields distinct valid identifiers", () => {
    const bases = Array.from({ length: 50 }, (_, i) => ["a", "a_2", "b", "a_3"][i % 4]!);
    const ids = uniqueToolIds(bases);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(isValidIdentifier(id)).toBe(true);
  });
});
