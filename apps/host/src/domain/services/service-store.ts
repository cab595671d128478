/** All SQL about services and tools. Multi-row changes run in one transaction. */
import type { ServiceCatalog, ServiceDefinition } from "@cyrnel/sdk";
import type { Statement } from "better-sqlite3";
import { type AnyColumn, and, asc, eq, getTableColumns, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { services, tools } from "../../db/schema.js";
import { yieldToEventLoop } from "../../lib/event-loop.js";

/** A service without its definition text (which is large and never returned). */
export type ServiceRow = Omit<typeof services.$inferSelect, "definition"> & { toolCount: number };
/** A tool as lists and calls see it (its endpoint is only indexed for search). */
export type ToolRow = Omit<typeof tools.$inferSelect, "endpoint"> & { serviceEnabled: boolean; serviceStale: boolean };
/** A tool without its schemas and routing: what lists show (the JSON columns are most of a row's size). */
export type ToolSummaryRow = Omit<ToolRow, "inputSchema" | "outputSchema" | "adapterDomain">;

// Written out in full: drizzle renders column references unqualified inside a single-table select.
const toolCount = sql<number>`(select count(*) from "tools" as "t" where "t"."service_id" = "services"."id")`.as(
  "tool_count",
);

/** Case-insensitive (Unicode) substring test, via the `casefold` SQL function registered in db/client.ts. */
const contains = (column: AnyColumn, needle: string) => sql`instr(casefold(${column}), casefold(${needle})) > 0`;

export interface ServiceFilter {
  /** Only these ids (an API key's allow-list); undefined = all. */
  ids?: readonly string[];
  query?: string;
  enabled?: boolean;
  adapter?: string;
  after?: string;
  limit: number;
}

export interface ToolFilter {
  /** Only tools of these services (an API key's allow-list); undefined = all. */
  serviceIds?: readonly string[];
  serviceId?: string;
  query?: string;
  enabled?: boolean;
  after?: [string, number];
  limit: number;
}

/** A tool as its row stores it: the JSON columns already serialised ({@link toolRows}). */
export interface ToolRowText {
  id: string;
  name: string;
  description: string;
  inputSchema: string;
  outputSchema: string;
  adapterDomain: string;
  annotations: string;
  endpoint: string | null;
}

/**
 * The tools of a definition as row text, serialised a slice at a time with
 * the event loop let through in between, so that the transaction that
 * writes them only writes: Microsoft Graph's 11,000 tools are 400 MB of JSON
 * (1.5 s of `JSON.stringify`).
 */
export async function toolRows(definition: ServiceDefinition): Promise<ToolRowText[]> {
  const rows: ToolRowText[] = [];
  for (const [index, tool] of definition.tools.entries()) {
    if (index > 0 && index % 250 === 0) await yieldToEventLoop();
    rows.push({
      id: tool.id,
      name: tool.name,
      description: tool.description,
      inputSchema: JSON.stringify(tool.inputSchema),
      outputSchema: JSON.stringify(tool.outputSchema),
      adapterDomain: JSON.stringify(tool.adapterDomain),
      annotations: JSON.stringify(tool.annotations ?? {}),
      endpoint: tool.endpoint ?? null,
    });
  }
  return rows;
}

/** A ranked search: the list filters (paged by position in the ranking instead of by key) and an FTS5 expression. */
export interface ToolSearch extends Omit<ToolFilter, "after"> {
  /** From `searchExpression` (db/search-text.ts): quoted words, never raw user input. */
  expression: string;
  /** The search's words as the index writes them (`indexText`): a tool whose id or endpoint is exactly these comes first. */
  words: string;
  /** Also tools that cannot be called (tool or service disabled, service stale). */
  includeDisabled: boolean;
  offset: number;
}

/**
 * BM25 weights (FTS5 `bm25()`, lower is better, so weights scale how much a
 * match counts). Within `tool_search`: id words, title, endpoint, service.
 * The other two tables are scaled against it: a description mentions many
 * words in passing (a long one would otherwise outrank a short, exact title),
 * so it mostly breaks ties and finds tools no title matches; an enum value
 * ("available") is specific, so it counts like a title word.
 */
const TITLE_WEIGHTS = "1.0, 10.0, 2.0, 1.0";
const DESCRIPTION_WEIGHT = 0.05;
const VALUES_WEIGHT = 1.0;

export interface NewService {
  id: string;
  adapter: string;
  definition: ServiceDefinition;
  /** The definition's tools, from {@link toolRows}. */
  tools: ToolRowText[];
  text: string;
  hash: string;
  source: string | null;
  version: string | null;
}

export class ServiceStore {
  private insertTool: Statement | undefined;
  /**
   * Bumped by every write to services or tools (they all go through this
   * store), so that what is derived from them on hot paths — the catalog
   * every process gets, the tool gate's lookups — is kept until it changes.
   */
  private written = 0;
  /** Per service, the value of `written` at its last write: its revision in the catalog. */
  private readonly serviceWritten = new Map<string, number>();
  private catalogCache: { revision: number; catalog: ServiceCatalog } | undefined;

  constructor(readonly db: Db) {}

  get revision(): number {
    return this.written;
  }

  get(id: string): ServiceRow | undefined {
    return this.db
      .select({ ...this.serviceColumns(), toolCount })
      .from(services)
      .where(eq(services.id, id))
      .get();
  }

  list(filter: ServiceFilter): ServiceRow[] {
    const conditions: (SQL | undefined)[] = [
      filter.ids === undefined ? undefined : inArray(services.id, [...filter.ids]),
      filter.query === undefined
        ? undefined
        : or(
            contains(services.id, filter.query),
            contains(services.name, filter.query),
            contains(services.description, filter.query),
          ),
      filter.enabled === undefined ? undefined : eq(services.enabled, filter.enabled),
      filter.adapter === undefined ? undefined : eq(services.adapter, filter.adapter),
      filter.after === undefined ? undefined : gt(services.id, filter.after),
    ];
    return this.db
      .select({ ...this.serviceColumns(), toolCount })
      .from(services)
      .where(and(...conditions))
      .orderBy(asc(services.id))
      .limit(filter.limit + 1)
      .all();
  }

  /** Every service id (for suggestions when one is misspelled). */
  serviceIds(): string[] {
    return this.db
      .select({ id: services.id })
      .from(services)
      .all()
      .map((row) => row.id);
  }

  /** Every tool id of a service (for suggestions when one is misspelled). */
  toolIdsOf(serviceId: string): string[] {
    return this.db
      .select({ id: tools.id })
      .from(tools)
      .where(eq(tools.serviceId, serviceId))
      .all()
      .map((row) => row.id);
  }

  definitionText(id: string): string | undefined {
    return this.db.select({ definition: services.definition }).from(services).where(eq(services.id, id)).get()
      ?.definition;
  }

  idsOfAdapter(adapter: string): string[] {
    return this.db
      .select({ id: services.id })
      .from(services)
      .where(eq(services.adapter, adapter))
      .orderBy(asc(services.id))
      .all()
      .map((row) => row.id);
  }

  insert(service: NewService): void {
    this.touch(service.id);
    const now = new Date().toISOString();
    this.largeWrite((tx) => {
      tx.insert(services)
        .values({
          id: service.id,
          name: service.definition.name,
          description: service.definition.description,
          adapter: service.adapter,
          source: service.source,
          version: service.version,
          hash: service.hash,
          definition: service.text,
          adapterDomain: service.definition.adapterDomain,
          configSchema: service.definition.configSchema,
          secretsSchema: service.definition.secretsSchema,
          enabled: false,
          createdAt: now,
          updatedAt: now,
        })
        .run();
      this.insertTools(service.id, service.tools, new Map());
    });
  }

  /**
   * Swaps in a regenerated definition: service columns updated, tools
   * replaced, each surviving tool keeping its enabled flag.
   */
  replaceDefinition(
    id: string,
    update: {
      definition: ServiceDefinition;
      tools: ToolRowText[];
      text: string;
      hash: string;
      source?: string | null;
      version?: string | null;
    },
  ): void {
    this.touch(id);
    this.largeWrite((tx) => {
      const previous = new Map(
        tx
          .select({ id: tools.id, enabled: tools.enabled })
          .from(tools)
          .where(eq(tools.serviceId, id))
          .all()
          .map((row) => [row.id, row.enabled]),
      );
      tx.update(services)
        .set({
          name: update.definition.name,
          description: update.definition.description,
          hash: update.hash,
          definition: update.text,
          adapterDomain: update.definition.adapterDomain,
          configSchema: update.definition.configSchema,
          secretsSchema: update.definition.secretsSchema,
          stale: false,
          staleReason: null,
          ...(update.source !== undefined && { source: update.source }),
          ...(update.version !== undefined && { version: update.version }),
          updatedAt: new Date().toISOString(),
        })
        .where(eq(services.id, id))
        .run();
      tx.delete(tools).where(eq(tools.serviceId, id)).run();
      this.insertTools(id, update.tools, previous);
    });
  }

  update(
    id: string,
    values: Partial<Pick<typeof services.$inferInsert, "enabled" | "stale" | "staleReason" | "config">>,
  ): void {
    this.touch(id);
    this.db
      .update(services)
      .set({ ...values, updatedAt: new Date().toISOString() })
      .where(eq(services.id, id))
      .run();
  }

  delete(id: string): void {
    this.touch(id);
    this.db.delete(services).where(eq(services.id, id)).run();
  }

  getTool(serviceId: string, toolId: string): ToolRow | undefined {
    return this.toolQuery()
      .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)))
      .get();
  }

  toolsOf(serviceId: string): ToolRow[] {
    return this.toolQuery().where(eq(tools.serviceId, serviceId)).orderBy(asc(tools.position)).all();
  }

  /** Each tool's routing data, for hydrating the service (its schemas are not needed there). */
  toolDomains(serviceId: string): { id: string; adapterDomain: Record<string, unknown> }[] {
    return this.db
      .select({ id: tools.id, adapterDomain: tools.adapterDomain })
      .from(tools)
      .where(eq(tools.serviceId, serviceId))
      .orderBy(asc(tools.position))
      .all();
  }

  /** A page of tools without their schemas (see {@link listToolsWithSchemas}). */
  listTools(filter: ToolFilter): ToolSummaryRow[] {
    return this.db
      .select(this.toolSummaryColumns())
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1)
      .all();
  }

  listToolsWithSchemas(filter: ToolFilter): ToolRow[] {
    return this.toolQuery()
      .where(toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1)
      .all();
  }

  /**
   * Tools matching a search, best first (BM25 over the three tool_search
   * tables of migration 0003, summed per tool), ties in list order; `limit +
   * 1` rows from `offset`. Only callable tools unless `includeDisabled`.
   * Without their schemas (see {@link searchToolsWithSchemas}).
   */
  searchTools(search: ToolSearch): ToolSummaryRow[] {
    return this.rankedPage(search, (ids) =>
      this.db
        .select(this.toolSummaryColumns())
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(inArray(rowidOf, ids))
        .all(),
    );
  }

  searchToolsWithSchemas(search: ToolSearch): ToolRow[] {
    return this.rankedPage(search, (ids) => this.toolQuery().where(inArray(rowidOf, ids)).all());
  }

  /** One ranked page: row ids ranked first, then `read` reads those rows (in any order) and they are put in rank order. */
  private rankedPage<Row extends { serviceId: string; id: string }>(
    search: ToolSearch,
    read: (rowids: number[]) => Row[],
  ): Row[] {
    const ranked = sql`(
      select "rowid", sum("score") as "score" from (
        select "rowid", bm25("tool_search", ${sql.raw(TITLE_WEIGHTS)}) as "score"
          from "tool_search" where "tool_search" match ${search.expression}
        union all
        select "rowid", ${sql.raw(String(DESCRIPTION_WEIGHT))} * bm25("tool_search_descriptions")
          from "tool_search_descriptions" where "tool_search_descriptions" match ${search.expression}
        union all
        select "rowid", ${sql.raw(String(VALUES_WEIGHT))} * bm25("tool_search_values")
          from "tool_search_values" where "tool_search_values" match ${search.expression}
      ) group by "rowid"
    ) as "ranked"`;
    // The page is ranked on row ids alone, then its rows are read: ordering whole rows would carry every
    // candidate's schemas (megabytes for Stripe) through the sorter.
    const page = this.db
      .select({ rowid: rowidOf, serviceId: tools.serviceId, id: tools.id })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .innerJoin(ranked, sql`"ranked"."rowid" = ${rowidOf}`)
      .where(and(toolConditions(search), search.includeDisabled ? undefined : callable))
      // An agent that pastes an id (`chat.postMessage`) or endpoint (`POST /v1/refunds`) means that tool,
      // however short other titles are.
      .orderBy(
        sql`(tool_search_text(${tools.id}) = ${search.words} or tool_search_text(${tools.endpoint}) = ${search.words}) desc`,
        sql`"ranked"."score"`,
        asc(tools.serviceId),
        asc(tools.position),
      )
      .limit(search.limit + 1)
      .offset(search.offset)
      .all();
    if (page.length === 0) return [];
    const key = (row: { serviceId: string; id: string }) => `${row.serviceId}/${row.id}`;
    const order = new Map(page.map((row, index) => [key(row), index]));
    return read(page.map((row) => row.rowid)).sort((a, b) => order.get(key(a))! - order.get(key(b))!);
  }

  setToolEnabled(serviceId: string, toolId: string, enabled: boolean): void {
    this.touch(serviceId);
    this.db
      .update(tools)
      .set({ enabled })
      .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)))
      .run();
  }

  /**
   * Effectively enabled services and tools (tool and service enabled,
   * service not stale), for sandboxes. Every process gets it: it is read
   * once per revision and shared, frozen.
   */
  catalog(): ServiceCatalog {
    const revision = this.written;
    if (this.catalogCache?.revision === revision) return this.catalogCache.catalog;
    const rows = this.db
      .select({ serviceId: tools.serviceId, toolId: tools.id })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(callable)
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .all();
    const catalog: ServiceCatalog = {};
    for (const row of rows) {
      catalog[row.serviceId] ??= { tools: [], revision: this.serviceRevision(row.serviceId) };
      catalog[row.serviceId]!.tools.push(row.toolId);
    }
    for (const entry of Object.values(catalog)) Object.freeze(Object.freeze(entry).tools);
    this.catalogCache = { revision, catalog: Object.freeze(catalog) };
    return this.catalogCache.catalog;
  }

  /**
   * The effectively enabled tools of one service with their schemas, as the
   * JSON text of a `ToolDocsInput[]` built from the stored JSON without
   * parsing it (a large API's schemas are hundreds of megabytes; the
   * environment parses them off the event loop), and the service's revision.
   */
  toolsJson(serviceId: string): { revision: string; toolsJson: string } {
    const rows = this.db
      .select({
        id: tools.id,
        description: tools.description,
        inputSchema: sql<string>`${tools.inputSchema}`,
        outputSchema: sql<string>`${tools.outputSchema}`,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(
        and(
          eq(tools.serviceId, serviceId),
          eq(tools.enabled, true),
          eq(services.enabled, true),
          eq(services.stale, false),
        ),
      )
      .orderBy(asc(tools.position))
      .all();
    const service = JSON.stringify(serviceId);
    const entries = rows.map(
      (row) =>
        `{"serviceId":${service},"toolId":${JSON.stringify(row.id)},"description":${JSON.stringify(row.description)},` +
        `"inputSchema":${row.inputSchema},"outputSchema":${row.outputSchema}}`,
    );
    return { revision: this.serviceRevision(serviceId), toolsJson: `[${entries.join(",")}]` };
  }

  /** Every effectively enabled tool with its schemas (for `GET /environment/types`). */
  effectiveTools(): ToolRow[] {
    return this.toolQuery().where(callable).orderBy(asc(tools.serviceId), asc(tools.position)).all();
  }

  /**
   * A transaction that writes a whole definition (GitHub's: 22 MB). SQLite would checkpoint the WAL inside its
   * commit — copy all of it into the database file once more, on the install's time; the checkpoint runs right
   * after instead (still on this thread, once the caller has answered).
   */
  private largeWrite(write: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => void): void {
    const client = this.db.$client;
    const previous = client.pragma("wal_autocheckpoint", { simple: true }) as number;
    client.pragma("wal_autocheckpoint = 0");
    try {
      this.db.transaction(write);
    } finally {
      client.pragma(`wal_autocheckpoint = ${previous}`);
    }
    setImmediate(() => {
      if (client.open) client.pragma("wal_checkpoint(PASSIVE)");
    });
  }

  /**
   * One prepared statement run once per tool, inside the caller's transaction (drizzle's multi-row insert built
   * and bound a 500-row statement per chunk: a third of the host's share of a large install).
   */
  private insertTools(serviceId: string, rows: ToolRowText[], enabled: Map<string, boolean>) {
    this.insertTool ??= this.db.$client.prepare(
      `insert into "tools" ("service_id", "id", "position", "name", "description", "input_schema", "output_schema",
        "adapter_domain", "annotations", "enabled", "endpoint") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insert = this.insertTool;
    rows.forEach((tool, position) => {
      insert.run(
        serviceId,
        tool.id,
        position,
        tool.name,
        tool.description,
        tool.inputSchema,
        tool.outputSchema,
        tool.adapterDomain,
        tool.annotations,
        (enabled.get(tool.id) ?? true) ? 1 : 0,
        tool.endpoint,
      );
    });
  }

  /** Every write about a service changes the revision of the catalog and of that service. */
  private touch(serviceId: string): void {
    this.written++;
    this.serviceWritten.set(serviceId, this.written);
  }

  /** Changes with every write about the service (since this host started: environments live as long as the host). */
  private serviceRevision(serviceId: string): string {
    return String(this.serviceWritten.get(serviceId) ?? 0);
  }

  private serviceColumns() {
    const { definition: _definition, ...columns } = getTableColumns(services);
    return columns;
  }

  private toolSummaryColumns() {
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

  private toolQuery() {
    return this.db
      .select({
        ...this.toolSummaryColumns(),
        inputSchema: tools.inputSchema,
        outputSchema: tools.outputSchema,
        adapterDomain: tools.adapterDomain,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId));
  }
}

/** A tool's row id: the tool_search tables' rows carry it. */
const rowidOf = sql<number>`${tools}."rowid"`;

/** Tool and service enabled, service not stale: what code may call. */
const callable = and(eq(tools.enabled, true), eq(services.enabled, true), eq(services.stale, false));

function toolConditions(filter: Omit<ToolFilter, "after"> & { after?: [string, number] }): SQL | undefined {
  return and(
    filter.serviceIds === undefined ? undefined : inArray(tools.serviceId, [...filter.serviceIds]),
    filter.serviceId === undefined ? undefined : eq(tools.serviceId, filter.serviceId),
    filter.query === undefined
      ? undefined
      : or(contains(tools.name, filter.query), contains(tools.description, filter.query)),
    filter.enabled === undefined ? undefined : eq(tools.enabled, filter.enabled),
    filter.after === undefined
      ? undefined
      : or(
          gt(tools.serviceId, filter.after[0]),
          and(eq(tools.serviceId, filter.after[0]), gt(tools.position, filter.after[1])),
        ),
  );
}
