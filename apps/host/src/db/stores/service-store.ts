/**
 * The services-and-tools store, on either dialect (see dialect.ts): every
 * read and write of `services` and `tools`, written once. What the two
 * databases keep differently (tool search, case-folded text, bulk inserts,
 * JSON as text) is a hook of service-dialect.ts, picked once when the
 * store is built (store-sqlite.ts, store-pg.ts).
 */
import type { ServiceCatalog } from "@cyrnel/sdk";
import { and, asc, desc, eq, getTableColumns, gt, inArray, like, or, type SQL, sql } from "drizzle-orm";
import {
  type DefinitionUpdate,
  type InputOverrideRow,
  inRankOrder,
  type NewService,
  Revisions,
  SEARCH_WEIGHTS,
  type ServiceFilter,
  type ServiceRow,
  type ServiceStore,
  type ServiceUpdate,
  type ToolFilter,
  type ToolJsonExtras,
  type ToolRow,
  type ToolSearch,
  type ToolSummaryRow,
  toolsJsonEntries,
} from "../../domain/services/service-store.js";
import { yieldToEventLoop } from "../../lib/event-loop.js";
import { mergePatch } from "../../lib/merge-patch.js";
import type { SharedDb, SqlDialect, Tables } from "../dialect.js";
import type { ServiceDialect } from "./service-dialect.js";

/** Tool ids bound in one statement of a bulk switch: far below either dialect's limit on bound parameters. */
const TOOL_IDS_PER_STATEMENT = 1000;

/**
 * Schema characters read per statement when a service's schemas are read
 * (`toolsJson`, `toolSchemaChars`). Stripe's 177 MB in one statement
 * held the event loop for ~0.4 s on SQLite (better-sqlite3 reads
 * synchronously; their lengths alone took 0.15 s), and 0.2 s more to make
 * the text, so a host that had just started or changed a large service
 * answered nothing for about a second. Read in slices of about this many
 * characters, with the event loop let run between them, a request waits
 * behind one slice at most (a larger tool is a slice of its own).
 */
const SLICE_CHARS = 512 * 1024;
/** The first slice's tools when measuring schemas, before their size is known; later ones are sized by the last. */
const FIRST_SLICE_TOOLS = 4;
/** Most tools read per statement (far below either dialect's limit on bound parameters). */
const MAX_SLICE_TOOLS = 500;
/** Tries of a sliced read whose service changed meanwhile; the last reads in one statement. */
const SLICED_READ_TRIES = 3;

type ServiceInsert = Tables["services"]["$inferInsert"];

export class SqlServiceStore implements ServiceStore {
  private readonly revisions = new Revisions();

  /** Every write tells the other hosts (`service`, or `tools` for a tool switch), in its transaction. */
  constructor(
    private readonly sql: SqlDialect,
    private readonly dialect: ServiceDialect,
  ) {}

  get revision(): number {
    return this.revisions.revision;
  }

  changedElsewhere(serviceId: string | null): void {
    if (serviceId === null) this.revisions.touchAll();
    else this.revisions.touch(serviceId);
  }

  watch(listener: () => void): () => void {
    return this.revisions.watch(listener);
  }

  async get(id: string): Promise<ServiceRow | undefined> {
    const { services } = this.sql.tables;
    const [row] = await this.sql.db
      .select({ ...serviceColumns(services), toolCount })
      .from(services)
      .where(eq(services.id, id));
    return row;
  }

  list(filter: ServiceFilter): Promise<ServiceRow[]> {
    const { services } = this.sql.tables;
    const { contains } = this.dialect;
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
    return this.sql.db
      .select({ ...serviceColumns(services), toolCount })
      .from(services)
      .where(and(...conditions))
      .orderBy(asc(services.id))
      .limit(filter.limit + 1);
  }

  async serviceIds(): Promise<string[]> {
    const { services } = this.sql.tables;
    return (await this.sql.db.select({ id: services.id }).from(services)).map((row) => row.id);
  }

