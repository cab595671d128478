/** All SQL about services and tools. Multi-row changes run in one transaction. */
import type { ServiceCatalog, ServiceDefinition } from "@cyrnel/sdk";
import type { Statement } from "better-sqlite3";
import { type AnyColumn, and, asc, eq, getTableColumns, gt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { services, tools } from "../../db/schema.js";
import { yieldToEventLoop } from "../../lib/event-loop.js";

/** A service without its definition text (which is large and never returned). */
export type ServiceRow = Omit<typeof services.$inferSelect, "definition"> & { toolCount: number };
export type ToolRow = typeof tools.$inferSelect & { serviceEnabled: boolean; serviceStale: boolean };
/** A tool without its schemas and routing: what lists show (the JSON columns are most of a row's size). */
export type ToolSummaryRow = Omit<ToolRow, "inputSchema" | "outputSchema" | "adapterDomain">;

// Written out in full: drizzle renders column references unqualified inside a single-table select.
const toolCount = sql<number>`(select count(*) from "tools" as "t" where "t"."service_id" = "services"."id")`.as(
  "tool_count",
);

/** Case-insensitive (Unicode) substring test, via the `casefold` SQL function registered in db/client.ts. */
const contains = (column: AnyColumn, needle: string) => sql`instr(casefold(${column}), casefold(${needle})) > 0`;

export interface ServiceFilter {
  query?: string;
  enabled?: boolean;
  adapter?: string;
  after?: string;
  limit: number;
}

export interface ToolFilter {
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
    });
  }
  return rows;
}

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
    this.written++;
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
        "adapter_domain", "annotations", "enabled") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      );
    });
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

function toolConditions(filter: ToolFilter): SQL | undefined {
  return and(
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
