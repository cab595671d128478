/**
 * The service store's hooks on PostgreSQL (see service-dialect.ts). The
 * rows keep what SQLite computes as it reads: casefolded copies of the text
 * `?query=` compares (schema-pg.ts's `*_fold`), and each tool's search
 * documents, built in JS from the same words as SQLite's FTS5 index
 * (search-text-pg.ts). A definition's tools go in as multi-row inserts of
 * their JSON text (cast to json, never parsed here). Search ranks with BM25
 * computed in SQL the way SQLite's FTS5 computes it, with the same weights.
 */
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { SEARCH_WEIGHTS, type ToolRowText } from "../../domain/services/service-store.js";
import { casefold } from "../../lib/casefold.js";
import { yieldToEventLoop } from "../../lib/event-loop.js";
import type { SharedDb } from "../dialect.js";
import { services, tools } from "../schema-pg.js";
import { queryLexemes, toolSearchDocuments } from "../search-text-pg.js";
import type { ServiceDialect, ServiceFolds, ToolBatch, ToolSearchIndex } from "./service-dialect.js";

/** Tools per insert statement: a tool is 21 parameters, PostgreSQL takes at most 65,535 in one statement. */
const TOOLS_PER_INSERT = 1000;

/** BM25's parameters, FTS5's. */
const K1 = 1.2;
const B = 0.75;

/** Each column `?query=` compares, and the column holding its `casefold` (the same table objects as the dialect's `tables`). */
const FOLDED = new Map<AnyColumn, AnyColumn>([
  [services.id, services.idFold],
  [services.name, services.nameFold],
  [services.description, services.descriptionFold],
  [tools.name, tools.nameFold],
  [tools.description, tools.descriptionFold],
]);

const search: ToolSearchIndex = {
  // A bigint: read as a number, as the column maps it.
  rowId: sql<number>`${tools.rowId}`.mapWith(Number),
  ranked: (groups) => {
    const scored = groups.flatMap(({ terms, scale, mainOnly }) => {
      const lexemes = queryLexemes(terms);
      return lexemes.length === 0 ? [] : [bm25(lexemes, scale, mainOnly ?? false)];
    });
    if (scored.length === 0) return undefined;
    return sql`(select "row_id", sum("score") as "score" from (${sql.join(scored, sql` union all `)}) as "groups"
      group by "row_id") as "ranked"`;
  },
  isExactly: (words) => sql`(${tools.searchIdWords} in ${words} or ${tools.searchEndpointWords} in ${words})`,
  bestFirst: (factor) => sql`"ranked"."score" * ${factor} desc`,
};

export class PgServiceDialect implements ServiceDialect {
  readonly search = search;

  /** Case-insensitive (Unicode) substring test: compares the column's folded copy (schema-pg.ts). */
  contains(column: AnyColumn, needle: string): SQL {
    const folded = FOLDED.get(column);
    if (folded === undefined) throw new Error(`no folded copy of column "${column.name}"`);
    return sql`strpos(${folded}, ${casefold(needle)}) > 0`;
  }

  serviceFolds(service: { id: string; name: string; description: string }): ServiceFolds {
    return {
      idFold: casefold(service.id),
      nameFold: casefold(service.name),
      descriptionFold: casefold(service.description),
    };
  }

  async toolBatch(serviceId: string, serviceName: string, rows: readonly ToolRowText[]): Promise<ToolBatch> {
    const values = await toolValues(serviceId, serviceName, rows);
    return {
      async insert(tx: SharedDb, enabled: ReadonlyMap<string, boolean>) {
        for (const row of values) row.enabled = enabled.get(row.id) ?? true;
        for (let start = 0; start < values.length; start += TOOLS_PER_INSERT) {
          await tx.insert(tools).values(values.slice(start, start + TOOLS_PER_INSERT));
        }
      },
    };
  }

  jsonText(column: AnyColumn): SQL<string> {
    return sql<string>`${column}::text`;
  }

  /** Nothing to do: PostgreSQL's WAL is its own business. */
  largeWrite<T>(write: () => Promise<T>): Promise<T> {
    return write();
  }
}

/**
 * Insert values of a definition's tools, search documents included; built
 * a slice at a time with the event loop let through in between (stemming
 * every word of a large API's descriptions takes a while).
 */
