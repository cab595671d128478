/**
 * The host's tables on PostgreSQL: the same tables, columns and meanings as
 * schema.ts (SQLite), so that both dialects answer the API byte for byte
 * alike. What differs, and why:
 *
 * - Text is `text COLLATE "C"` ({@link ctext}): ordering and `>` compare
 *   code points, as SQLite's BINARY does (a database's own collation would
 *   order `a_b` and `aB` otherwise, and move list pages and cursors). It
 *   also carries U+0000, which PostgreSQL's text cannot store and code,
 *   stdout or a definition may contain, escaped (see {@link escapeNul}).
 * - Timestamps stay ISO-8601 text, and JSON columns are `json` (not
 *   `jsonb`, which reorders keys): what was written is what is read back.
 * - Ids are identity columns, which never hand out a number twice, like
 *   SQLite's AUTOINCREMENT.
 * - Tool search keeps its words in the tools' own rows (`search_*`),
 *   written by the store from the same JS text functions SQLite's index
 *   uses (search-text.ts, search-text-pg.ts), and the casefolded copies
 *   (`*_fold`) that `?query=` filters compare.
 *
 * The cluster's own tables (`cluster_*`, at the end) have no SQLite twin:
 * only hosts sharing a PostgreSQL database use them (cluster/).
 *
 * `pnpm --filter @cyrnel/host db:generate` writes the migrations of both
 * dialects after a change here or to schema.ts; keep the two in step.
 */
import type { AuthorizationCodeFlow, ToolAnnotations } from "@cyrnel/sdk";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  json,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

type Json = Record<string, unknown>;

/**
 * U+0000 cannot be stored in PostgreSQL text, nor can a lone UTF-16
 * surrogate (the driver's UTF-8 makes it U+FFFD). U+0000 is written as
 * U+FFFF "0", a lone surrogate as U+FFFF "S" and its four hex digits, and
 * U+FFFF itself (a noncharacter) as U+FFFF "F", so every string comes back
 * as it went in — the code of a process that a host reads to run it too.
 */
export function escapeNul(text: string): string {
  if (!text.includes("\u0000") && !text.includes("\uffff") && !LONE_SURROGATE.test(text)) return text;
  return text
    .replaceAll("\uffff", "\uffffF")
    .replaceAll("\u0000", "\uffff0")
    .replace(LONE_SURROGATES, (unit) => `\uffffS${unit.charCodeAt(0).toString(16)}`);
}

export function unescapeNul(text: string): string {
  return text.includes("\uffff")
    ? text.replace(/\uffff([0F]|S[0-9a-f]{4})/g, (_, code: string) =>
        code === "0" ? "\u0000" : code === "F" ? "\uffff" : String.fromCharCode(Number.parseInt(code.slice(1), 16)),
      )
    : text;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

/** Text compared and ordered by code point, carrying U+0000 (see the file's comment). */
export const ctext = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
  toDriver: escapeNul,
  fromDriver: unescapeNul,
});

/** Text with a fixed set of values (what SQLite's `text({ enum })` declares). */
const enumText = <T extends string>(name: string) => ctext(name).$type<T>();

/** A full-text document; written as a `tsvector` literal built in JS (search-text-pg.ts). */
export const tsvector = customType<{ data: string; driverData: string }>({
  dataType: () => "tsvector",
});

export const modules = pgTable("modules", {
  id: ctext("id").primaryKey(),
  type: enumText<"adapter" | "environment">("type").notNull(),
  name: ctext("name").notNull(),
  description: ctext("description").notNull().default(""),
  version: ctext("version").notNull(),
  builtin: boolean("builtin").notNull(),
  enabled: boolean("enabled").notNull(),
  source: ctext("source"),
  config: json("config").$type<Json>().notNull().default(sql`'{}'`),
  createdAt: ctext("created_at").notNull(),
  updatedAt: ctext("updated_at").notNull(),
});

export const services = pgTable(
  "services",
  {
    id: ctext("id").primaryKey(),
    name: ctext("name").notNull(),
    description: ctext("description").notNull(),
    adapter: ctext("adapter").notNull(),
    source: ctext("source"),
    version: ctext("version"),
    hash: ctext("hash").notNull(),
    definition: ctext("definition").notNull(),
    adapterDomain: json("adapter_domain").$type<Json>().notNull(),
    configSchema: json("config_schema").$type<Json>().notNull(),
    secretsSchema: json("secrets_schema").$type<Json>().notNull(),
    config: json("config").$type<Json>().notNull().default(sql`'{}'`),
    enabled: boolean("enabled").notNull().default(false),
    stale: boolean("stale").notNull().default(false),
    staleReason: ctext("stale_reason"),
    authorization: json("authorization").$type<AuthorizationCodeFlow>(),
    createdAt: ctext("created_at").notNull(),
    updatedAt: ctext("updated_at").notNull(),
    /** `casefold` of id, name and description, for `?query=` (lib/casefold.ts). */
    idFold: ctext("id_fold").notNull(),
    nameFold: ctext("name_fold").notNull(),
    descriptionFold: ctext("description_fold").notNull(),
  },
  (table) => [index("services_adapter_idx").on(table.adapter)],
);

