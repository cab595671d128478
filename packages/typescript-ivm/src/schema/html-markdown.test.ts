import { describe, expect, it } from "vitest";
import { decodeEntities, htmlToMarkdown } from "./html-markdown.js";

describe("htmlToMarkdown", () => {
  it.each<[string, string, string]>([
    ["plain text", "Just text.", "Just text."],
    ["Markdown stays Markdown", "A `code` and\n\n- a list", "A `code` and\n\n- a list"],
    ["unknown tags stay literal", "Returns Array<Item> or <id>.", "Returns Array<Item> or <id>."],
    [
      "entities without tags are decoded",
      "Fish &amp; chips &lt;3 &#39;x&#39; &#x2F; &bogus;",
      "Fish & chips <3 'x' / &bogus;",
    ],
    ["paragraphs", "<p>One.</p>\n<p>Two.</p>", "One.\n\nTwo."],
    ["inline markup", "<b>bold</b>, <em>em</em>, <code>a&lt;b</code>", "**bold**, _em_, `a<b`"],
    [
      "relative and absolute links",
      '<a href="/docs/x">X</a> and <a href="https://e.com/a b">E</a>',
      "[X](/docs/x) and [E](https://e.com/a%20b)",
    ],
    ["unsafe links keep their text", '<a href="javascript:alert(1)">click</a> <a href="data:x">d</a>', "click d"],
    ["links without a target", "<a name=x>anchor</a>", "anchor"],
    ["line breaks", "a<br>b<br/>c", "a\nb\nc"],
    ["lists", "<ul><li>one</li><li>two <b>2</b></li></ul>", "- one\n- two **2**"],
    ["ordered and nested lists", "<ol><li>a<ul><li>x</li></ul></li><li>b</li></ol>", "1. a\n   - x\n2. b"],
    ["headings become bold lines", "<h2>Title</h2><p>Body</p>", "**Title**\n\nBody"],
    ["preformatted blocks keep their spacing", "<pre>a\n  b</pre>", "```\na\n  b\n```"],
    ["script and style are dropped with their content", "a<script>alert('x')</script>b<style>p{}</style>c", "abc"],
    ["an unclosed script drops the rest", "a<script>alert(1)", "a"],
    [
      "embedded and active content is dropped",
      'a<svg onload="x()"><text>t</text></svg><img src=x onerror="y()">b<iframe src="/x">f</iframe>',
      "ab",
    ],
    ["comments are dropped", "a<!-- hidden -->b", "ab"],
    ["attributes with > inside quotes", '<a title="a>b" href="/x">x</a>', "[x](/x)"],
    ["spaces collapse, line breaks stay", "<p>a   b\n   c</p>", "a b\nc"],
  ])("%s", (_label, html, markdown) => {
    expect(htmlToMarkdown(html)).toBe(markdown);
  });

  it("converts a real Stripe description", () => {
    expect(
      htmlToMarkdown(
        '<p>Creates a PaymentIntent object.</p>\n\n<p>After the PaymentIntent is created, attach a payment method and <a href="/docs/api/payment_intents/confirm">confirm</a>\nto continue the payment.</p>',
      ),
    ).toBe(
      "Creates a PaymentIntent object.\n\nAfter the PaymentIntent is created, attach a payment method and [confirm](/docs/api/payment_intents/confirm)\nto continue the payment.",
    );
  });

  it("keeps invalid character references as written", () => {
    expect(decodeEntities("&#0; &#xD800; &#x110000; &#65;")).toBe("&#0; &#xD800; &#x110000; A");
  });
});
