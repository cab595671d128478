/**
 * What the service store (service-store.ts) does differently on SQLite
 * and on PostgreSQL: the hooks it is constructed with, one implementation
 * per dialect (service-dialect-sqlite.ts, service-dialect-pg.ts). Each is
 * a hook, not shared code, because the two databases keep something
 * differently; everything else about services and tools is written once.
 *
 * - Tool search: SQLite indexes tools in FTS5 tables its triggers fill
 *   and ranks with `bm25()`; PostgreSQL keeps `tsvector` documents in the
 *   tools' own rows, written by the store, and computes the same BM25 in
 *   SQL ({@link ToolSearchIndex}).
 * - `?query=` compares Unicode case-folded text (casefold.ts): SQLite folds
 *   in SQL with the `casefold` function client.ts registers; PostgreSQL has
 *   none and compares the folded copies its rows keep (`*_fold`), written
 *   with each service and tool ({@link ServiceDialect.serviceFolds},
 *   {@link ServiceDialect.toolBatch}).
 * - A definition's tools are written in bulk: SQLite runs one prepared
 *   statement per tool on its one connection; PostgreSQL sends multi-row
 *   inserts, their search documents built before the transaction.
 * - JSON columns are read as their stored text, never parsed: SQLite's are
 *   text already, PostgreSQL's `json` is cast.
 * - SQLite defers the WAL checkpoint past the commit of a whole definition.
 *
 * Row-locking (`FOR UPDATE`) is the seam's own (dialect.ts).
 */
import type { AnyColumn, SQL } from "drizzle-orm";
import type { ToolRowText } from "../../domain/services/service-store.js";
import type { SharedDb, Tables } from "../dialect.js";

export interface ServiceDialect {
  /** `column`'s text (a service's id, name or description, a tool's name or description) contains `needle`, both case-folded. */
  contains(column: AnyColumn, needle: string): SQL;
  /** The folded copies a service's row keeps on this dialect, written with its text (none on SQLite). */
  serviceFolds(service: { id: string; name: string; description: string }): ServiceFolds;
  /**
   * A definition's tools made ready to insert at positions 0, 1, …; called
   * before the transaction that inserts them, since this may take a while
   * (PostgreSQL stems every word of a large API's descriptions).
   */
  toolBatch(serviceId: string, serviceName: string, rows: readonly ToolRowText[]): Promise<ToolBatch>;
  /** A JSON column's stored text as it is (never parsed on the host). */
  jsonText(column: AnyColumn): SQL<string>;
  /** Runs a transaction that writes a whole definition (tens of megabytes); see the SQLite hook for why. */
  largeWrite<T>(write: () => Promise<T>): Promise<T>;
  readonly search: ToolSearchIndex;
}

export type ServiceFolds = Partial<Pick<Tables["services"]["$inferInsert"], "idFold" | "nameFold" | "descriptionFold">>;

export interface ToolBatch {
  /** Inserts the tools in `tx`, each enabled unless `enabled` says otherwise (a replaced definition keeps the flags). */
  insert(tx: SharedDb, enabled: ReadonlyMap<string, boolean>): Promise<void>;
}

/**
 * The tool search index. The store ranks a page of row ids with it
 * (joining `ranked`, filtering and ordering), then reads those rows.
 */
export interface ToolSearchIndex {
  /** A tool's row id, which the index keys its words by (SQLite's `rowid`; PostgreSQL's `row_id`). */
  readonly rowId: SQL<number>;
  /**
   * The tools that have a word of any group's `terms` (from `searchQuery`, db/search-query.ts), each once with its
   * score: the BM25 of each group's words times the group's `scale`, summed. A subquery aliased `"ranked"` with the
   * columns `"row_id"` and `"score"`; undefined when no tool can match.
   */
  ranked(groups: readonly RankedWords[]): SQL | undefined;
  /** The tool's id or endpoint, in the words the index writes, is exactly one of `words` (an agent pasted it). */
  isExactly(words: readonly string[]): SQL;
  /**
   * `"ranked"."score"` times `factor` (a number ≥ 1 that favours a tool), ordered best first. A hook because the
   * scores run in opposite directions: FTS5's `bm25()` is lower for better matches, PostgreSQL's sum higher.
   */
  bestFirst(factor: SQL): SQL;
}

/** Words to rank by and how much their score counts. */
export interface RankedWords {
  terms: readonly string[];
  scale: number;
  /** Looked for only in the main document (id words, title, endpoint, service), not descriptions or enum values. */
  mainOnly?: boolean;
}
