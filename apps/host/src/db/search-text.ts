/**
 * How tool text becomes search words, on both sides of the tool search
 * index: the SQL functions the index's triggers call (registered in
 * client.ts, so rows are indexed by whatever writes them, migrations
 * included) and the query the service store sends to FTS5. Both sides must
 * split text the same way, so they live together here.
 *
 * FTS5's own tokenizer (`porter unicode61 remove_diacritics 2`) then folds
 * case and diacritics and stems each word ("refunds" and "refunding" match
 * "refund"). What it cannot do is split identifiers, so that happens here:
 * `chat_postMessage`, `chat.postMessage` and "chat post message" are all the
 * words `chat post message`.
 */
import { plainText } from "../lib/plain-text.js";

/** Words an agent's query carries that say nothing about which tool it wants. */
const STOP_WORDS = new Set(
  (
    "a an and any are as at be by can do does for from how i in into is it its me my of on or our so that the " +
    "their them these this those to us we what when which with you your"
  ).split(" "),
);

/**
 * Words that name the same thing in API vocabulary, indexed and searched as
 * the first of their group: "list available pets" finds `findPetsByStatus`,
 * "fork a repository" finds `POST /repos/{owner}/{repo}/forks`. Kept short
 * on purpose: a synonym added to the query instead would carry its own (often
 * much higher) rarity weight and outrank the word the agent typed.
 */
const EQUIVALENT_WORDS: Record<string, readonly string[]> = {
  list: ["find", "finds", "finding"],
  repo: ["repos", "repository", "repositories"],
};
const CANONICAL = new Map(
  Object.entries(EQUIVALENT_WORDS).flatMap(([word, others]) => others.map((other) => [other, word] as const)),
);

/** Most words of one search that are looked for; the rest are ignored (each costs an FTS5 term). */
export const MAX_SEARCH_WORDS = 32;

/**
 * Lowercase words of `text`: runs of letters and digits, identifiers split at
 * camelCase humps (`getHTTPStatus` → get, http, status), each replaced by the
 * first word of its equivalence group.
 */
export function searchWords(text: string): string[] {
  return text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => {
      const lower = word.toLowerCase();
      return CANONICAL.get(lower) ?? lower;
    });
}

/** The words of (possibly HTML) text, space-separated: what the index stores for a column. */
export function indexText(text: string | null): string {
  return text === null ? "" : searchWords(plainText(text)).join(" ");
}

const TITLE_CHARS = 200;

/**
 * The one line that says what a tool does: its name when a person wrote one,
 * else the first sentence of its description. Documents without summaries
 * (Slack's, Stripe's) name each tool after its id (`PostRefunds`), which the
 * id column already holds; their description's first sentence ("Create a
 * refund.") is the real title, and matching it should count as much as
 * matching a written name.
 */
export function toolTitle(name: string, id: string, description: string): string {
  if (searchWords(name).join(" ") !== searchWords(id).join(" ")) return indexText(name);
  const text = plainText(description).replace(/\s+/g, " ").trim();
  const sentence = /^.{1,200}?[.!?](?=\s|$)/su.exec(text)?.[0] ?? text.slice(0, TITLE_CHARS);
  return indexText(sentence);
}

const MAX_ENUM_VALUES = 50;

/**
 * The string enum values of a tool's parameters (top level, and one level
 * into `body`, through `$ref`s to `$defs`), as words: "list available pets"
 * should find the operation whose `status` is one of `available`, `pending`,
 * `sold`. Parameter names are not indexed: `owner`, `limit` or `id` are on
 * most tools and only add noise.
 */
export function enumValueText(inputSchema: string | null): string {
  let schema: unknown;
  try {
    schema = inputSchema === null ? null : JSON.parse(inputSchema);
  } catch {
    return "";
  }
  const defs = record(record(schema)?.$defs) ?? {};
  const resolve = (node: unknown): Record<string, unknown> | undefined => {
    let current = record(node);
    for (let hops = 0; hops < 8 && typeof current?.$ref === "string"; hops++) {
      current = record(defs[current.$ref.slice(current.$ref.lastIndexOf("/") + 1)]);
    }
    return current;
  };
  const values: string[] = [];
  const visit = (node: unknown, depth: number) => {
    const resolved = resolve(node);
    if (resolved === undefined || values.length >= MAX_ENUM_VALUES) return;
    if (Array.isArray(resolved.enum)) {
      for (const value of resolved.enum) if (typeof value === "string") values.push(value);
    }
    if (resolved.items !== undefined) visit(resolved.items, depth);
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      if (Array.isArray(resolved[key])) for (const member of resolved[key] as unknown[]) visit(member, depth);
    }
    const properties = record(resolved.properties);
    if (properties && depth < 2) for (const property of Object.values(properties)) visit(property, depth + 1);
  };
  visit(schema, 0);
  return searchWords(values.slice(0, MAX_ENUM_VALUES).join(" ")).join(" ");
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The words of an agent's search text to look for, or undefined when it has
 * none: distinct, stop words dropped unless nothing else is left, at most
 * {@link MAX_SEARCH_WORDS}. Each dialect turns them into its own query
 * ({@link fts5Expression}; PostgreSQL's lexemes in search-text-pg.ts), so
 * the syntax of either is never taken from the input.
 */
export function searchTerms(search: string): string[] | undefined {
  const words = [...new Set(searchWords(search))];
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  const kept = (meaningful.length > 0 ? meaningful : words).slice(0, MAX_SEARCH_WORDS);
  return kept.length === 0 ? undefined : kept;
}

/**
 * The FTS5 query for search terms: every word a quoted string (FTS5 syntax
 * in the input — `AND`, `NEAR`, `*`, `"`, column filters — is never
 * interpreted), the words OR-ed: BM25 ranks tools with more of them, and
 * rarer ones, first, while a tool missing one word is still found.
 */
export function fts5Expression(terms: readonly string[]): string {
  return terms.map((word) => `"${word.replaceAll('"', '""')}"`).join(" OR ");
}