export const tools = pgTable(
  "tools",
  {
    serviceId: ctext("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    id: ctext("id").notNull(),
    /** What SQLite calls the rowid: search ranks by it. Never reused. */
    rowId: bigint("row_id", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    position: integer("position").notNull(),
    name: ctext("name").notNull(),
    description: ctext("description").notNull(),
    inputSchema: json("input_schema").$type<Json>().notNull(),
    outputSchema: json("output_schema").$type<Json>().notNull(),
    adapterDomain: json("adapter_domain").$type<Json>().notNull(),
    annotations: json("annotations").$type<ToolAnnotations>().notNull().default(sql`'{}'`),
    enabled: boolean("enabled").notNull().default(true),
    endpoint: ctext("endpoint"),
    /** `ToolDefinition.secrets` (alternatives of secret names a call needs); null when it needs none. */
    secrets: json("secrets").$type<string[][]>(),
    nameFold: ctext("name_fold").notNull(),
    descriptionFold: ctext("description_fold").notNull(),
    /** `indexText` of the id and of the endpoint: a search for exactly these puts the tool first. */
    searchIdWords: ctext("search_id_words").notNull(),
    searchEndpointWords: ctext("search_endpoint_words").notNull(),
    /** Id words (A), title (B), endpoint (C), service (D); and how many words in all (BM25's document length). */
    searchMain: tsvector("search_main").notNull(),
    searchMainLength: integer("search_main_length").notNull(),
    searchDescription: tsvector("search_description").notNull(),
    searchDescriptionLength: integer("search_description_length").notNull(),
    searchValues: tsvector("search_values").notNull(),
    searchValuesLength: integer("search_values_length").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.serviceId, table.id] }),
    uniqueIndex("tools_row_id_idx").on(table.rowId),
    index("tools_service_position_idx").on(table.serviceId, table.position),
    index("tools_search_main_idx").using("gin", table.searchMain),
    index("tools_search_description_idx").using("gin", table.searchDescription),
    index("tools_search_values_idx").using("gin", table.searchValues),
  ],
);

