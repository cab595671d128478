/**
 * HTML in descriptions → Markdown. API documents often write descriptions in
 * HTML (Stripe: `<p>Creates a <a href="/docs/x">PaymentIntent</a>.</p>`),
 * which costs an LLM tokens and reads badly in Markdown pages and doc
 * comments.
 *
 * A small converter rather than a dependency: it only rewrites text, never
 * builds a DOM or runs anything, and knows just the tags descriptions use.
 * Paragraphs, line breaks, lists, headings (as bold lines: a description
 * must not add sections to the page it sits in), emphasis, code and
 * preformatted blocks are converted; links keep their text and target when
 * the target is http(s), mailto or relative (others, `javascript:` included,
 * keep only the text); active and embedded content (`<script>`, `<style>`,
 * `<iframe>`, `<svg>`, forms, …) is dropped with its content; other known
 * tags are dropped and their text kept, so no attribute (an `onerror`, a
 * `style`) survives. Anything that is not a
 * known tag (`Array<T>`, `<id>`) stays as written, so Markdown and plain
 * descriptions pass through unchanged. Character references are decoded.
 */

const INLINE = new Map([
  ["strong", "**"],
  ["b", "**"],
  ["em", "_"],
  ["i", "_"],
  ["code", "`"],
  ["tt", "`"],
  ["kbd", "`"],
  ["var", "_"],
  ["del", "~~"],
  ["s", "~~"],
]);
const BLOCKS = new Set(["p", "div", "blockquote", "table", "tr", "section", "article", "header", "footer", "dl"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Active or embedded content: never text for a reader. */
const DROPPED_WITH_CONTENT = new Set([
  "script",
  "style",
  "template",
  "iframe",
  "object",
  "noscript",
  "svg",
  "math",
  "form",
  "textarea",
  "select",
  "button",
  "audio",
  "video",
  "canvas",
  "frameset",
]);
/** Tags removed, their text kept (void ones such as `img` or `input` have none). */
const TRANSPARENT = new Set([
  ...["span", "sup", "sub", "small", "u", "abbr", "cite", "font", "label", "center", "nobr", "figure", "figcaption"],
  ...["td", "th", "dt", "dd", "thead", "tbody", "tfoot", "caption", "colgroup", "col"],
  ...["img", "input", "link", "meta", "base", "embed", "frame", "source", "track", "wbr", "picture"],
]);
const KNOWN = new Set([
  ...INLINE.keys(),
  ...BLOCKS,
  ...HEADINGS,
  ...DROPPED_WITH_CONTENT,
  ...TRANSPARENT,
  "a",
  "br",
  "hr",
  "ul",
  "ol",
  "li",
  "pre",
]);

const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([A-Za-z][A-Za-z0-9]*)((?:\s+(?:"[^"]*"|'[^']*'|[^'">])*)?)\s*(\/?)>/g;
const KNOWN_TAG = new RegExp(`<!--|<\\/?(?:${[...KNOWN].join("|")})(?:\\s[^>]*)?\\/?>`, "i");
const ENTITY = /&(#\d+|#x[0-9A-Fa-f]+|[A-Za-z]+);/g;
const SAFE_HREF = /^(?:https?:|mailto:|\/|#|\.{0,2}\/)/i;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  copy: "©",
  reg: "®",
  trade: "™",
  times: "×",
  rarr: "→",
  larr: "←",
};

/** Decodes character references (`&amp;`, `&#39;`, `&#x2F;`); unknown or invalid ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name] ?? whole;
  });
}

/**
 * `text` with its HTML turned into Markdown. Text without a known tag only
 * has its character references decoded. Line breaks in the text are kept
 * (descriptions mix Markdown and HTML); runs of spaces become one.
 */
export function htmlToMarkdown(text: string): string {
  if (!KNOWN_TAG.test(text)) return decodeEntities(text);
  const out = new MarkdownWriter();
  let dropping: string | undefined;
  let last = 0;
  for (const match of text.matchAll(TAG)) {
    const [whole, closing, rawName, attributes] = match;
    const name = rawName?.toLowerCase();
    if (name !== undefined && !KNOWN.has(name)) continue;
    if (dropping === undefined) out.text(text.slice(last, match.index));
    last = match.index + whole.length;
    if (name === undefined) continue; // a comment
    if (dropping !== undefined) {
      if (closing === "/" && name === dropping) dropping = undefined;
      continue;
    }
    if (DROPPED_WITH_CONTENT.has(name)) {
      if (closing !== "/") dropping = name;
      continue;
    }
    if (closing === "/") out.close(name);
    else out.open(name, attributes ?? "");
  }
  if (dropping === undefined) out.text(text.slice(last));
  return out.result();
}

/** Builds the Markdown while the tags stream by. */
class MarkdownWriter {
  private buffer = "";
  private readonly lists: { ordered: boolean; count: number; width: number }[] = [];
  private readonly links: { href: string | undefined; start: number }[] = [];
  private pre = 0;

  text(raw: string): void {
    if (raw === "") return;
    const decoded = decodeEntities(raw);
    if (this.pre > 0) {
      this.buffer += decoded;
      return;
    }
    let collapsed = decoded.replace(/[^\S\n]+/g, " ").replace(/ ?\n ?/g, "\n");
    if (this.atLineStart()) collapsed = collapsed.replace(/^\s+/, "");
    this.buffer += collapsed;
  }

  open(name: string, attributes: string): void {
    const mark = INLINE.get(name);
    if (mark !== undefined) {
      if (this.pre === 0) this.buffer += mark;
    } else if (name === "a") {
      const href = attribute(attributes, "href");
      this.links.push({
        href: href !== undefined && SAFE_HREF.test(href) ? href : undefined,
        start: this.buffer.length,
      });
    } else if (name === "br") this.newline();
    else if (name === "hr") {
      this.paragraph();
      this.buffer += "---";
      this.paragraph();
    } else if (name === "ul" || name === "ol") {
      this.newline();
      this.lists.push({ ordered: name === "ol", count: 0, width: 0 });
    } else if (name === "li") {
      const list = this.lists[this.lists.length - 1];
      this.newline();
      // A nested list is indented by the width of the markers around it (CommonMark's rule).
      const indent = " ".repeat(this.lists.slice(0, -1).reduce((sum, outer) => sum + outer.width, 0));
      const marker = list?.ordered ? `${++list.count}. ` : "- ";
      if (list !== undefined) list.width = marker.length;
      this.buffer += indent + marker;
    } else if (name === "pre") {
      this.paragraph();
      this.buffer += "```\n";
      this.pre++;
    } else if (HEADINGS.has(name)) {
      this.paragraph();
      this.buffer += "**";
    } else if (BLOCKS.has(name)) this.paragraph();
  }

  close(name: string): void {
    const mark = INLINE.get(name);
    if (mark !== undefined) {
      if (this.pre === 0) this.buffer += mark;
    } else if (name === "a") {
      const link = this.links.pop();
      if (link === undefined) return;
      const label = this.buffer.slice(link.start).trim();
      if (link.href !== undefined && label !== "") {
        this.buffer = `${this.buffer.slice(0, link.start)}[${label}](${linkTarget(link.href)})`;
      }
    } else if (name === "ul" || name === "ol") {
      this.lists.pop();
      this.newline();
    } else if (name === "pre") {
      if (this.pre === 0) return;
      this.pre--;
      if (!this.buffer.endsWith("\n")) this.buffer += "\n";
      this.buffer += "```";
      this.paragraph();
    } else if (HEADINGS.has(name)) {
      this.buffer = this.buffer.replace(/\s+$/, "");
      this.buffer += "**";
      this.paragraph();
    } else if (BLOCKS.has(name)) this.paragraph();
  }

  result(): string {
    return this.buffer
      .replace(/[ \t]+\n/g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }

  private atLineStart(): boolean {
    return this.buffer === "" || this.buffer.endsWith("\n") || /\n *(?:- |\d+\. )$/.test(this.buffer);
  }

  private newline(): void {
    if (this.buffer !== "" && !this.buffer.endsWith("\n")) this.buffer = `${this.buffer.replace(/ +$/, "")}\n`;
  }

  private paragraph(): void {
    if (this.buffer === "") return;
    this.buffer = this.buffer.replace(/\s+$/, "");
    this.buffer += "\n\n";
  }
}

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i").exec(attributes);
  if (match === null) return undefined;
  return decodeEntities(match[1] ?? match[2] ?? match[3] ?? "").trim();
}

/** A link target Markdown cannot misread: spaces and parentheses encoded. */
function linkTarget(href: string): string {
  return href.replace(/ /g, "%20").replace(/\(/g, "%28").replace(/\)/g, "%29");
}
