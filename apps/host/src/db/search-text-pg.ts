/**
 * Tool search on PostgreSQL: the same words as SQLite's FTS5 index
 * (search-text.ts splits them out of ids, HTML, endpoints, enum values),
 * turned into `tsvector` documents here, in JS, when a tool is written. The
 * last step FTS5's tokenizer (`porter unicode61 remove_diacritics 2`) does
 * by itself happens here too: diacritics are removed and every word is
 * Porter-stemmed, at write time and for the query alike, so "refunds" finds
 * "refund" on both dialects. Nothing in SQL splits or stems text: the
 * documents are written as `tsvector` literals.
 *
 * Ranking is BM25 as FTS5 computes it (stores/service-dialect-pg.ts): the main
 * document's four fields carry the labels A–D so that one document can
 * weigh them as FTS5's column weights do, and each document's word count
 * is kept beside it.
 */
import { stemmer } from "stemmer";
import { enumValueText, indexText, toolTitle } from "./search-text.js";

/** A search document: the `tsvector` literal and how many words it has (BM25's document length). */
export interface SearchDocument {
  vector: string;
  length: number;
}

/** The words of one tool, as the three documents its row keeps. */
export interface ToolSearchDocuments {
  idWords: string;
  endpointWords: string;
  main: SearchDocument;
  description: SearchDocument;
  values: SearchDocument;
}

/** The labels of the main document's fields, in FTS5's column order (id words, title, endpoint, service). */
export const MAIN_LABELS = ["A", "B", "C", "D"] as const;

/** tsvector positions stop at 16383; later words keep the last one (their count still counts). */
const MAX_POSITION = 16_383;

/** A word as both dialects index it: diacritics removed (as unicode61's remove_diacritics), Porter-stemmed. */
export function lexeme(word: string): string {
  const plain = /[^\p{ASCII}]/u.test(word) ? word.normalize("NFD").replace(/\p{M}+/gu, "") : word;
  return stemmer(plain);
}

/** The lexemes to look for, from `searchTerms` (db/search-text.ts); distinct. */
export function queryLexemes(terms: readonly string[]): string[] {
  return [...new Set(terms.map(lexeme).filter((word) => word !== ""))];
}

/** The documents of a tool, from the same text functions SQLite's triggers call. */
export function toolSearchDocuments(tool: {
  id: string;
  name: string;
  description: string;
  endpoint: string | null;
  inputSchema: string;
  serviceId: string;
  serviceName: string;
}): ToolSearchDocuments {
  const idWords = indexText(tool.id);
  const endpointWords = indexText(tool.endpoint);
  return {
    idWords,
    endpointWords,
    main: document([
      idWords,
      toolTitle(tool.name, tool.id, tool.description),
      endpointWords,
      indexText(`${tool.serviceId} ${tool.serviceName}`),
    ]),
    description: document([indexText(tool.description)]),
    values: document([enumValueText(tool.inputSchema)]),
  };
}

/** Space-separated words of each field (label A, B, … in order) as one document. */
function document(fields: readonly string[]): SearchDocument {
  const positions = new Map<string, string[]>();
  let length = 0;
  fields.forEach((text, field) => {
    const label = MAIN_LABELS[field] ?? "D";
    for (const word of text.split(" ")) {
      if (word === "") continue;
      const stem = lexeme(word);
      if (stem === "") continue;
      length++;
      const list = positions.get(stem) ?? [];
      // PostgreSQL keeps at most 256 positions of a lexeme.
      if (list.length < 256) list.push(`${Math.min(length, MAX_POSITION)}${label}`);
      positions.set(stem, list);
    }
  });
  const vector = [...positions].map(([word, at]) => `${quoteLexeme(word)}:${at.join(",")}`).join(" ");
  return { vector, length };
}

/** A lexeme in a tsvector literal: quoted, quotes doubled, backslashes escaped. */
function quoteLexeme(word: string): string {
  return `'${word.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}
