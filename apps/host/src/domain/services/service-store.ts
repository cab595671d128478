/** All SQL about services and tools. Multi-row changes run in one transaction. */
import type { ServiceCatalog, ServiceDefinition } from "@cyrnel/sdk";
import { type AnyColumn, and, asc, eq, getTableColumns, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { services, tools } from "../../db/schema.js";

/** A service without its definition text (which is large and never returned). */
export type ServiceRow = Omit<typeof services.$inferSelect, "definition"> & { toolCount: number };
export type ToolRow = typeof tools.$inferSelect & { serviceEnabled: boolean; serviceStale: boolean };

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

export interface NewService {
  id: string;
  adapter: string;
  definition: ServiceDefinition;
  text: string;
  hash: string;
  source: string | null;
  version: string | null;
}

export class ServiceStore {
  /**
   * Bumped by every write to services or tools (they all go through this
   * store), so that what is derived from them on hot paths — the catalog
   * every process gets, the tool gate's lookups — is kept until it changes.
   */
  private written = 0;
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
    this.written++;
    const now = new Date().toISOString();
    this.db.transaction((tx) => {
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
      this.insertTools(tx, service.id, service.definition, new Map());
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
      text: string;
      hash: string;
      source?: string | null;
      version?: string | null;
    },
  ): void {
    this.written++;
    this.db.transaction((tx) => {
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
      this.insertTools(tx, id, update.definition, previous);
    });
  }

  update(
    id: string,
    values: Partial<Pick<typeof services.$inferInsert, "enabled" | "stale" | "staleReason" | "config">>,
  ): void {
    this.written++;
    this.db
      .update(services)
      .set({ ...values, updatedAt: new Date().toISOString() })
      .where(eq(services.id, id))
      .run();
  }

  delete(id: string): void {
    this.written++;
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

  listTools(filter: ToolFilter): ToolRow[] {
    const conditions: (SQL | undefined)[] = [
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
    ];
    return this.toolQuery()
      .where(and(...conditions))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .limit(filter.limit + 1)
      .all();
  }

  setToolEnabled(serviceId: string, toolId: string, enabled: boolean): void {
    this.written++;
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
      .where(and(eq(tools.enabled, true), eq(services.enabled, true), eq(services.stale, false)))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .all();
    const catalog: ServiceCatalog = {};
    for (const row of rows) {
      catalog[row.serviceId] ??= { tools: [] };
      catalog[row.serviceId]!.tools.push(row.toolId);
    }
    for (const entry of Object.values(catalog)) Object.freeze(Object.freeze(entry).tools);
    this.catalogCache = { revision, catalog: Object.freeze(catalog) };
    return this.catalogCache.catalog;
  }

  /** Every effectively enabled tool with its schemas (for `GET /environment/types`). */
  effectiveTools(): ToolRow[] {
    return this.toolQuery()
      .where(and(eq(tools.enabled, true), eq(services.enabled, true), eq(services.stale, false)))
      .orderBy(asc(tools.serviceId), asc(tools.position))
      .all();
  }

  private insertTools(
    tx: Pick<Db, "insert">,
    serviceId: string,
    definition: ServiceDefinition,
    enabled: Map<string, boolean>,
  ) {
    // Chunked: SQLite limits the number of bound parameters per statement.
    const rows = definition.tools.map((tool, position) => ({
      serviceId,
      id: tool.id,
      position,
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      adapterDomain: tool.adapterDomain,
      enabled: enabled.get(tool.id) ?? true,
    }));
    for (let start = 0; start < rows.length; start += 500)
      tx.insert(tools)
        .values(rows.slice(start, start + 500))
        .run();
  }

  private serviceColumns() {
    const { definition: _definition, ...columns } = getTableColumns(services);
    return columns;
  }

  private toolQuery() {
    return this.db
      .select({
        serviceId: tools.serviceId,
        id: tools.id,
        position: tools.position,
        name: tools.name,
        description: tools.description,
        inputSchema: tools.inputSchema,
        outputSchema: tools.outputSchema,
        adapterDomain: tools.adapterDomain,
        enabled: tools.enabled,
        serviceEnabled: services.enabled,
        serviceStale: services.stale,
      })
      .from(tools)
      .innerJoin(services, eq(services.id, tools.serviceId));
  }
}
