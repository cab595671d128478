import { describe, expect, it } from "vitest";
import { enumValueText, fts5Expression, indexText, searchTerms, searchWords, toolTitle } from "./search-text.js";

describe("searchWords", () => {
  it.each([
    ["chat_postMessage", ["chat", "post", "message"]],
    ["chat.postMessage", ["chat", "post", "message"]],
    ["getHTTPStatusCode", ["get", "http", "status", "code"]],
    ["PostChargesChargeRefund", ["post", "charges", "charge", "refund"]],
    ["repos/get-content", ["repo", "get", "content"]],
    ["GET /pet/findByStatus", ["get", "pet", "list", "by", "status"]],
    ["v2Items", ["v2", "items"]],
    ["Ünïcode ÉCOLE naïveTest", ["ünïcode", "école", "naïve", "test"]],
    ["  --  ", []],
  ])("%s", (text, words) => {
    expect(searchWords(text)).toEqual(words);
  });
});

describe("toolTitle", () => {
  it("is the name a person wrote, else the description's first sentence", () => {
    expect(toolTitle("Create a pull request", "pullsCreate", "Long text.")).toBe("create a pull request");
    expect(toolTitle("PostRefunds", "PostRefunds", "<p>Create a refund.</p><p>More.</p>")).toBe("create a refund");
    expect(toolTitle("chat_postMessage", "chat_postMessage", "Sends a message to a channel. More")).toBe(
      "sends a message to a channel",
    );
    expect(toolTitle("x", "x", "no sentence end")).toBe("no sentence end");
  });
});

describe("enumValueText", () => {
  it("collects string enums of parameters and body fields, through $refs", () => {
    const schema = {
      type: "object",
      properties: {
        status: { type: "array", items: { enum: ["available", "pending", 3] } },
        body: { $ref: "#/$defs/Body" },
      },
      $defs: {
        Body: { type: "object", properties: { kind: { $ref: "#/$defs/Kind" } } },
        Kind: { anyOf: [{ enum: ["inStock"] }, { type: "null" }] },
      },
    };
    expect(enumValueText(JSON.stringify(schema))).toBe("available pending in stock");
  });

  it.each([null, "not json", "[]", '{"$defs": 5, "properties": {"a": {"$ref": "#/$defs/A"}}}'])(
    "is empty for %j",
    (text) => {
      expect(enumValueText(text)).toBe("");
    },
  );

  it("stops at a $ref cycle", () => {
    const cyclic = { properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { $ref: "#/$defs/A" } } };
    expect(enumValueText(JSON.stringify(cyclic))).toBe("");
  });
});

describe("searchTerms and fts5Expression", () => {
  it.each([
    ["refund a charge", '"refund" OR "charge"'],
    ["chat.postMessage", '"chat" OR "post" OR "message"'],
    ['"pull" AND NEAR(request*) title:x', '"pull" OR "near" OR "request" OR "title" OR "x"'],
    ["the a", '"the" OR "a"'],
    ["!!! (((", undefined],
  ])("%s", (text, expression) => {
    const terms = searchTerms(text);
    expect(terms && fts5Expression(terms)).toBe(expression);
  });

  it("keeps at most 32 words", () => {
    expect(searchTerms(Array.from({ length: 50 }, (_, i) => `w${i}`).join(" "))).toHaveLength(32);
  });

  it("is the same words the index holds", () => {
    expect(indexText("Chat.PostMessage")).toBe("chat post message");
    expect(indexText(null)).toBe("");
  });
});