  async toolIdsOf(serviceId: string): Promise<string[]> {
    const { tools } = this.sql.tables;
    const rows = await this.sql.db.select({ id: tools.id }).from(tools).where(eq(tools.serviceId, serviceId));
    return rows.map((row) => row.id);
  }

  async definitionText(id: string): Promise<string | undefined> {
    const { services } = this.sql.tables;
    const [row] = await this.sql.db
      .select({ definition: services.definition })
      .from(services)
      .where(eq(services.id, id));
    return row?.definition;
  }

  async idsOfAdapter(adapter: string): Promise<string[]> {
    const { services } = this.sql.tables;
    const rows = await this.sql.db
      .select({ id: services.id })
      .from(services)
      .where(eq(services.adapter, adapter))
      .orderBy(asc(services.id));
    return rows.map((row) => row.id);
  }

  async insert(service: NewService): Promise<void> {
    const { services } = this.sql.tables;
    const now = new Date().toISOString();
    const definition = service.definition;
    const batch = await this.dialect.toolBatch(service.id, definition.name, service.tools);
    // The folds are PostgreSQL's columns (the type is its table's); SQLite's hook gives none.
    const row = {
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
      authorization: definition.authorization ?? null,
      enabled: false,
      createdAt: now,
      updatedAt: now,
      ...this.dialect.serviceFolds({ id: service.id, name: definition.name, description: definition.description }),
    } as ServiceInsert;
    await this.revisions.write(service.id, () =>
      this.dialect.largeWrite(() =>
        this.sql.transaction(async (tx) => {
          await tx.insert(services).values(row);
          await batch.insert(tx, new Map());
          await this.sql.publish(tx, { kind: "service", id: service.id, action: "created" });
        }),
      ),
    );
  }