async function toolValues(serviceId: string, serviceName: string, rows: readonly ToolRowText[]) {
  const values = [];
  for (const [position, tool] of rows.entries()) {
    if (position > 0 && position % 250 === 0) await yieldToEventLoop();
    const documents = toolSearchDocuments({ ...tool, serviceId, serviceName });
    values.push({
      serviceId,
      id: tool.id,
      position,
      name: tool.name,
      description: tool.description,
      // JSON text from toolRows, stored as it is.
      inputSchema: sql`${tool.inputSchema}::json`,
      outputSchema: sql`${tool.outputSchema}::json`,
      adapterDomain: sql`${tool.adapterDomain}::json`,
      annotations: sql`${tool.annotations}::json`,
      secrets: tool.secrets === null ? null : sql`${tool.secrets}::json`,
      enabled: true,
      endpoint: tool.endpoint,
      nameFold: casefold(tool.name),
      descriptionFold: casefold(tool.description),
      searchIdWords: documents.idWords,
      searchEndpointWords: documents.endpointWords,
      searchMain: documents.main.vector,
      searchMainLength: documents.main.length,
      searchDescription: documents.description.vector,
      searchDescriptionLength: documents.description.length,
      searchValues: documents.values.vector,
      searchValuesLength: documents.values.length,
    });
  }
  return values;
}

/**
 * BM25 per tool, summed over the three documents with their weights, as
 * FTS5 computes it (`bm25()`): for each query word, its IDF —
 * ln((N − n + 0.5) / (n + 0.5)), at least 1e-6, where N is every tool and n
 * those whose document has the word — times tf·(k1 + 1) / (tf + k1·(1 − b +
 * b·dl/avgdl)), where tf counts the word's occurrences (in the main
 * document each weighted by its field's label) and dl is the document's
 * word count; the sum times `scale` (`mainOnly`: the main document alone). Only tools with a word of the query are read (the GIN indexes).
 */
function bm25(lexemes: readonly string[], scale: number, mainOnly: boolean): SQL {
  const W = SEARCH_WEIGHTS;
  // One parameter holding the array (a bare JS array in sql`` would become a list of parameters).
  const words = sql`${sql.param(lexemes)}::text[]`;
  const query = sql`(array_to_string(array(select quote_literal("q") from unnest(${words}) as "q"), ' | ')::tsquery)`;
  const mainWeight = sql.raw(
    `case w when 'A' then ${W.idWords} when 'B' then ${W.title} when 'C' then ${W.endpoint} else ${W.service} end`,
  );
  const document = (name: "main" | "description" | "values", weighted: boolean, scale: number) => {
    const vector = sql.raw(`"search_${name}"`);
    const length = sql.raw(`"search_${name}_length"`);
    const tf = weighted
      ? sql`(select sum(${mainWeight}) from unnest("l"."weights") as "w")`
      : sql`coalesce(array_length("l"."positions", 1), 1)`;
    return sql`select "hits"."row_id", ${sql.raw(String(scale))} * sum(
        "idf"."value" * "hits"."tf" * ${K1 + 1}::float8
        / ("hits"."tf" + ${K1}::float8 * (1 - ${B}::float8 + ${B}::float8 * "hits"."dl" / nullif("stats"."avgdl", 0)))
      ) as "score"
      from (
        select "tt"."row_id", "l"."lexeme", ${length}::float8 as "dl", ${tf}::float8 as "tf"
        from "tools" as "tt", unnest("tt".${vector}) as "l"
        where "tt".${vector} @@ ${query} and "l"."lexeme" = any(${words})
      ) as "hits"
      cross join (select count(*)::float8 as "n", avg(${length})::float8 as "avgdl" from "tools") as "stats"
      join (
        select "lexeme", count(*)::float8 as "n" from (
          select "l"."lexeme" from "tools" as "tt", unnest("tt".${vector}) as "l"
          where "tt".${vector} @@ ${query} and "l"."lexeme" = any(${words})
        ) as "found" group by "lexeme"
      ) as "df" on "df"."lexeme" = "hits"."lexeme"
      cross join lateral (select greatest(ln(("stats"."n" - "df"."n" + 0.5) / ("df"."n" + 0.5)), 1e-6) as "value") as "idf"
      group by "hits"."row_id"`;
  };
  return sql`select "row_id", sum("score") as "score" from (
      ${document("main", true, scale)}
      ${mainOnly ? sql`` : sql`union all ${document("description", false, W.description * scale)}`}
      ${mainOnly ? sql`` : sql`union all ${document("values", false, W.values * scale)}`}
    ) as "scores" group by "row_id"`;
}
