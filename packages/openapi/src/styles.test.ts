import { describe, expect, it } from "vitest";
import { encode, serializeCookie, serializeHeader, serializePath, serializeQuery } from "./styles.js";

const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

describe("serializePath", () => {
  it.each([
    ["simple", false, "blue", "blue"],
    ["simple", false, array, "blue,black,brown"],
    ["simple", false, object, "R,100,G,200,B,150"],
    ["simple", true, array, "blue,black,brown"],
    ["simple", true, object, "R=100,G=200,B=150"],
    ["label", false, "blue", ".blue"],
    ["label", false, array, ".blue,black,brown"],
    ["label", false, object, ".R,100,G,200,B,150"],
    ["label", true, array, ".blue.black.brown"],
    ["label", true, object, ".R=100.G=200.B=150"],
    ["matrix", false, "blue", ";color=blue"],
    ["matrix", false, "", ";color"],
    ["matrix", false, array, ";color=blue,black,brown"],
    ["matrix", false, object, ";color=R,100,G,200,B,150"],
    ["matrix", true, array, ";color=blue;color=black;color=brown"],
    ["matrix", true, object, ";R=100;G=200;B=150"],
    // Reserved characters are always encoded in paths.
    ["simple", false, "a/b c?d#e", "a%2Fb%20c%3Fd%23e"],
    ["simple", false, ["a,b", "c"], "a%2Cb,c"],
    ["simple", false, 42, "42"],
    ["simple", false, true, "true"],
  ])("%s explode=%s %j → %s", (style, explode, value, expected) => {
    expect(serializePath("color", value, style, explode)).toBe(expected);
  });
});

describe("serializeQuery", () => {
  it.each([
    ["form", true, "blue", ["color=blue"]],
    ["form", true, array, ["color=blue", "color=black", "color=brown"]],
    ["form", true, object, ["R=100", "G=200", "B=150"]],
    ["form", false, array, ["color=blue,black,brown"]],
    ["form", false, object, ["color=R,100,G,200,B,150"]],
    ["form", false, [], ["color="]],
    ["form", true, [], ["color="]],
    ["spaceDelimited", false, [], ["color="]],
    ["spaceDelimited", false, array, ["color=blue%20black%20brown"]],
    ["spaceDelimited", false, object, ["color=R%20100%20G%20200%20B%20150"]],
    ["spaceDelimited", true, array, ["color=blue", "color=black", "color=brown"]],
    ["pipeDelimited", false, array, ["color=blue%7Cblack%7Cbrown"]],
    ["pipeDelimited", false, object, ["color=R%7C100%7CG%7C200%7CB%7C150"]],
    ["tabDelimited", false, array, ["color=blue%09black%09brown"]],
    ["deepObject", true, object, ["color[R]=100", "color[G]=200", "color[B]=150"]],
    ["deepObject", true, { a: { b: 1 }, c: [1, 2] }, ["color[a][b]=1", "color[c][0]=1", "color[c][1]=2"]],
    ["deepObject", true, ["a", "b"], ["color[0]=a", "color[1]=b"]],
    [
      "deepObject",
      true,
      { fields: [{ name: "n 1", value: "v" }, { name: "n2" }] },
      ["color[fields][0][name]=n%201", "color[fields][0][value]=v", "color[fields][1][name]=n2"],
    ],
    ["deepObject", true, [], ["color="]],
    ["deepObject", true, { list: [] }, ["color[list]="]],
    ["form", true, null, []],
    ["form", true, undefined, []],
    ["form", true, "a b&c=d", ["color=a%20b%26c%3Dd"]],
    ["form", true, "ünï", ["color=%C3%BCn%C3%AF"]],
    ["form", true, { nested: { x: 1 } }, ["nested=%7B%22x%22%3A1%7D"]],
  ])("%s explode=%s %j → %j", (style, explode, value, expected) => {
    expect(serializeQuery("color", value, style, explode)).toEqual(expected);
  });

  it("keeps brackets in names readable and encodes the rest", () => {
    expect(serializeQuery("filter[status]", "open", "form", true)).toEqual(["filter[status]=open"]);
    expect(serializeQuery("a b", "x", "form", true)).toEqual(["a%20b=x"]);
  });

  it("allowReserved leaves RFC 3986 reserved characters alone", () => {
    expect(serializeQuery("q", "a/b:c?d", "form", true, true)).toEqual(["q=a/b:c?d"]);
    expect(serializeQuery("q", "a/b:c?d", "form", true, false)).toEqual(["q=a%2Fb%3Ac%3Fd"]);
    expect(encode("x y", true)).toBe("x%20y");
  });
});

describe("serializeHeader", () => {
  it.each([
    [false, "blue", "blue"],
    [false, array, "blue,black,brown"],
    [false, object, "R,100,G,200,B,150"],
    [true, object, "R=100,G=200,B=150"],
    [false, "a b/c", "a b/c"],
  ])("explode=%s %j → %s", (explode, value, expected) => {
    expect(serializeHeader(value, explode)).toBe(expected);
  });
});

describe("serializeCookie", () => {
  it.each([
    [false, "blue", [["color", "blue"]]],
    [false, array, [["color", "blue,black,brown"]]],
    [
      true,
      array,
      [
        ["color", "blue"],
        ["color", "black"],
        ["color", "brown"],
      ],
    ],
    [false, object, [["color", "R,100,G,200,B,150"]]],
    [
      true,
      object,
      [
        ["R", "100"],
        ["G", "200"],
        ["B", "150"],
      ],
    ],
    [true, "a b;c", [["color", "a%20b%3Bc"]]],
    [true, null, []],
  ])("explode=%s %j → %j", (explode, value, expected) => {
    expect(serializeCookie("color", value, explode)).toEqual(expected);
  });
});
