/**
 * The PostgreSQL service store. Each multi-row write is one transaction;
 * a definition's tools go in as multi-row inserts of their JSON text (cast
 * to json, never parsed here) and of their search documents, built in JS
 * (db/search-text-pg.ts). Search ranks with BM25 computed in SQL the way
 * SQLite's FTS5 computes it, over the same words, with the same weights.
 */
import type { ServiceCatalog } from "@cyrnel/sdk";
import { type AnyColumn, and, asc, eq, getTableColumns, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { PgChanges } from "../../db/changes-pg.js";
import type { PgDb } from "../../db/client-pg.js";
import { secrets, services, tools } from "../../db/schema-pg.js";
import { queryLexemes, toolSearchDocuments } from "../../db/search-text-pg.js";
import { casefold } from "../../lib/casefold.js";
import { yieldToEventLoop } from "../../lib/event-loop.js";
import {
  type DefinitionUpdate,
  inRankOrder,
  type NewService,
  Revisions,
  SEARCH_WEIGHTS,
  type ServiceFilter,
  type ServiceRow,
  type ServiceStore,
  type ServiceUpdate,
  type ToolFilter,
  type ToolRow,
  type ToolRowText,
  type ToolSearch,
  type ToolSummaryRow,
  toolsJsonText,
} from "./service-store.js";

type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

const toolCount = sql<number>`(select count(*)::int from "tools" as "t" where "t"."service_id" = "services"."id")`.as(
  "tool_count",
);

/** Case-insensitive (Unicode) substring test: the column holds `casefold` of its text (schema-pg.ts). */
const contains = (folded: AnyColumn, needle: string) => sql`strpos(${folded}, ${casefold(needle)}) > 0`;

/** Tools per insert statement: a tool is 21 parameters, PostgreSQL takes at most 65,535 in one statement. */
const TOOLS_PER_INSERT = 1000;

/** BM25's parameters, FTS5's. */
const K1 = 1.2;
const B = 0.75;

export class PgServiceStore implements ServiceStore {
  private readonly revisions = new Revisions();

  constructor(
    private readonly db: PgDb,
    /** Every write tells the other hosts (`service`, or `tools` for a tool switch), in its transaction. */
    private readonly changes: PgChanges,
  ) {}

  get revision(): number {
    return this.revisions.revision;
  }

  changedElsewhere(serviceId: string | null): void {
    if (serviceId === null) this.revisions.touchAll();
    else this.revisions.touch(serviceId);
  }

  async get(id: string): Promise<ServiceRow | undefined> {
    const [row] = await this.db
      .select({ ...serviceColumns(), toolCount })
      .from(services)
      .where(eq(services.id, id));
    return row;
  }

  list(filter: ServiceFilter): Promise<ServiceRow[]> {
    const conditions: (SQL | undefined)[] = [
      filter.ids === undefined ? undefined : inArray(services.id, [...filter.ids]),
      filter.query === undefined
        ? undefined
        : or(
            contains(services.idFold, filter.query),
            contains(services.nameFold, filter.query),
            contains(services.descriptionFold, filter.query),
          ),
      filter.enabled === undefined ? undefined : eq(services.enabled, filter.enabled),
      filter.adapter === undefined ? undefined : eq(services.adapter, filter.adapter),
      filter.after === undefined ? undefined : gt(services.id, filter.after),
    ];
    return this.db
      .select({ ...serviceColumns(), toolCount })
      .from(services)
      .where(and(...conditions))
      .orderBy(asc(services.id))
      .limit(filter.limit + 1);
  }

  async serviceIds(): Promise<string[]> {
    return (await this.db.select({ id: services.id }).from(services)).map((row) => row.id);
  }

  async toolIdsOf(serviceId: string): Promise<string[]> {
    return (await this.db.select({ id: tools.id }).from(tools).where(eq(tools.serviceId, serviceId))).map(
      (row) => row.id,
    );
  }

  async definitionText(id: string): Promise<string | undefined> {
    const [row] = await this.db.select({ definition: services.definition }).from(services).where(eq(services.id, id));
    return row?.definition;
  }

  async idsOfAdapter(adapter: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: services.id })
      .from(services)
      .where(eq(services.adapter, adapter))
      .orderBy(asc(services.id));
    return rows.map((row) => row.id);
  }

  async insert(service: NewService): Promise<void> {
    const now = new Date().toISOString();
    const definition = service.definition;
    const rows = await toolValues(service.id, definition.name, service.tools, new Map());
    await this.revisions.write(service.id, () =>
      this.db.transaction(async (tx) => {
        await tx.insert(services).values({
          id: service.id,
          name: definition.name,
          description: definition.description,
          adapter: service.adapter,
          source: service.source,
          version: service.version,
          hash: service.hash,
          definition: service.text,
          adapterDomain: definition.adapterDomain,
          configSchema: definition.configSchema,
          secretsSchema: definition.secretsSchema,
          enabled: false,
          createdAt: now,
          updatedAt: now,
          ...folds(service.id, definition.name, definition.description),
        });
        await insertTools(tx, rows);
        await this.changes.publish(tx, { kind: "service", id: service.id, action: "created" });
      }),
    );
  }

  async replaceDefinition(id: string, update: DefinitionUpdate): Promise<void> {
    const definition = update.definition;
    // Built before the transaction (it takes a while for a large API); each surviving tool's flag is set inside.
    const rows = await toolValues(id, definition.name, update.tools, new Map());
    await this.revisions.write(id, () =>
      this.db.transaction(async (tx) => {
        // The service's row first, locked: a second replace of it (another host) waits for this one to commit.
        const locked = await tx.select({ id: services.id }).from(services).where(eq(services.id, id)).for("update");
        if (locked.length === 0) return;
        const previous = new Map(
          (await tx.select({ id: tools.id, enabled: tools.enabled }).from(tools).where(eq(tools.serviceId, id))).map(
            (row) => [row.id, row.enabled],
          ),
        );
        for (const row of rows) row.enabled = previous.get(row.id) ?? true;
        await tx
          .update(services)
          .set({
            name: definition.name,
            description: definition.description,
            hash: update.hash,
            definition: update.text,
            adapterDomain: definition.adapterDomain,
            configSchema: definition.configSchema,
            secretsSchema: definition.secretsSchema,
            stale: false,
            staleReason: null,
            ...(update.source !== undefined && { source: update.source }),
            ...(update.version !== undefined && { version: update.version }),
            updatedAt: new Date().toISOString(),
            ...folds(id, definition.name, definition.description),
          })
          .where(eq(services.id, id));
        await tx.delete(tools).where(eq(tools.serviceId, id));
        await insertTools(tx, rows);
        await this.changes.publish(tx, { kind: "service", id, action: "updated" });
      }),
    );
  }

  async update(id: string, values: ServiceUpdate): Promise<void> {
    await this.revisions.write(id, () =>
      this.changes.write(this.db, { kind: "service", id, action: "updated" }, (tx) =>
        tx
          .update(services)
          .set({ ...values, updatedAt: new Date().toISOString() })
          .where(eq(services.id, id)),
      ),
    );
  }

  async delete(id: string): Promise<void> {
    await this.revisions.write(id, () =>
      this.db.transaction(async (tx) => {
        await tx.delete(services).where(eq(services.id, id));
        await tx.delete(secrets).where(and(eq(secrets.ownerType, "service"), eq(secrets.ownerId, id)));
        await this.changes.publish(tx, { kind: "service", id, action: "deleted" });
      }),
    );
  }

  async getTool(serviceId: string, toolId: string): Promise<ToolRow | undefined> {
    const [row] = await this.toolQuery().where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)));
    return row;
  }

  toolsOf(serviceId: string): Promise<ToolRow[]> {
    return this.toolQuery().where(eq(tools.serviceId, serviceId)).orderBy(asc(tools.position));
  }

  toolDomains(serviceId: string): Promise<{ id: string; adapterDomain: Record<string, unknown> }[]> {
    return this.db
      .select({ id: tools.id, adapterDomain: tools.adapterDomain })
      .from(tools)
      .where(eq(tools.serviceId, serviceId))
      .orderBy(asc(tools.position));
  }

  listTools(filter: ToolFilter): Promise<ToolSummaryRow[]> {
    return this.db
      .select(toolSummaryColumns())
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1);
  }

  listToolsWithSchemas(filter: ToolFilter): Promise<ToolRow[]> {
    return this.toolQuery()
      .where(toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1);
  }

  searchTools(search: ToolSearch): Promise<ToolSummaryRow[]> {
    return this.rankedPage(search, (ids) =>
      this.db
        .select(toolSummaryColumns())
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(inArray(tools.rowId, ids)),
    );
  }

  searchToolsWithSchemas(search: ToolSearch): Promise<ToolRow[]> {
    return this.rankedPage(search, (ids) => this.toolQuery().where(inArray(tools.rowId, ids)));
  }

  /**
   * One ranked page: row ids ranked first (BM25 of each of the three
   * documents, weighted and summed per tool, as on SQLite), then `read`
   * reads those rows and they are put in rank order.
   */
  private async rankedPage<Row extends { serviceId: string; id: string }>(
    search: ToolSearch,
    read: (rowIds: number[]) => Promise<Row[]>,
  ): Promise<Row[]> {
    const lexemes = queryLexemes(search.terms);
    if (lexemes.length === 0) return [];
    const ranked = sql`(${bm25(lexemes)}) as "ranked"`;
    const page = await this.db
      .select({ rowId: tools.rowId, serviceId: tools.serviceId, id: tools.id })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .innerJoin(ranked, sql`"ranked"."row_id" = ${tools.rowId}`)
      .where(and(toolConditions(search), search.includeDisabled ? undefined : callable))
      // An agent that pastes an id (`chat.postMessage`) or endpoint (`POST /v1/refunds`) means that tool.
      .orderBy(
        sql`(${tools.searchIdWords} = ${search.words} or ${tools.searchEndpointWords} = ${search.words}) desc`,
        sql`"ranked"."score" desc`,
        asc(tools.serviceId),
        asc(tools.position),
      )
      .limit(search.limit + 1)
      .offset(search.offset);
    if (page.length === 0) return [];
    return inRankOrder(page, await read(page.map((row) => row.rowId)));
  }

  async setToolEnabled(serviceId: string, toolId: string, enabled: boolean): Promise<void> {
    await this.revisions.write(serviceId, () =>
      this.changes.write(this.db, { kind: "tools", id: serviceId }, (tx) =>
        tx
          .update(tools)
          .set({ enabled })
          .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId))),
      ),
    );
  }

  catalog(): Promise<ServiceCatalog> {
    return this.revisions.catalog(() =>
      this.db
        .select({ serviceId: tools.serviceId, toolId: tools.id })
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(callable)
        .orderBy(asc(tools.serviceId), asc(tools.position)),
    );
  }

  async toolsJson(serviceId: string, toolIds?: readonly string[]): Promise<{ revision: string; toolsJson: string }> {
    const revision = this.revisions.ofService(serviceId);
    if (toolIds?.length === 0) return { revision, toolsJson: "[]" };
    const rows = await this.db
      .select({
        id: tools.id,
        description: tools.description,
        // The stored text as it is: never parsed on the host (see toolsJsonText).
        inputSchema: sql<string>`${tools.inputSchema}::text`,
        outputSchema: sql<string>`${tools.outputSchema}::text`,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(
        and(
          eq(tools.serviceId, serviceId),
          callable,
          toolIds === undefined ? undefined : inArray(tools.id, [...toolIds]),
        ),
      )
      .orderBy(asc(tools.position));
    return { revision, toolsJson: toolsJsonText(serviceId, rows) };
  }

  async toolSchemaChars(serviceId: string): Promise<{ id: string; chars: number }[]> {
    const rows = await this.db
      .select({
        id: tools.id,
        chars: sql<string>`length(${tools.inputSchema}::text) + length(${tools.outputSchema}::text)`,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(and(eq(tools.serviceId, serviceId), callable))
      .orderBy(asc(tools.position));
    // PostgreSQL's sums of integers arrive as text when they may exceed a JavaScript number; these never do.
    return rows.map((row) => ({ id: row.id, chars: Number(row.chars) }));
  }

  effectiveTools(serviceId?: string): Promise<ToolRow[]> {
    return this.toolQuery()
      .where(and(callable, serviceId === undefined ? undefined : eq(tools.serviceId, serviceId)))
      .orderBy(asc(tools.serviceId), asc(tools.position));
  }

  private toolQuery() {
    return this.db
      .select({
        ...toolSummaryColumns(),
        inputSchema: tools.inputSchema,
        outputSchema: tools.outputSchema,
        adapterDomain: tools.adapterDomain,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId));
  }
}

/** The folded copies `?query=` compares (db/casefold.ts). */
function folds(id: string, name: string, description: string) {
  return { idFold: casefold(id), nameFold: casefold(name), descriptionFold: casefold(description) };
}

/**
 * Insert values of a definition's tools, search documents included; built
 * a slice at a time with the event loop let through in between (stemming
 * every word of a large API's descriptions takes a while).
 */
async function toolValues(
  serviceId: string,
  serviceName: string,
  rows: readonly ToolRowText[],
  enabled: Map<string, boolean>,
) {
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
      enabled: enabled.get(tool.id) ?? true,
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

async function insertTools(tx: Tx, values: Awaited<ReturnType<typeof toolValues>>): Promise<void> {
  for (let start = 0; start < values.length; start += TOOLS_PER_INSERT) {
    await tx.insert(tools).values(values.slice(start, start + TOOLS_PER_INSERT));
  }
}

/**
 * BM25 per tool, summed over the three documents with their weights, as
 * FTS5 computes it (`bm25()`): for each query word, its IDF —
 * ln((N − n + 0.5) / (n + 0.5)), at least 1e-6, where N is every tool and n
 * those whose document has the word — times tf·(k1 + 1) / (tf + k1·(1 − b +
 * b·dl/avgdl)), where tf counts the word's occurrences (in the main
 * document each weighted by its field's label) and dl is the document's
 * word count. Only tools with a word of the query are read (the GIN indexes).
 */
function bm25(lexemes: readonly string[]): SQL {
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
      ${document("main", true, 1)}
      union all ${document("description", false, W.description)}
      union all ${document("values", false, W.values)}
    ) as "scores" group by "row_id"`;
}

function serviceColumns() {
  const {
    definition: _definition,
    idFold: _idFold,
    nameFold: _nameFold,
    descriptionFold: _descriptionFold,
    ...columns
  } = getTableColumns(services);
  return columns;
}

function toolSummaryColumns() {
  return {
    serviceId: tools.serviceId,
    id: tools.id,
    position: tools.position,
    name: tools.name,
    description: tools.description,
    annotations: tools.annotations,
    enabled: tools.enabled,
    serviceEnabled: services.enabled,
    serviceStale: services.stale,
  };
}

/** Tool and service enabled, service not stale: what code may call. */
const callable = and(eq(tools.enabled, true), eq(services.enabled, true), eq(services.stale, false));

function toolConditions(filter: Omit<ToolFilter, "after"> & { after?: [string, number] }): SQL | undefined {
  return and(
    filter.serviceIds === undefined ? undefined : inArray(tools.serviceId, [...filter.serviceIds]),
    filter.serviceId === undefined ? undefined : eq(tools.serviceId, filter.serviceId),
    filter.query === undefined
      ? undefined
      : or(contains(tools.nameFold, filter.query), contains(tools.descriptionFold, filter.query)),
    filter.enabled === undefined ? undefined : eq(tools.enabled, filter.enabled),
    filter.after === undefined
      ? undefined
      : or(
          gt(tools.serviceId, filter.after[0]),
          and(eq(tools.serviceId, filter.after[0]), gt(tools.position, filter.after[1])),
        ),
  );
}
