/**
 * The services-and-tools store: what the domain may ask of the `services`
 * and `tools` tables, whichever database holds them (one implementation
 * for both: db/stores/service-store.ts). Beside the interface: the row
 * shapes, the revisions hot paths cache by, and how stored JSON becomes the
 * environment's tool list.
 */
import type { AuthorizationCodeFlow, ServiceCatalog, ServiceDefinition, ToolAnnotations } from "@cyrnel/sdk";
import { yieldToEventLoop } from "../../lib/event-loop.js";

type Json = Record<string, unknown>;

/** A service as stored. */
export interface StoredService {
  id: string;
  name: string;
  description: string;
  adapter: string;
  source: string | null;
  version: string | null;
  /** SHA-256 (hex) of `definition`. */
  hash: string;
  /** The definition text the service was generated from; kept to regenerate on adapter updates. Never returned. */
  definition: string;
  adapterDomain: Json;
  configSchema: Json;
  secretsSchema: Json;
  /** The OAuth2 authorization-code flow the definition declares, offered for connections; null when none. */
  authorization: AuthorizationCodeFlow | null;
  config: Json;
  enabled: boolean;
  stale: boolean;
  staleReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A tool as stored. */
export interface StoredTool {
  serviceId: string;
  id: string;
  /** Order of the tool in its definition; lists follow it. */
  position: number;
  name: string;
  description: string;
  inputSchema: Json;
  outputSchema: Json;
  adapterDomain: Json;
  /** What the adapter says calling the tool does (read-only, destructive, …); policies match against it. */
  annotations: ToolAnnotations;
  enabled: boolean;
  /** `ToolDefinition.endpoint` (e.g. `POST /v1/refunds`), indexed for search; null when the adapter gives none. */
  endpoint: string | null;
  /** `ToolDefinition.secrets`: the alternatives of secret names a call needs; null when it needs none. */
  secrets: string[][] | null;
}

/**
 * An operator's override of a tool's input constraints: `patch` (a JSON
 * Merge Patch) over `original`, the input schema the adapter made from the
 * API's document. While it exists the tool's `inputSchema` is the patched
 * one, for every reader.
 */
export interface InputOverrideRow {
  serviceId: string;
  toolId: string;
  patch: Record<string, unknown>;
  original: Json;
  reason: string;
  /** Who set it: the key's name (or "the host's API key"). */
  setBy: string;
  setAt: string;
}

/** A service without its definition text (which is large and never returned). */
export type ServiceRow = Omit<StoredService, "definition"> & { toolCount: number };
/** A tool as lists and calls see it (its endpoint is only indexed for search). */
export type ToolRow = Omit<StoredTool, "endpoint"> & { serviceEnabled: boolean; serviceStale: boolean };
/** A tool without its schemas and routing: what lists show (the JSON columns are most of a row's size). */
export type ToolSummaryRow = Omit<ToolRow, "inputSchema" | "outputSchema" | "adapterDomain">;
/** The columns `update` may change. */
export type ServiceUpdate = Partial<Pick<StoredService, "enabled" | "stale" | "staleReason" | "config">>;

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

/** A ranked search: the list filters (paged by position in the ranking instead of by key) and the words to rank by. */
export interface ToolSearch extends Omit<ToolFilter, "after"> {
  /** From `searchQuery` (db/search-query.ts): the distinct words to look for, never raw user input. */
  terms: readonly string[];
  /** Words documents use for the same action ("read" → get, list), not among `terms`; they count for less. */
  related: readonly string[];
  /** HTTP methods the query's verb points to: tools whose endpoint has one score higher (none: no preference). */
  methods: readonly string[];
  /** The search as the index writes an id or endpoint (`indexText`): a tool whose id or endpoint is one of these comes first. */
  exact: readonly string[];
  /** Also tools that cannot be called (tool or service disabled, service stale). */
  includeDisabled: boolean;
  offset: number;
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
  /** JSON text of `ToolDefinition.secrets`, or null when the tool needs none. */
  secrets: string | null;
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

export interface DefinitionUpdate {
  definition: ServiceDefinition;
  tools: ToolRowText[];
  text: string;
  hash: string;
  source?: string | null;
  version?: string | null;
}

/** All reads and writes of services and tools. Multi-row changes are one transaction. */
export interface ServiceStore {
  /** Changes with every write to services or tools made through this store (see {@link Revisions}). */
  readonly revision: number;
  /**
   * Another host sharing the database wrote to this service (null: to any, maybe — changes were missed): what
   * is kept per revision of it (the catalog, the tool gate's lookups, the environment's tool docs) is read again.
   */
  changedElsewhere(serviceId: string | null): void;
  /** Calls `listener` after every write counted here or elsewhere (see {@link Revisions.watch}); returns the unsubscribe. */
  watch(listener: () => void): () => void;
  get(id: string): Promise<ServiceRow | undefined>;
  /** Ordered by id; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: ServiceFilter): Promise<ServiceRow[]>;
  /** Every service id (for suggestions when one is misspelled). */
  serviceIds(): Promise<string[]>;
  /** Every tool id of a service (for suggestions when one is misspelled). */
  toolIdsOf(serviceId: string): Promise<string[]>;
  definitionText(id: string): Promise<string | undefined>;
  idsOfAdapter(adapter: string): Promise<string[]>;
  /** The service and its tools, disabled; a service with that id already there is a unique violation. */
  insert(service: NewService): Promise<void>;
  /** Swaps in a regenerated definition: service columns updated, tools replaced, each surviving tool keeping its enabled flag. */
  replaceDefinition(id: string, update: DefinitionUpdate): Promise<void>;
  update(id: string, values: ServiceUpdate): Promise<void>;
  /** The service, its tools and policy, and its secrets: one transaction, so a later service of that id starts clean. */
  delete(id: string): Promise<void>;
  getTool(serviceId: string, toolId: string): Promise<ToolRow | undefined>;
  toolsOf(serviceId: string): Promise<ToolRow[]>;
  /** Each tool's routing data, for hydrating the service (its schemas are not needed there). */
  toolDomains(serviceId: string): Promise<{ id: string; adapterDomain: Record<string, unknown> }[]>;
  /** A page of tools without their schemas, in list order (service id, then position); `limit + 1` rows. */
  listTools(filter: ToolFilter): Promise<ToolSummaryRow[]>;
  listToolsWithSchemas(filter: ToolFilter): Promise<ToolRow[]>;
  /**
   * Tools matching a search, best first, ties in list order; `limit + 1`
   * rows from `offset`. Only callable tools unless `includeDisabled`.
   * Without their schemas (see {@link searchToolsWithSchemas}).
   */
  searchTools(search: ToolSearch): Promise<ToolSummaryRow[]>;
  searchToolsWithSchemas(search: ToolSearch): Promise<ToolRow[]>;
  setToolEnabled(serviceId: string, toolId: string, enabled: boolean): Promise<void>;
  /** The operator's override of the tool's input constraints, if it has one. */
  inputOverride(serviceId: string, toolId: string): Promise<InputOverrideRow | undefined>;
  /**
   * Sets (or replaces) the override and makes the tool's input schema
   * `patched` (`override.patch` over `override.original`): one transaction,
   * one new revision of the service, one change for the other hosts.
   */
  setInputOverride(override: InputOverrideRow, patched: Json): Promise<void>;
  /** Removes the override: the tool's input schema is `original` again. Answers whether there was one. */
  removeInputOverride(serviceId: string, toolId: string): Promise<boolean>;
  /** Switches many tools of one service in one transaction (one change, one new revision); answers how many changed. */
  setToolsEnabled(serviceId: string, toolIds: readonly string[], enabled: boolean): Promise<number>;
  /** Effectively enabled services and tools (tool and service enabled, service not stale), for sandboxes; frozen. */
  catalog(): Promise<ServiceCatalog>;
  /**
   * The effectively enabled tools of one service (only those of `toolIds`,
   * when given) with their schemas, as the JSON text of a `ToolDocsInput[]`
   * ({@link toolsJsonEntries}) in consecutive parts of about half a megabyte,
   * and the service's revision. `measured`: each tool's schema characters
   * as {@link toolSchemaChars} answered them (in position order) at a
   * revision of the service, when known, so the store need not measure
   * them again to read in slices (used only at the revision it reads).
   * `extras`: what else each entry says (see {@link ToolJsonExtras}).
   */
  toolsJson(
    serviceId: string,
    toolIds?: readonly string[],
    measured?: { revision: string; sizes: ReadonlyMap<string, number> },
    extras?: ToolJsonExtras,
  ): Promise<{ revision: string; toolsJson: string[] }>;
  /**
   * The effectively enabled tools of one service with the length of their
   * schemas' JSON text (input and output), measured by the database: what
   * declaring them would cost, known without reading the schemas into the host.
   */
  toolSchemaChars(serviceId: string): Promise<{ id: string; chars: number }[]>;
  /** Every effectively enabled tool with its schemas, or those of one service (for `GET /environment/types`). */
  effectiveTools(serviceId?: string): Promise<ToolRow[]>;
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
      secrets: tool.secrets !== undefined && tool.secrets.length > 0 ? JSON.stringify(tool.secrets) : null,
    });
  }
  return rows;
}

