/** The SQLite service store: prepared statements, one synchronous transaction per multi-row write. */
import type { ServiceCatalog } from "@cyrnel/sdk";
import type { Statement } from "better-sqlite3";
import { type AnyColumn, and, asc, eq, getTableColumns, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { secrets, services, tools } from "../../db/schema.js";
import { fts5Expression } from "../../db/search-text.js";
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

// Written out in full: drizzle renders column references unqualified inside a single-table select.
const toolCount = sql<number>`(select count(*) from "tools" as "t" where "t"."service_id" = "services"."id")`.as(
  "tool_count",
);

/** Case-insensitive (Unicode) substring test, via the `casefold` SQL function registered in db/client.ts. */
const contains = (column: AnyColumn, needle: string) => sql`instr(casefold(${column}), casefold(${needle})) > 0`;

const W = SEARCH_WEIGHTS;
/** FTS5 `bm25()` column weights of `tool_search`: id words, title, endpoint, service. */
const TITLE_WEIGHTS = `${W.idWords}, ${W.title}, ${W.endpoint}, ${W.service}`;

export class SqliteServiceStore implements ServiceStore {
  private insertTool: Statement | undefined;
  private readonly revisions = new Revisions();

  constructor(private readonly db: Db) {}

  get revision(): number {
    return this.revisions.revision;
  }

  changedElsewhere(serviceId: string | null): void {
    if (serviceId === null) this.revisions.touchAll();
    else this.revisions.touch(serviceId);
  }

  async get(id: string): Promise<ServiceRow | undefined> {
    return this.db
      .select({ ...serviceColumns(), toolCount })
      .from(services)
      .where(eq(services.id, id))
      .get();
  }

  async list(filter: ServiceFilter): Promise<ServiceRow[]> {
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
      .select({ ...serviceColumns(), toolCount })
      .from(services)
      .where(and(...conditions))
      .orderBy(asc(services.id))
      .limit(filter.limit + 1)
      .all();
  }

  async serviceIds(): Promise<string[]> {
    return this.db
      .select({ id: services.id })
      .from(services)
      .all()
      .map((row) => row.id);
  }

  async toolIdsOf(serviceId: string): Promise<string[]> {
    return this.db
      .select({ id: tools.id })
      .from(tools)
      .where(eq(tools.serviceId, serviceId))
      .all()
      .map((row) => row.id);
  }

  async definitionText(id: string): Promise<string | undefined> {
    return this.db.select({ definition: services.definition }).from(services).where(eq(services.id, id)).get()
      ?.definition;
  }

  async idsOfAdapter(adapter: string): Promise<string[]> {
    return this.db
      .select({ id: services.id })
      .from(services)
      .where(eq(services.adapter, adapter))
      .orderBy(asc(services.id))
      .all()
      .map((row) => row.id);
  }

  insert(service: NewService): Promise<void> {
    const now = new Date().toISOString();
    return this.revisions.write(service.id, () =>
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
      }),
    );
  }

  replaceDefinition(id: string, update: DefinitionUpdate): Promise<void> {
    return this.revisions.write(id, () =>
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
      }),
    );
  }

  update(id: string, values: ServiceUpdate): Promise<void> {
    return this.revisions.write(id, () => {
      this.db
        .update(services)
        .set({ ...values, updatedAt: new Date().toISOString() })
        .where(eq(services.id, id))
        .run();
    });
  }

  delete(id: string): Promise<void> {
    return this.revisions.write(id, () => {
      this.db.transaction((tx) => {
        tx.delete(services).where(eq(services.id, id)).run();
        tx.delete(secrets)
          .where(and(eq(secrets.ownerType, "service"), eq(secrets.ownerId, id)))
          .run();
      });
    });
  }

  async getTool(serviceId: string, toolId: string): Promise<ToolRow | undefined> {
    return this.toolQuery()
      .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)))
      .get();
  }

  async toolsOf(serviceId: string): Promise<ToolRow[]> {
    return this.toolQuery().where(eq(tools.serviceId, serviceId)).orderBy(asc(tools.position)).all();
  }

  async toolDomains(serviceId: string): Promise<{ id: string; adapterDomain: Record<string, unknown> }[]> {
    return this.db
      .select({ id: tools.id, adapterDomain: tools.adapterDomain })
      .from(tools)
      .where(eq(tools.serviceId, serviceId))
      .orderBy(asc(tools.position))
      .all();
  }

  async listTools(filter: ToolFilter): Promise<ToolSummaryRow[]> {
    return this.db
      .select(toolSummaryColumns())
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1)
      .all();
  }

  async listToolsWithSchemas(filter: ToolFilter): Promise<ToolRow[]> {
    return this.toolQuery()
      .where(toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1)
      .all();
  }

  /** BM25 over the three tool_search tables of migration 0003, summed per tool. */
  async searchTools(search: ToolSearch): Promise<ToolSummaryRow[]> {
    return this.rankedPage(search, (ids) =>
      this.db
        .select(toolSummaryColumns())
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(inArray(rowidOf, ids))
        .all(),
    );
  }

  async searchToolsWithSchemas(search: ToolSearch): Promise<ToolRow[]> {
    return this.rankedPage(search, (ids) => this.toolQuery().where(inArray(rowidOf, ids)).all());
  }

  /** One ranked page: row ids ranked first, then `read` reads those rows (in any order) and they are put in rank order. */
  private rankedPage<Row extends { serviceId: string; id: string }>(
    search: ToolSearch,
    read: (rowids: number[]) => Row[],
  ): Row[] {
    const expression = fts5Expression(search.terms);
    const ranked = sql`(
      select "rowid", sum("score") as "score" from (
        select "rowid", bm25("tool_search", ${sql.raw(TITLE_WEIGHTS)}) as "score"
          from "tool_search" where "tool_search" match ${expression}
        union all
        select "rowid", ${sql.raw(String(W.description))} * bm25("tool_search_descriptions")
          from "tool_search_descriptions" where "tool_search_descriptions" match ${expression}
        union all
        select "rowid", ${sql.raw(String(W.values))} * bm25("tool_search_values")
          from "tool_search_values" where "tool_search_values" match ${expression}
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
    return inRankOrder(page, read(page.map((row) => row.rowid)));
  }

  setToolEnabled(serviceId: string, toolId: string, enabled: boolean): Promise<void> {
    return this.revisions.write(serviceId, () => {
      this.db
        .update(tools)
        .set({ enabled })
        .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)))
        .run();
    });
  }

  catalog(): Promise<ServiceCatalog> {
    return this.revisions.catalog(async () =>
      this.db
        .select({ serviceId: tools.serviceId, toolId: tools.id })
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(callable)
        .orderBy(asc(tools.serviceId), asc(tools.position))
        .all(),
    );
  }

  async toolsJson(serviceId: string, toolIds?: readonly string[]): Promise<{ revision: string; toolsJson: string }> {
    const revision = this.revisions.ofService(serviceId);
    if (toolIds?.length === 0) return { revision, toolsJson: "[]" };
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
          callable,
          toolIds === undefined ? undefined : inArray(tools.id, [...toolIds]),
        ),
      )
      .orderBy(asc(tools.position))
      .all();
    return { revision, toolsJson: toolsJsonText(serviceId, rows) };
  }

  async toolSchemaChars(serviceId: string): Promise<{ id: string; chars: number }[]> {
    return this.db
      .select({
        id: tools.id,
        chars: sql<number>`length(${tools.inputSchema}) + length(${tools.outputSchema})`,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(and(eq(tools.serviceId, serviceId), callable))
      .orderBy(asc(tools.position))
      .all();
  }

  async effectiveTools(serviceId?: string): Promise<ToolRow[]> {
    return this.toolQuery()
      .where(and(callable, serviceId === undefined ? undefined : eq(tools.serviceId, serviceId)))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .all();
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

function serviceColumns() {
  const { definition: _definition, ...columns } = getTableColumns(services);
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
