import { describe, expect, it } from "vitest";
import { CompiledPolicy, globMatches, globProblem, type ServicePolicy } from "./policy.js";

describe("tool globs", () => {
  it.each([
    ["*", "anything", true],
    ["*", "", true],
    ["delete*", "deletePet", true],
    ["delete*", "undelete", false],
    ["*Pet", "getPet", true],
    ["*Pet", "getPets", false],
    ["get?et", "getPet", true],
    ["get?et", "getet", false],
    ["get?et", "getPPet", false],
    ["getPet", "getPet", true],
    ["getPet", "getpet", false],
    ["$ref*", "$refs", true],
    ["a$b", "a$b", true],
    ["a$b", "ab", false],
    ["*_*", "list_pets", true],
    ["*_*", "listPets", false],
    ["*Delete*Repo*", "orgsDeleteOneRepo", true],
    ["*Delete*Repo*", "orgsDeleteRepDeleteRep", false],
    ["a*b*c", "abbbbbc", true],
    ["a*b*c", "abbbbbcx", false],
    ["*?", "", false],
    ["??*", "ab", true],
    ["**", "x", true],
  ])("%s against %s: %s", (glob, id, matches) => {
    expect(globProblem(glob)).toBeNull();
    expect(globMatches(glob, id)).toBe(matches);
  });

  it("matches without backtracking blow-up: a glob of many stars against the longest id", () => {
    // As a regular expression this takes exponential time in the number of stars.
    const glob = `${"*a".repeat(60)}*b`;
    expect(globProblem(glob)).toBeNull();
    expect(globMatches(glob, "a".repeat(128))).toBe(false);
    expect(globMatches(glob, `${"a".repeat(127)}b`)).toBe(true);
  });

  it.each([["get-pet"], ["a.b"], ["(x)"], ["[ab]"], ["a b"], ["^a"], ["a+"], ["x".repeat(201)]])(
    "refuses %s",
    (glob) => {
      expect(globProblem(glob)).toMatch(/characters/);
    },
  );
});

describe("CompiledPolicy", () => {
  const tools = {
    getPet: { id: "getPet", annotations: { readOnly: true } },
    addPet: { id: "addPet", annotations: { readOnly: false } },
    deletePet: { id: "deletePet", annotations: { readOnly: false, destructive: true, idempotent: true } },
    custom: { id: "custom", annotations: {} },
  };
  const decide = (policy: Pick<ServicePolicy, "default" | "rules">) => {
    const compiled = new CompiledPolicy(policy);
    return Object.fromEntries(Object.entries(tools).map(([id, tool]) => [id, compiled.actionFor(tool)]));
  };

  it("answers the default when no rule matches", () => {
    expect(decide({ default: "ask", rules: [] })).toEqual({
      getPet: "ask",
      addPet: "ask",
      deletePet: "ask",
      custom: "ask",
    });
  });

  it("lets the first matching rule win", () => {
    expect(
      decide({
        default: "allow",
        rules: [
          { tools: "deletePet", action: "allow" },
          { destructive: true, action: "deny" },
          { readOnly: false, action: "ask" },
        ],
      }),
    ).toEqual({ getPet: "allow", addPet: "ask", deletePet: "allow", custom: "ask" });
  });

  it("counts an absent annotation as false, and needs every condition of a rule", () => {
    expect(
      decide({
        default: "deny",
        rules: [
          { tools: "*Pet", readOnly: false, destructive: false, action: "ask" },
          { readOnly: true, action: "allow" },
        ],
      }),
    ).toEqual({ getPet: "allow", addPet: "ask", deletePet: "deny", custom: "deny" });
  });

  it("accepts a rule naming no existing tool (tools come and go with updates)", () => {
    expect(decide({ default: "allow", rules: [{ tools: "refundCharge", action: "deny" }] }).getPet).toBe("allow");
  });
});