  async replaceDefinition(id: string, update: DefinitionUpdate): Promise<void> {
    const { services, tools } = this.sql.tables;
    const definition = update.definition;
    // Made ready before the transaction (it takes a while for a large API); each surviving tool's flag is set inside.
    const batch = await this.dialect.toolBatch(id, definition.name, update.tools);
    await this.revisions.write(id, () =>
      this.dialect.largeWrite(() =>
        this.sql.transaction(async (tx) => {
          // The service's row first, locked: a second replace of it (another host) waits for this one to commit.
          const locked = await this.sql.forUpdate(
            tx.select({ id: services.id }).from(services).where(eq(services.id, id)),
          );
          if (locked.length === 0) return;
          const previous = await tx
            .select({ id: tools.id, enabled: tools.enabled })
            .from(tools)
            .where(eq(tools.serviceId, id));
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
              authorization: definition.authorization ?? null,
              stale: false,
              staleReason: null,
              ...(update.source !== undefined && { source: update.source }),
              ...(update.version !== undefined && { version: update.version }),
              updatedAt: new Date().toISOString(),
              ...this.dialect.serviceFolds({ id, name: definition.name, description: definition.description }),
            })
            .where(eq(services.id, id));
          await tx.delete(tools).where(eq(tools.serviceId, id));
          await batch.insert(tx, new Map(previous.map((row) => [row.id, row.enabled])));
          await this.reapplyInputOverrides(tx, id, update);
          await this.sql.publish(tx, { kind: "service", id, action: "updated" });
        }),
      ),
    );
  }

  /**
   * The operators' overrides of a regenerated service's tools, applied to the
   * new schemas (the document changed: what it says now is the new original).
   * A tool the new definition lacks keeps its override for when it returns.
   */
  private async reapplyInputOverrides(tx: SharedDb, serviceId: string, update: DefinitionUpdate): Promise<void> {
    const { tools, toolInputOverrides: overrides } = this.sql.tables;
    const kept = await tx.select().from(overrides).where(eq(overrides.serviceId, serviceId));
    if (kept.length === 0) return;
    const generated = new Map(update.tools.map((tool) => [tool.id, tool.inputSchema]));
    for (const override of kept) {
      const text = generated.get(override.toolId);
      if (text === undefined) continue;
      const original = JSON.parse(text) as Record<string, unknown>;
      const where = and(eq(overrides.serviceId, serviceId), eq(overrides.toolId, override.toolId));
      await tx.update(overrides).set({ original }).where(where);
      await tx
        .update(tools)
        .set({ inputSchema: mergePatch(original, override.patch) as Record<string, unknown> })
        .where(and(eq(tools.serviceId, serviceId), eq(tools.id, override.toolId)));
    }
  }

  async update(id: string, values: ServiceUpdate): Promise<void> {
    const { services } = this.sql.tables;
    await this.revisions.write(id, () =>
      this.sql.write({ kind: "service", id, action: "updated" }, (tx) =>
        tx
          .update(services)
          .set({ ...values, updatedAt: new Date().toISOString() })
          .where(eq(services.id, id)),
      ),
    );
  }

  async delete(id: string): Promise<void> {
    const { services, secrets, connections } = this.sql.tables;
    await this.revisions.write(id, () =>
      this.sql.transaction(async (tx) => {
        // The tokens of its connected accounts and its OAuth client secret go too (the rows go by cascade).
        const connected = tx.select({ id: connections.id }).from(connections).where(eq(connections.serviceId, id));
        await tx.delete(secrets).where(and(eq(secrets.ownerType, "connection"), inArray(secrets.ownerId, connected)));
        await tx.delete(secrets).where(and(eq(secrets.ownerType, "service-oauth"), eq(secrets.ownerId, id)));
        await tx.delete(services).where(eq(services.id, id));
        await tx.delete(secrets).where(and(eq(secrets.ownerType, "service"), eq(secrets.ownerId, id)));
        await this.sql.publish(tx, { kind: "service", id, action: "deleted" });
      }),
    );
  }

  async getTool(serviceId: string, toolId: string): Promise<ToolRow | undefined> {
    const { tools } = this.sql.tables;
    const [row] = await this.toolQuery().where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)));
    return row;
  }

  toolsOf(serviceId: string): Promise<ToolRow[]> {
    const { tools } = this.sql.tables;
    return this.toolQuery().where(eq(tools.serviceId, serviceId)).orderBy(asc(tools.position));
  }

  toolDomains(serviceId: string): Promise<{ id: string; adapterDomain: Record<string, unknown> }[]> {
    const { tools } = this.sql.tables;
    return this.sql.db
      .select({ id: tools.id, adapterDomain: tools.adapterDomain })
      .from(tools)
      .where(eq(tools.serviceId, serviceId))
      .orderBy(asc(tools.position));
  }

  listTools(filter: ToolFilter): Promise<ToolSummaryRow[]> {
    const { services, tools } = this.sql.tables;
    return this.sql.db
      .select(toolSummaryColumns(this.sql.tables))
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .where(this.toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1);
  }

  listToolsWithSchemas(filter: ToolFilter): Promise<ToolRow[]> {
    const { tools } = this.sql.tables;
    return this.toolQuery()
      .where(this.toolConditions(filter))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1);
  }

  searchTools(search: ToolSearch): Promise<ToolSummaryRow[]> {
    const { services, tools } = this.sql.tables;
    return this.rankedPage(search, (rowIds) =>
      this.sql.db
        .select(toolSummaryColumns(this.sql.tables))
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(inArray(this.dialect.search.rowId, rowIds)),
    );
  }

  searchToolsWithSchemas(search: ToolSearch): Promise<ToolRow[]> {
    return this.rankedPage(search, (rowIds) => this.toolQuery().where(inArray(this.dialect.search.rowId, rowIds)));
  }

  /**
   * One ranked page: row ids ranked first (by the dialect's index), then
   * `read` reads those rows (in any order) and they are put in rank order.
   * Ordering whole rows would carry every candidate's schemas (megabytes
   * for Stripe) through the sorter.
   */
  private async rankedPage<Row extends { serviceId: string; id: string }>(
    search: ToolSearch,
    read: (rowIds: number[]) => Promise<Row[]>,
  ): Promise<Row[]> {
    const { services, tools } = this.sql.tables;
    const index = this.dialect.search;
    const W = SEARCH_WEIGHTS;
    const ranked = index.ranked([
      { terms: search.terms, scale: 1 },
      // A verb's related words name the action: they count in what names a tool, not in its description's prose
      // (where "get" or "create" is on most tools, and matching it would cost more than it tells).
      { terms: search.related, scale: W.related, mainOnly: true },
    ]);
    if (ranked === undefined) return [];
    // A tool whose method is one the query's verb points to ("delete …": DELETE) scores W.method times higher.
    const methodFactor =
      search.methods.length === 0
        ? sql`1`
        : sql`(case when ${or(...search.methods.map((method) => like(tools.endpoint, `${method} %`)))} then ${sql.raw(String(W.method))} else 1 end)`;
    const page = await this.sql.db
      .select({ rowId: index.rowId, serviceId: tools.serviceId, id: tools.id })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId))
      .innerJoin(ranked, sql`"ranked"."row_id" = ${index.rowId}`)
      .where(and(this.toolConditions(search), search.includeDisabled ? undefined : callable(this.sql.tables)))
      // An agent that pastes an id (`chat.postMessage`) or endpoint (`POST /v1/refunds`) means that tool,
      // however short other titles are.
      .orderBy(
        desc(index.isExactly(search.exact)),
        index.bestFirst(methodFactor),
        asc(tools.serviceId),
        asc(tools.position),
      )
      .limit(search.limit + 1)
      .offset(search.offset);
    if (page.length === 0) return [];
    return inRankOrder(page, await read(page.map((row) => row.rowId)));
  }

  async inputOverride(serviceId: string, toolId: string): Promise<InputOverrideRow | undefined> {
    const overrides = this.sql.tables.toolInputOverrides;
    const [row] = await this.sql.db
      .select()
      .from(overrides)
      .where(and(eq(overrides.serviceId, serviceId), eq(overrides.toolId, toolId)));
    return row === undefined ? undefined : { ...row, patch: row.patch as Record<string, unknown> };
  }

  async setInputOverride(override: InputOverrideRow, patched: Record<string, unknown>): Promise<void> {
    const { tools, toolInputOverrides: overrides } = this.sql.tables;
    const { serviceId, toolId } = override;
    await this.revisions.write(serviceId, () =>
      this.sql.write({ kind: "tools", id: serviceId }, async (tx) => {
        await tx.delete(overrides).where(and(eq(overrides.serviceId, serviceId), eq(overrides.toolId, toolId)));
        await tx.insert(overrides).values(override);
        await tx
          .update(tools)
          .set({ inputSchema: patched })
          .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)));
      }),
    );
  }

  async removeInputOverride(serviceId: string, toolId: string): Promise<boolean> {
    const { tools, toolInputOverrides: overrides } = this.sql.tables;
    return this.revisions.write(serviceId, () =>
      this.sql.write({ kind: "tools", id: serviceId }, async (tx) => {
        const removed = await tx
          .delete(overrides)
          .where(and(eq(overrides.serviceId, serviceId), eq(overrides.toolId, toolId)))
          .returning({ original: overrides.original });
        const original = removed[0]?.original;
        if (original === undefined) return false;
        await tx
          .update(tools)
          .set({ inputSchema: original })
          .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId)));
        return true;
      }),
    );
  }

  async setToolEnabled(serviceId: string, toolId: string, enabled: boolean): Promise<void> {
    const { tools } = this.sql.tables;
    await this.revisions.write(serviceId, () =>
      this.sql.write({ kind: "tools", id: serviceId }, (tx) =>
        tx
          .update(tools)
          .set({ enabled })
          .where(and(eq(tools.serviceId, serviceId), eq(tools.id, toolId))),
      ),
    );
  }

  async setToolsEnabled(serviceId: string, toolIds: readonly string[], enabled: boolean): Promise<number> {
    const { tools } = this.sql.tables;
    if (toolIds.length === 0) return 0;
    return this.revisions.write(serviceId, () =>
      this.sql.write({ kind: "tools", id: serviceId }, async (tx) => {
        let changed = 0;
        // In slices: one statement's bound parameters are limited (SQLite 32,766, PostgreSQL 65,535).
        for (let start = 0; start < toolIds.length; start += TOOL_IDS_PER_STATEMENT) {
          const slice = toolIds.slice(start, start + TOOL_IDS_PER_STATEMENT);
          const rows = await tx
            .update(tools)
            .set({ enabled })
            .where(and(eq(tools.serviceId, serviceId), inArray(tools.id, slice), eq(tools.enabled, !enabled)))
            .returning({ id: tools.id });
          changed += rows.length;
        }
        return changed;
      }),
    );
  }

  catalog(): Promise<ServiceCatalog> {
    const { services, tools } = this.sql.tables;
    return this.revisions.catalog(() =>
      this.sql.db
        .select({ serviceId: tools.serviceId, toolId: tools.id })
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(callable(this.sql.tables))
        .orderBy(asc(tools.serviceId), asc(tools.position)),
    );
  }

  async toolsJson(
    serviceId: string,
    toolIds?: readonly string[],
    measured?: { revision: string; sizes: ReadonlyMap<string, number> },
    extras?: ToolJsonExtras,
  ): Promise<{ revision: string; toolsJson: string[] }> {
    const { services, tools } = this.sql.tables;
    const read = (ids: readonly string[] | undefined) =>
      this.sql.db
        .select({
          id: tools.id,
          description: tools.description,
          annotations: tools.annotations,
          secrets: tools.secrets,
          // The stored text as it is: never parsed on the host (see toolsJsonEntries).
          inputSchema: this.dialect.jsonText(tools.inputSchema),
          outputSchema: this.dialect.jsonText(tools.outputSchema),
        })
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(
          and(
            eq(tools.serviceId, serviceId),
            callable(this.sql.tables),
            ids === undefined ? undefined : inArray(tools.id, [...ids]),
          ),
        )
        .orderBy(asc(tools.position), asc(tools.id));
    const wanted = toolIds === undefined ? undefined : new Set(toolIds);
    for (let attempt = 1; ; attempt++) {
      const revision = this.revisions.ofService(serviceId);
      if (wanted?.size === 0) return { revision, toolsJson: ["[]"] };
      const slices: string[] = [];
      if (attempt === SLICED_READ_TRIES) {
        // Changed while read, twice: read in one statement, of one revision whatever comes.
        slices.push(toolsJsonEntries(serviceId, await read(toolIds), extras));
      } else {
        // Sizes measured at another revision would leave out the tools added since.
        const sizes =
          attempt === 1 && measured?.revision === revision
            ? measured.sizes
            : new Map((await this.toolSchemaChars(serviceId)).map((row) => [row.id, row.chars]));
        for (const [index, page] of pagesOf(sizes, wanted).entries()) {
          if (index > 0) await yieldToEventLoop();
          // Each page's rows become text as they arrive, and go.
          slices.push(toolsJsonEntries(serviceId, await read(page), extras));
        }
        if (this.revisions.ofService(serviceId) !== revision) continue;
      }
      // Handed on in parts: one string of them all (177 MB for Stripe) took 0.2 s to make, and as long to copy again.
      const parts = slices.filter((text) => text !== "").map((text, index) => (index === 0 ? `[${text}` : `,${text}`));
      parts.push(parts.length === 0 ? "[]" : "]");
      return { revision, toolsJson: parts };
    }
  }

  async toolSchemaChars(serviceId: string): Promise<{ id: string; chars: number }[]> {
    const { services, tools } = this.sql.tables;
    const { jsonText } = this.dialect;
    const ofService = and(eq(tools.serviceId, serviceId), callable(this.sql.tables));
    const measured: { id: string; chars: number }[] = [];
    // Measuring a schema costs the database a read of it: slices of about SLICE_CHARS, sized by the last one.
    let limit = FIRST_SLICE_TOOLS;
    let last: { id: string; position: number } | undefined;
    for (;;) {
      const after =
        last === undefined
          ? undefined
          : or(gt(tools.position, last.position), and(eq(tools.position, last.position), gt(tools.id, last.id)));
      const rows = await this.sql.db
        .select({
          id: tools.id,
          position: tools.position,
          chars: sql<number | string>`length(${jsonText(tools.inputSchema)}) + length(${jsonText(tools.outputSchema)})`,
        })
        .from(tools)
        .innerJoin(services, eq(services.id, tools.serviceId))
        .where(and(ofService, after))
        .orderBy(asc(tools.position), asc(tools.id))
        .limit(limit);
      let chars = 0;
      for (const row of rows) {
        // A sum of integers may arrive as text on PostgreSQL (when it could exceed a JavaScript number); these never do.
        measured.push({ id: row.id, chars: Number(row.chars) });
        chars += Number(row.chars);
      }
      if (rows.length < limit) return measured;
      last = rows.at(-1);
      // At most twice as many as the last slice: the next tools may be far larger than these.
      limit = Math.max(1, Math.min(2 * limit, MAX_SLICE_TOOLS, Math.round((limit * SLICE_CHARS) / Math.max(1, chars))));
      await yieldToEventLoop();
    }
  }

  effectiveTools(serviceId?: string): Promise<ToolRow[]> {
    const { tools } = this.sql.tables;
    return this.toolQuery()
      .where(and(callable(this.sql.tables), serviceId === undefined ? undefined : eq(tools.serviceId, serviceId)))
      .orderBy(asc(tools.serviceId), asc(tools.position));
  }

  private toolQuery() {
    const { services, tools } = this.sql.tables;
    return this.sql.db
      .select({
        ...toolSummaryColumns(this.sql.tables),
        inputSchema: tools.inputSchema,
        outputSchema: tools.outputSchema,
        adapterDomain: tools.adapterDomain,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId));
  }

  private toolConditions(filter: Omit<ToolFilter, "after"> & { after?: [string, number] }): SQL | undefined {
    const { tools } = this.sql.tables;
    const { contains } = this.dialect;
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
}

