import { describe, expect, it } from "vitest";
import { escapeNul, unescapeNul } from "./schema-pg.js";
import { lexeme, queryLexemes, toolSearchDocuments } from "./search-text-pg.js";

describe("PostgreSQL search documents", () => {
  it("stem and fold words as FTS5's porter unicode61 remove_diacritics tokenizer does", () => {
    expect(["refunds", "refunding", "refund"].map(lexeme)).toEqual(["refund", "refund", "refund"]);
    expect(lexeme("réaction")).toBe(lexeme("reaction"));
    expect(queryLexemes(["pets", "pet", "charges"])).toEqual(["pet", "charg"]);
  });

  it("label the main document's fields A–D and count every word", () => {
    const documents = toolSearchDocuments({
      id: "chat_postMessage",
      name: "chat_postMessage",
      description: "Sends a message to a channel. <b>Markdown</b> works.",
      endpoint: "POST /chat.postMessage",
      inputSchema: JSON.stringify({ properties: { parse: { enum: ["full", "none"] } } }),
      serviceId: "slack",
      serviceName: "Slack Web API",
    });
    expect(documents.idWords).toBe("chat post message");
    expect(documents.endpointWords).toBe("post chat post message");
    // id words (A), the description's first sentence as title (B), endpoint (C), service (D).
    expect(documents.main.vector).toBe(
      "'chat':1A,11C 'post':2A,10C,12C 'messag':3A,6B,13C 'send':4B 'a':5B,8B 'to':7B 'channel':9B " +
        "'slack':14D,15D 'web':16D 'api':17D",
    );
    expect(documents.main.length).toBe(17);
    expect(documents.description.length).toBe(8);
    expect(documents.values).toEqual({ vector: "'full':1A 'none':2A", length: 2 });
  });

  it("quote what a tsvector literal would read as syntax", () => {
    const documents = toolSearchDocuments({
      id: "x",
      name: "x",
      description: "",
      endpoint: null,
      inputSchema: "{}",
      serviceId: "s",
      serviceName: "s",
    });
    expect(documents.description).toEqual({ vector: "", length: 0 });
  });
});

describe("U+0000 and lone surrogates in PostgreSQL text", () => {
  it.each([
    "",
    "plain",
    "a\u0000b",
    "\uffff",
    "\uffff0",
    "\uffffF\u0000",
    "\u0000\u0000\uffff\uffff",
    "half \ud800 a pair",
    "\udc00 low first, then a pair 😀 and a high at the end \udbff",
    "\uffffSd800 looks like an escape",
  ])("%j comes back as it went in", (text) => {
    const stored = escapeNul(text);
    expect(stored).not.toContain("\u0000");
    // What the driver sends as UTF-8 must be well-formed: no surrogate is left alone.
    expect(Buffer.from(stored, "utf8").toString("utf8")).toBe(stored);
    expect(unescapeNul(stored)).toBe(text);
  });
});
