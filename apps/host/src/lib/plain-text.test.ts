import { describe, expect, it } from "vitest";
import { plainText, readableText } from "./plain-text.js";

describe("plainText", () => {
  it("drops tags and comments, decodes entities, keeps comparisons", () => {
    const squeezed = (html: string) => plainText(html).replace(/\s+/g, " ").trim();
    expect(squeezed('<p>Create a <a href="/docs/refunds">refund</a>.</p><!-- <b>x</b> -->')).toBe("Create a refund .");
    expect(squeezed("a < b &amp;&amp; c &gt; d &#x41;&#66; &rsquo; &#99999999;")).toBe(
      "a < b && c > d AB ’ &#99999999;",
    );
  });
});

describe("readableText", () => {
  it.each([
    ['<p>Create a <a href="/docs/refunds">refund</a>.</p>\n\n<p>More.</p>', "Create a refund. More."],
    [
      "<p>Returns a list of <code>Customer</code> objects (newest first).</p>",
      "Returns a list of Customer objects (newest first).",
    ],
    ["&ldquo;quoted&rdquo;&nbsp;&amp; bar &unknown; end", "“quoted” & bar end"],
    ["plain text stays", "plain text stays"],
  ])("%j reads %j", (html, text) => {
    expect(readableText(html)).toBe(text);
  });
});