/**
 * Revisions of what this host wrote to services and tools (they all go
 * through its store), so that what is derived from them on hot paths — the
 * catalog every process gets, the tool gate's lookups — is kept until it
 * changes. A write counts once it is done (`touch` after it): a read that
 * began before it then carries the older revision, and its result is not
 * taken for the newer one. Writes by other hosts sharing a database count
 * when their change arrives (`touch`, `touchAll`: cluster/change-sync.ts).
 */
export class Revisions {
  private written = 0;
  /** Per service, the value of `written` at its last write: its revision in the catalog. */
  private readonly serviceWritten = new Map<string, number>();
  /** The value of `written` when every service last counted as written (changes from other hosts were missed). */
  private everyService = 0;
  private catalogCache: { revision: number; catalog: ServiceCatalog } | undefined;
  private readonly listeners = new Set<() => void>();

  get revision(): number {
    return this.written;
  }

  /** Every write about a service changes the revision of the catalog and of that service. */
  touch(serviceId: string): void {
    this.written++;
    this.serviceWritten.set(serviceId, this.written);
    this.changed();
  }

  /** Every service may have changed (another host's changes were missed): every revision moves. */
  touchAll(): void {
    this.written++;
    this.everyService = this.written;
    this.changed();
  }

  /** Calls `listener` after every write (synchronously: it should only schedule work); returns the unsubscribe. */
  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Runs a write, then counts it (also when it failed part-way: a reader re-reads rather than trust a cache). */
  async write<T>(serviceId: string, run: () => Promise<T> | T): Promise<T> {
    try {
      return await run();
    } finally {
      this.touch(serviceId);
    }
  }

