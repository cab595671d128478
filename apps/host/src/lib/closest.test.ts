import { describe, expect, it } from "vitest";
import { closestNames, editDistance } from "./closest.js";

const PETSTORE = [
  "updatePet",
  "addPet",
  "findPetsByStatus",
  "findPetsByTags",
  "getPetById",
  "deletePet",
  "getInventory",
  "placeOrder",
  "loginUser",
];

describe("closestNames", () => {
  it.each([
    ["a missing letter (closest first)", "findPetByStatus", ["findPetsByStatus", "findPetsByTags"]],
    ["two swapped letters", "findPetsBySatuts", ["findPetsByStatus", "findPetsByTags"]],
    ["another case", "GETPETBYID", ["getPetById"]],
    ["another separator", "find_pets_by_tags", ["findPetsByTags", "findPetsByStatus"]],
    ["a dropped prefix (contained)", "PetsByStatus", ["findPetsByStatus"]],
    ["a prefix of several", "findPets", ["findPetsByStatus", "findPetsByTags"]],
    ["nothing close", "launchRocket", []],
    ["no letters", "...", []],
  ])("%s", (_label, wanted, names) => {
    expect(closestNames(wanted, PETSTORE)).toEqual(names);
  });

  it("gives at most 3, closest first, then by name", () => {
    expect(closestNames("a0x", ["a5x", "a4x", "a3x", "a2x", "a1x", "a0y0"])).toEqual(["a1x", "a2x", "a3x"]);
  });

  it("reads ids with dots as the underscored ones", () => {
    expect(closestNames("chat.postMessage", ["chat_postMessage", "chat_meMessage", "chat_update"])).toEqual([
      "chat_postMessage",
      "chat_meMessage",
    ]);
  });

  it("stays fast on a large service (distance stops at the limit)", () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `operationNumber${i}WithALongName`);
    expect(closestNames("operationNumber123WithALongNam", names)[0]).toBe("operationNumber123WithALongName");
  });
});

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
    ["ab", "ba", 1],
    ["abcd", "acbd", 1],
  ])("%s → %s is %d", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it("answers limit + 1 once the limit is passed", () => {
    expect(editDistance("aaaaaaaa", "bbbbbbbb", 2)).toBe(3);
  });
});
