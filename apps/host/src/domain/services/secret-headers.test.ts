import { describe, expect, it } from "vitest";
import { readReservedSecrets, valuesToMask } from "./secret-headers.js";

describe("readReservedSecrets", () => {
  it("takes header: and query: secrets out of the others, by the name after the prefix", () => {
    const split = readReservedSecrets({
      bearer: "b-token",
      "header:Authorization": "token ghp_x",
      "header:X-Api-Version": "2022-11-28",
      "query:api_key": "k y",
      "query:a/b": "",
      basic: { username: "u", password: "p" },
    });
    expect(split).toEqual({
      others: { bearer: "b-token", basic: { username: "u", password: "p" } },
      state: {
        secretHeaders: { Authorization: "token ghp_x", "X-Api-Version": "2022-11-28" },
        secretQuery: { api_key: "k y", "a/b": "" },
      },
      issues: [],
    });
  });

  it("leaves the state empty without reserved names, and other spellings of the prefixes to the schema", () => {
    expect(readReservedSecrets({ token: "t", "Header:X": "v", headers: { a: "b" } })).toEqual({
      others: { token: "t", "Header:X": "v", headers: { a: "b" } },
      state: {},
      issues: [],
    });
  });

  it.each([
    ["header:", "v", `secret "header:": the header name is missing after "header:"`],
    ["query:", "v", `secret "query:": the query parameter name is missing after "query:"`],
    ["header:X Y", "v", `secret "header:X Y": "X Y" is not a valid header name`],
    ["header:X:Y", "v", `secret "header:X:Y": "X:Y" is not a valid header name`],
    ["header:Ä", "v", `secret "header:Ä": "Ä" is not a valid header name`],
    ["header:Host", "h", `secret "header:Host": "Host" frames the message or the connection`],
    ["header:content-length", "1", `"content-length" frames the message`],
    ["header:Transfer-Encoding", "chunked", `"Transfer-Encoding" frames the message`],
    ["header:Connection", "close", `"Connection" frames the message`],
    ["header:TE", "trailers", `"TE" frames the message`],
    ["header:Authorization", 42, `the value of a secret header must be a string`],
    ["header:Authorization", { token: "t" }, `the value of a secret header must be a string`],
    ["query:api_key", null, `the value of a secret query parameter must be a string`],
    ["header:X-Key", "a\r\nInjected: yes", `must not contain line breaks or other control characters`],
    ["header:X-Key", "a\u0000b", `must not contain line breaks`],
  ])("refuses %j = %j", (name, value, message) => {
    const { others, state, issues } = readReservedSecrets({ [name]: value, token: "kept" });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toContain(message);
    expect(issues[0]!.path).toBe(`/${name}`);
    expect(others).toEqual({ token: "kept" });
    expect(state).toEqual({});
  });

  it("allows a tab in a value, and refuses two names for the same header", () => {
    const { state, issues } = readReservedSecrets({ "header:X-A": "a\tb", "header:x-a": "c" });
    expect(state).toEqual({ secretHeaders: { "X-A": "a\tb" } });
    expect(issues.map((issue) => issue.message)).toEqual([
      `secret "header:x-a": it names the same header as "header:X-A"`,
    ]);
  });
});

describe("valuesToMask", () => {
  it("adds the credentials of a secret header written as <scheme> <credentials>", () => {
    const values = {
      "header:Authorization": "token ghp_abc",
      "header:X-Key": "plain",
      "query:k": "Bearer q",
      t: "a b",
    };
    expect(valuesToMask(values)).toEqual([values, "ghp_abc"]);
  });
});