  /** Changes with every write about the service (since this host started: environments live as long as the host). */
  ofService(serviceId: string): string {
    return String(Math.max(this.serviceWritten.get(serviceId) ?? 0, this.everyService));
  }

  /** The catalog, read (in list order) only when a write happened since the last read. */
  async catalog(read: () => Promise<{ serviceId: string; toolId: string }[]>): Promise<ServiceCatalog> {
    const revision = this.written;
    if (this.catalogCache?.revision === revision) return this.catalogCache.catalog;
    const rows = await read();
    const catalog: ServiceCatalog = {};
    for (const row of rows) {
      catalog[row.serviceId] ??= { tools: [], revision: this.ofService(row.serviceId) };
      catalog[row.serviceId]!.tools.push(row.toolId);
    }
    for (const entry of Object.values(catalog)) Object.freeze(Object.freeze(entry).tools);
    const frozen = Object.freeze(catalog);
    if (this.written === revision) this.catalogCache = { revision, catalog: frozen };
    return frozen;
  }
}

/**
 * The entries of a `ToolDocsInput[]`'s JSON text (without its brackets: one
 * slice of a service's tools), built from the stored JSON text without
 * parsing it (a large API's schemas are hundreds of megabytes; the
 * environment parses them off the event loop).
 */
export function toolsJsonEntries(
  serviceId: string,
  rows: readonly (ToolJsonSubject & { description: string; inputSchema: string; outputSchema: string })[],
  extras?: ToolJsonExtras,
): string {
  const service = JSON.stringify(serviceId);
  return rows
    .map((row) => {
      const more = extras === undefined ? "{}" : JSON.stringify(extras(row));
      return (
        `{"serviceId":${service},"toolId":${JSON.stringify(row.id)},"description":${JSON.stringify(row.description)},` +
        `"inputSchema":${row.inputSchema},"outputSchema":${row.outputSchema}${more === "{}" ? "}" : `,${more.slice(1)}`}`
      );
    })
    .join(",");
}

/** What {@link ToolJsonExtras} is told of a tool. */
export interface ToolJsonSubject {
  id: string;
  annotations: ToolAnnotations;
  secrets: string[][] | null;
}

/**
 * The members a tool's entry in tools' JSON has besides its ids, description
 * and schemas (`GET /environment/types` adds what `ToolDocsInput` says of a
 * tool's policy, annotations and missing secrets). Called for every tool
 * read, so it answers at once.
 */
export type ToolJsonExtras = (tool: ToolJsonSubject) => Record<string, unknown>;

/** Rows read in any order, put in the order of the ranked page they were read for. */
export function inRankOrder<Row extends { serviceId: string; id: string }>(
  page: readonly { serviceId: string; id: string }[],
  rows: Row[],
): Row[] {
  const key = (row: { serviceId: string; id: string }) => `${row.serviceId}/${row.id}`;
  const order = new Map(page.map((row, index) => [key(row), index]));
  return rows.sort((a, b) => order.get(key(a))! - order.get(key(b))!);
}

/**
 * Search weights, the same on both dialects (SQLite: FTS5's `bm25()`, lower
 * is better, so weights scale how much a match counts; PostgreSQL: the same
 * BM25 computed in SQL). Within the main index: id words, title, endpoint,
 * service. The other two indexes are scaled against it: a description
 * mentions many words in passing (a long one would otherwise outrank a
 * short, exact title), so it mostly breaks ties and finds tools no title
 * matches; an enum value ("available") is specific, so it counts like a
 * title word.
 */
export const SEARCH_WEIGHTS = {
  idWords: 1.0,
  title: 10.0,
  endpoint: 2.0,
  service: 1.0,
  description: 0.05,
  values: 1.0,
  /** Scales the score of a search's related words (`ToolSearch.related`) against the words it typed. */
  related: 0.8,
  /** Multiplies the score of a tool whose endpoint's method is one the query's verb points to (`ToolSearch.methods`). */
  method: 1.5,
} as const;
