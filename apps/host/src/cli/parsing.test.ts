import { describe, expect, it } from "vitest";
import { UsageError } from "./args.js";
import { clientSettings, DEFAULT_URL, mcpWaitSetting } from "./client-config.js";
import { clip, table } from "./output.js";
import { parseTimeout } from "./run-command.js";
import { patchFromPairs } from "./services-command.js";

describe("patchFromPairs", () => {
  it.each([
    ["port=8080", { port: 8080 }],
    ["debug=true", { debug: true }],
    ["gone=null", { gone: null }],
    ['tags=["a","b"]', { tags: ["a", "b"] }],
    ['headers={"X-Env":"prod"}', { headers: { "X-Env": "prod" } }],
    ["baseUrl=https://api.example.com/v1?a=b", { baseUrl: "https://api.example.com/v1?a=b" }],
    ['name="quoted"', { name: "quoted" }],
    ["empty=", { empty: "" }],
  ])("parses %s", (pair, patch) => {
    expect(patchFromPairs([pair])).toEqual(patch);
  });

  it.each(["novalue", "=value"])("refuses %s", (pair) => {
    expect(() => patchFromPairs([pair])).toThrow(UsageError);
  });
});

describe("parseTimeout", () => {
  it.each([
    ["1500", 1500],
    ["1500ms", 1500],
    ["30s", 30_000],
    ["2m", 120_000],
    ["none", null],
  ])("reads %s", (text, ms) => {
    expect(parseTimeout(text)).toBe(ms);
  });

  it.each(["0", "-1", "1.5", "soon", "10h", ""])("refuses %j", (text) => {
    expect(() => parseTimeout(text)).toThrow(UsageError);
  });
});

describe("clientSettings", () => {
  it("takes flags over the environment, and defaults to the local host", () => {
    expect(clientSettings({}, {})).toEqual({ url: DEFAULT_URL, apiKey: null });
    expect(clientSettings({}, { CYRNEL_URL: "http://h:1", CYRNEL_API_KEY: "k" })).toEqual({
      url: "http://h:1",
      apiKey: "k",
    });
    expect(
      clientSettings({ url: "https://x", "api-key": "f" }, { CYRNEL_URL: "http://h:1", CYRNEL_API_KEY: "k" }),
    ).toEqual({
      url: "https://x",
      apiKey: "f",
    });
  });

  it.each(["not a url", "ftp://host"])("refuses %s", (url) => {
    expect(() => clientSettings({ url }, {})).toThrow(UsageError);
  });
});

describe("mcpWaitSetting", () => {
  it("takes --wait-ms over CYRNEL_MCP_WAIT_MS, and defaults to 50 s", () => {
    expect(mcpWaitSetting(undefined, {})).toBe(50_000);
    expect(mcpWaitSetting(undefined, { CYRNEL_MCP_WAIT_MS: " 1500 " })).toBe(1500);
    expect(mcpWaitSetting("0", { CYRNEL_MCP_WAIT_MS: "1500" })).toBe(0);
  });

  it.each([
    ["soon", undefined, '--wait-ms: must be an integer, got "soon"'],
    ["-1", undefined, '--wait-ms: must be an integer, got "-1"'],
    [undefined, "2147483648", "CYRNEL_MCP_WAIT_MS: must be between 0 and 2147483647, got 2147483648"],
  ])("refuses --wait-ms %j / CYRNEL_MCP_WAIT_MS %j as a usage error", (flag, env, message) => {
    expect(() => mcpWaitSetting(flag, { CYRNEL_MCP_WAIT_MS: env })).toThrow(new UsageError(message));
  });
});

describe("table", () => {
  it("aligns columns by characters, not UTF-16 units, and leaves the last column unpadded", () => {
    expect(
      table(
        ["ID", "NAME"],
        [
          ["tromsø", "Tromsø"],
          ["x", "y"],
        ],
      ),
    ).toBe("ID      NAME\ntromsø  Tromsø\nx       y");
  });

  it("clips long text to one line", () => {
    expect(clip("a\nb   c", 10)).toBe("a b c");
    expect(clip("abcdefghij", 5)).toBe("abcd…");
  });
});
