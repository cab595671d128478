/**
 * Text out of the HTML that API documents put in descriptions (Stripe's are
 * all HTML): for the search index, which wants the words, and for what an
 * agent reads in search results, which should read as text.
 */

/** The named entities API documents use; any other becomes a space. */
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  ndash: "–",
  mdash: "—",
  hellip: "…",
};

/**
 * Text with HTML tags and comments removed and entities decoded (Stripe's
 * descriptions are HTML). Only what looks like a tag goes: `<` followed by a
 * letter, `/` or `!`, so "a < b" stays as it is.
 */
export function plainText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<\/?[a-zA-Z][^<>]*>/g, " ")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] !== "#") return NAMED_ENTITIES[name.toLowerCase()] ?? " ";
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    });
}

/**
 * {@link plainText} as one line a person reads: whitespace runs made one
 * space, none left before punctuation (a tag's space in `<a>refund</a>.`).
 */
export function readableText(html: string): string {
  return plainText(html)
    .replace(/\s+/g, " ")
    .replace(/ ([.,;:!?)])/g, "$1")
    .trim();
}