/** See schema.ts. */
export const toolInputOverrides = pgTable(
  "tool_input_overrides",
  {
    serviceId: ctext("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    toolId: ctext("tool_id").notNull(),
    patch: json("patch").$type<Json>().notNull(),
    original: json("original").$type<Json>().notNull(),
    reason: ctext("reason").notNull(),
    setBy: ctext("set_by").notNull(),
    setAt: ctext("set_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.serviceId, table.toolId] })],
);

export const secrets = pgTable(
  "secrets",
  {
    ownerType: enumText<"service" | "module" | "service-oauth" | "connection">("owner_type").notNull(),
    ownerId: ctext("owner_id").notNull(),
    name: ctext("name").notNull(),
    keyId: ctext("key_id").notNull(),
    iv: bytea("iv").notNull(),
    ciphertext: bytea("ciphertext").notNull(),
    tag: bytea("tag").notNull(),
    updatedAt: ctext("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.ownerType, table.ownerId, table.name] })],
);

function bytea(name: string) {
  return customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" })(name);
}

type ProcessState = "queued" | "running" | "suspended" | "idle" | "terminating";
type ExitState = "success" | "failed" | "timeout" | "canceled";

export const processes = pgTable(
  "processes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    ref: ctext("ref"),
    state: enumText<ProcessState>("state").notNull(),
    exitState: enumText<ExitState>("exit_state"),
    error: ctext("error"),
    timeoutMs: integer("timeout_ms"),
    code: ctext("code").notNull(),
    output: json("output").$type<Json>(),
    stdout: ctext("stdout").notNull().default(""),
    stderr: ctext("stderr").notNull().default(""),
    runs: integer("runs").notNull().default(0),
    keyId: ctext("key_id"),
    createdAt: ctext("created_at").notNull(),
    startedAt: ctext("started_at"),
    finishedAt: ctext("finished_at"),
  },
  (table) => [
    index("processes_state_idx").on(table.state),
    index("processes_ref_idx").on(table.ref),
    index("processes_key_idx").on(table.keyId),
    // GET /stats: the processes whose run ended in a window, by exit state and whether the code started (a queue
    // timeout never did), counted from this index alone.
    index("processes_finished_idx").on(table.finishedAt, table.exitState, table.startedAt),
  ],
);

export const executions = pgTable(
  "executions",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    processId: integer("process_id")
      .notNull()
      .references(() => processes.id, { onDelete: "cascade" }),
    environment: ctext("environment").notNull(),
    exitState: enumText<ExitState>("exit_state"),
    createdAt: ctext("created_at").notNull(),
    finishedAt: ctext("finished_at"),
    // The process queue (cluster/process-cluster.ts): only PostgreSQL hosts run processes through it.
    /** The type-check choice of this run (null: the environment's default); the worker that runs it reads it. */
    typecheck: boolean("typecheck"),
    /** When the run was queued, by the database's clock (the sweeps compare it with now()). */
    enqueuedAt: timestamp("enqueued_at", { withTimezone: true }).notNull().defaultNow(),
    /** The host that took the run (`cluster_hosts.id`); null while it waits. Set once, by a conditional UPDATE. */
    claimedBy: text("claimed_by"),
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    /** A kill was asked for (the executing host reads it when it attaches the run and after a missed signal). */
    killRequested: boolean("kill_requested").notNull().default(false),
    /**
     * The W3C trace context the run continues (the request that queued it), for the host that runs it to parent
     * the run's span; null when the queuing host does not trace (telemetry/tracing.ts).
     */
    traceparent: text("traceparent"),
    tracestate: text("tracestate"),
    attempts: integer("attempts").notNull().default(1),
    journalBytes: integer("journal_bytes").notNull().default(0),
    notDurable: ctext("not_durable"),
    /** When a run let go of while it slept (it waited only on timers) is due to resume (ISO); null: not asleep. */
    wakeAt: ctext("wake_at"),
  },
  // SQLite finds a process's runs through its rowid order; PostgreSQL needs the index for the cascade and for
  // the latest run of a process. The partial indexes serve the queue: runs waiting for a host (the queue length
  // and the sweeps) and runs a host has (the reaper).
  (table) => [
    index("executions_process_idx").on(table.processId),
    index("executions_waiting_idx").on(table.id).where(sql`${table.claimedBy} is null and ${table.finishedAt} is null`),
    index("executions_claimed_idx")
      .on(table.claimedBy)
      .where(sql`${table.claimedBy} is not null and ${table.finishedAt} is null`),
  ],
);

export const runJournal = pgTable(
  "run_journal",
  {
    executionId: integer("execution_id")
      .notNull()
      .references(() => executions.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    kind: enumText<"call" | "replay">("kind").notNull(),
    callIndex: integer("call_index"),
    digest: ctext("digest"),
    serviceId: ctext("service_id"),
    toolId: ctext("tool_id"),
    state: enumText<"started" | "ok" | "error">("state"),
    payload: ctext("payload"),
  },
  (table) => [
    primaryKey({ columns: [table.executionId, table.seq] }),
    uniqueIndex("run_journal_call_idx").on(table.executionId, table.callIndex),
  ],
);

export const registries = pgTable("registries", {
  id: ctext("id").primaryKey(),
  name: ctext("name").notNull(),
  url: ctext("url").notNull(),
  definitionsUrl: ctext("definitions_url"),
  modulesUrl: ctext("modules_url"),
  createdAt: ctext("created_at").notNull(),
  updatedAt: ctext("updated_at").notNull(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: ctext("id").primaryKey(),
    name: ctext("name").notNull(),
    role: enumText<"admin" | "agent">("role").notNull(),
    services: json("services").$type<string[]>(),
    hash: ctext("hash").notNull(),
    createdAt: ctext("created_at").notNull(),
    expiresAt: ctext("expires_at"),
    lastUsedAt: ctext("last_used_at"),
    revokedAt: ctext("revoked_at"),
    revokedBy: ctext("revoked_by"),
  },
  (table) => [uniqueIndex("api_keys_hash_unique").on(table.hash)],
);

export const oauthSubjects = pgTable("oauth_subjects", {
  id: ctext("id").primaryKey(),
  role: enumText<"admin" | "agent">("role").notNull(),
  services: json("services").$type<string[]>(),
  expiresAt: ctext("expires_at").notNull(),
  seenAt: ctext("seen_at").notNull(),
});

type PolicyAction = "allow" | "ask" | "deny";

export const servicePolicies = pgTable("service_policies", {
  serviceId: ctext("service_id")
    .primaryKey()
    .references(() => services.id, { onDelete: "cascade" }),
  defaultAction: enumText<PolicyAction>("default_action").notNull(),
  rules: json("rules")
    .$type<{ tools?: string; readOnly?: boolean; destructive?: boolean; action: PolicyAction }[]>()
    .notNull(),
  approvalTimeoutMs: integer("approval_timeout_ms"),
  updatedAt: ctext("updated_at").notNull(),
});

export const approvals = pgTable(
  "approvals",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    processId: integer("process_id").notNull(),
    keyId: ctext("key_id"),
    serviceId: ctext("service_id").notNull(),
    toolId: ctext("tool_id").notNull(),
    parameters: json("parameters").$type<Json>().notNull(),
    parametersPreview: json("parameters_preview").$type<unknown>().notNull(),
    parametersBytes: integer("parameters_bytes").notNull(),
    parametersSha256: ctext("parameters_sha256").notNull(),
    state: enumText<"pending" | "approved" | "denied" | "expired">("state").notNull(),
    createdAt: ctext("created_at").notNull(),
    decidedAt: ctext("decided_at"),
    decidedBy: ctext("decided_by"),
    reason: ctext("reason"),
    question: ctext("question"),
    executionId: integer("execution_id"),
    callIndex: integer("call_index"),
  },
  (table) => [index("approvals_state_idx").on(table.state), index("approvals_process_idx").on(table.processId)],
);

/**
 * Ids are given by the host (see `CallLog`); the identity's sequence is
 * moved past every id written, so it keeps the highest ever used after the
 * rows are pruned, as AUTOINCREMENT does on SQLite.
 */
export const calls = pgTable(
  "calls",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    processId: integer("process_id"),
    executionId: integer("execution_id"),
    keyId: ctext("key_id"),
    serviceId: ctext("service_id").notNull(),
    toolId: ctext("tool_id").notNull(),
    startedAt: ctext("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    outcome: ctext("outcome").notNull(),
    status: integer("status"),
    connectionId: ctext("connection_id"),
    parameters: json("parameters").$type<unknown>().notNull(),
  },
  (table) => [
    index("calls_process_idx").on(table.processId, table.executionId),
    index("calls_started_idx").on(table.startedAt),
  ],
);

// ---- the cluster's tables (cluster/): hosts sharing one PostgreSQL database ---------------------------------------
// Plain `text` and `timestamptz` (no SQLite twin to answer alike), and times by the database's clock (`now()`): hosts'
// clocks may disagree, the database is the one clock they share. Older hosts created these two tables at start
// (migration 0003 takes them over as they are).

/** One row per running host and its lease (cluster/host-leases.ts); the claims of runs are fenced by it. */
export const clusterHosts = pgTable(
  "cluster_hosts",
  {
    id: text("id").primaryKey(),
    role: text("role").$type<"all" | "api" | "worker">().notNull(),
    /** How operators reach the host (`CYRNEL_ADVERTISE_URL`); informational. */
    address: text("address"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull().defaultNow(),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    check("cluster_hosts_role_check", sql`${table.role} IN ('all', 'api', 'worker')`),
    // The reaper looks for expired leases.
    index("cluster_hosts_lease_expires_at").on(table.leaseExpiresAt),
  ],
);

/**
 * The archive of every custom module, so every host runs the same files (cluster/module-archive-store.ts): hosts
 * compare `folder_digest` with their own copy without reading the bytes.
 */
export const clusterModuleArchives = pgTable("cluster_module_archives", {
  moduleId: text("module_id").primaryKey(),
  version: text("version").notNull(),
  archive: bytea("archive").notNull(),
  archiveSha256: text("archive_sha256").notNull(),
  folderDigest: text("folder_digest").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  /** The host that stored it. */
  updatedBy: text("updated_by"),
});

export const serviceOAuth = pgTable("service_oauth", {
  serviceId: ctext("service_id")
    .primaryKey()
    .references(() => services.id, { onDelete: "cascade" }),
  clientId: ctext("client_id").notNull(),
  authorizationUrl: ctext("authorization_url"),
  tokenUrl: ctext("token_url"),
  revocationUrl: ctext("revocation_url"),
  scopes: json("scopes").$type<string[]>(),
  authorizationParams: json("authorization_params").$type<Record<string, string>>().notNull(),
  credentials: enumText<"shared" | "per-caller">("credentials").notNull(),
  updatedAt: ctext("updated_at").notNull(),
});

export const connections = pgTable(
  "connections",
  {
    id: ctext("id").primaryKey(),
    serviceId: ctext("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    owner: ctext("owner").notNull(),
    scopes: json("scopes").$type<string[]>().notNull(),
    expiresAt: ctext("expires_at"),
    refreshable: boolean("refreshable").notNull(),
    createdAt: ctext("created_at").notNull(),
    refreshedAt: ctext("refreshed_at"),
  },
  (table) => [uniqueIndex("connections_owner_idx").on(table.serviceId, table.owner)],
);

export const connectionRequests = pgTable(
  "connection_requests",
  {
    stateHash: ctext("state_hash").primaryKey(),
    serviceId: ctext("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    owner: ctext("owner").notNull(),
    verifier: ctext("verifier").notNull(),
    redirectUri: ctext("redirect_uri").notNull(),
    expiresAt: ctext("expires_at").notNull(),
    createdAt: ctext("created_at").notNull(),
  },
  (table) => [index("connection_requests_expiry_idx").on(table.expiresAt)],
);
