import { describe, expect, it } from "vitest";
import type { ParameterLocation } from "./operations.js";
import { parameterKeys } from "./parameters.js";

type P = { name: string; in: ParameterLocation };
const p = (location: ParameterLocation, name: string): P => ({ name, in: location });

describe("parameterKeys", () => {
  it.each<[string, P[], boolean, string[]]>([
    ["plain names", [p("path", "id"), p("query", "limit")], false, ["id", "limit"]],
    ["path wins over query", [p("query", "id"), p("path", "id")], false, ["query_id", "id"]],
    [
      "query wins over header and cookie",
      [p("cookie", "x"), p("header", "x"), p("query", "x")],
      false,
      ["cookie_x", "header_x", "x"],
    ],
    ["header wins over cookie", [p("cookie", "s"), p("header", "s")], false, ["cookie_s", "s"]],
    ["a parameter named body, with a request body", [p("query", "body")], true, ["query_body"]],
    ["a parameter named body, without a request body", [p("query", "body")], false, ["body"]],
    [
      "a real parameter keeps a name a rename wants",
      [p("path", "id"), p("query", "id"), p("query", "query_id")],
      false,
      ["id", "query_id_2", "query_id"],
    ],
    [
      "renames of renames",
      [p("path", "id"), p("query", "id"), p("header", "id"), p("cookie", "id")],
      false,
      ["id", "query_id", "header_id", "cookie_id"],
    ],
    ["__proto__ is an ordinary name", [p("query", "__proto__")], false, ["__proto__"]],
  ])("%s", (_label, parameters, hasBody, expected) => {
    expect(parameterKeys(parameters, hasBody)).toEqual(expected);
  });
});
