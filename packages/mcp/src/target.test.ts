import { describe, expect, it } from "vitest";
import { parseTarget } from "./target.js";

describe("parseTarget", () => {
  it("reads an http definition", () => {
    expect(parseTarget('{"transport":"http","url":"https://example.com/mcp"}')).toEqual({
      transport: "http",
      url: "https://example.com/mcp",
    });
  });

  it("reads a stdio definition, args and env optional", () => {
    expect(parseTarget('{"transport":"stdio","command":"npx","args":["-y","srv"],"env":{"A_B":"1"}}')).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "srv"],
      env: { A_B: "1" },
    });
    expect(parseTarget('{"transport":"stdio","command":"srv"}')).toEqual({
      transport: "stdio",
      command: "srv",
      args: [],
      env: {},
    });
  });

  it.each([
    ["not json", /is JSON/],
    ["[]", /JSON object/],
    ['{"transport":"ws","url":"ws://x"}', /"http" or "stdio"/],
    ['{"transport":"http"}', /needs "url"/],
    ['{"transport":"http","url":"nope"}', /not a URL/],
    ['{"transport":"http","url":"ftp://example.com/"}', /http or https/],
    ['{"transport":"http","url":"https://u:p@example.com/"}', /user name or password/],
    ['{"transport":"http","url":"https://example.com/","headers":{}}', /unknown key "headers"/],
    ['{"transport":"stdio"}', /needs "command"/],
    ['{"transport":"stdio","command":" "}', /needs "command"/],
    ['{"transport":"stdio","command":"x","args":"-y"}', /"args" must be an array of strings/],
    ['{"transport":"stdio","command":"x","args":[1]}', /"args" must be an array of strings/],
    ['{"transport":"stdio","command":"x","env":{"A":1}}', /"env" must map/],
    ['{"transport":"stdio","command":"x","env":{"A=B":"1"}}', /invalid variable name/],
    ['{"transport":"stdio","command":"x","argv":[]}', /unknown key "argv"/],
    ['{"transport":"stdio","command":"x\\u0000y"}', /NUL/],
  ])("refuses %s", (text, message) => {
    expect(() => parseTarget(text)).toThrow(message);
  });
});