/** How many tools a service has; written out in full, since drizzle renders columns unqualified in a single-table select. */
const toolCount =
  sql<number>`(select cast(count(*) as integer) from "tools" as "t" where "t"."service_id" = "services"."id")`.as(
    "tool_count",
  );

/** A service's columns without its definition text and PostgreSQL's folded copies (never returned). */
function serviceColumns(services: Tables["services"]) {
  const {
    definition: _definition,
    idFold: _idFold,
    nameFold: _nameFold,
    descriptionFold: _descriptionFold,
    ...columns
  } = getTableColumns(services);
  return columns;
}

function toolSummaryColumns({ services, tools }: Tables) {
  return {
    serviceId: tools.serviceId,
    id: tools.id,
    position: tools.position,
    name: tools.name,
    description: tools.description,
    annotations: tools.annotations,
    enabled: tools.enabled,
    secrets: tools.secrets,
    serviceEnabled: services.enabled,
    serviceStale: services.stale,
  };
}

/** Tool and service enabled, service not stale: what code may call. */
function callable({ services, tools }: Tables): SQL | undefined {
  return and(eq(tools.enabled, true), eq(services.enabled, true), eq(services.stale, false));
}

/**
 * The ids of `sizes` (each tool's schema characters, in position order), or
 * those of them in `wanted`, in pages of about {@link SLICE_CHARS} characters
 * and at most {@link MAX_SLICE_TOOLS} tools (a larger tool is a page of its own).
 */
function pagesOf(sizes: ReadonlyMap<string, number>, wanted: ReadonlySet<string> | undefined): string[][] {
  const pages: string[][] = [];
  let page: string[] = [];
  let chars = 0;
  for (const [id, size] of sizes) {
    if (wanted !== undefined && !wanted.has(id)) continue;
    if (page.length > 0 && (chars + size > SLICE_CHARS || page.length >= MAX_SLICE_TOOLS)) {
      pages.push(page);
      page = [];
      chars = 0;
    }
    page.push(id);
    chars += size;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}
