/**
 * The host's tables. Timestamps are ISO-8601 text; JSON columns hold text
 * that drizzle (de)serialises. Secrets never live in these rows: they are in
 * `secrets`, one AES-GCM ciphertext per value.
 */
import type { AuthorizationCodeFlow, ToolAnnotations } from "@cyrnel/sdk";
import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

type Json = Record<string, unknown>;

export const modules = sqliteTable("modules", {
  id: text("id").primaryKey(),
  type: text("type", { enum: ["adapter", "environment"] }).notNull(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  /** Last version seen on disk or in code. */
  version: text("version").notNull(),
  builtin: integer("builtin", { mode: "boolean" }).notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  /** Registry descriptor URL for registry installs, null otherwise. */
  source: text("source"),
  config: text("config", { mode: "json" }).$type<Json>().notNull().default(sql`'{}'`),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const services = sqliteTable(
  "services",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    adapter: text("adapter").notNull(),
    source: text("source"),
    version: text("version"),
    /** SHA-256 (hex) of `definition`. */
    hash: text("hash").notNull(),
    /** The definition text the service was generated from; kept to regenerate on adapter updates. Never returned. */
    definition: text("definition").notNull(),
    adapterDomain: text("adapter_domain", { mode: "json" }).$type<Json>().notNull(),
    configSchema: text("config_schema", { mode: "json" }).$type<Json>().notNull(),
    secretsSchema: text("secrets_schema", { mode: "json" }).$type<Json>().notNull(),
    config: text("config", { mode: "json" }).$type<Json>().notNull().default(sql`'{}'`),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
    stale: integer("stale", { mode: "boolean" }).notNull().default(false),
    staleReason: text("stale_reason"),
    /** The OAuth2 authorization-code flow the definition declares (`ServiceDefinition.authorization`), or null. */
    authorization: text("authorization", { mode: "json" }).$type<AuthorizationCodeFlow>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("services_adapter_idx").on(table.adapter)],
);

export const tools = sqliteTable(
  "tools",
  {
    serviceId: text("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    /** Order of the tool in its definition; lists follow it. */
    position: integer("position").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    inputSchema: text("input_schema", { mode: "json" }).$type<Json>().notNull(),
    outputSchema: text("output_schema", { mode: "json" }).$type<Json>().notNull(),
    adapterDomain: text("adapter_domain", { mode: "json" }).$type<Json>().notNull(),
    /** What the adapter says calling the tool does (read-only, destructive, …); policies match against it. */
    annotations: text("annotations", { mode: "json" }).$type<ToolAnnotations>().notNull().default(sql`'{}'`),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** `ToolDefinition.endpoint` (e.g. `POST /v1/refunds`), indexed for search; null when the adapter gives none. */
    endpoint: text("endpoint"),
    /** `ToolDefinition.secrets` (alternatives of secret names a call needs); null when it needs none. */
    secrets: text("secrets", { mode: "json" }).$type<string[][]>(),
  },
  (table) => [
    primaryKey({ columns: [table.serviceId, table.id] }),
    index("tools_service_position_idx").on(table.serviceId, table.position),
  ],
);

/**
 * An operator's override of a tool's input constraints: a JSON Merge Patch
 * (RFC 7396) applied to the input schema the adapter made from the API's
 * document (`original`, kept to restore it and to patch a regenerated one).
 * The tool's `input_schema` holds the patched schema while the row exists,
 * so every reader (validation, types, docs, tool lists) sees the same one.
 */
export const toolInputOverrides = sqliteTable(
  "tool_input_overrides",
  {
    serviceId: text("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    toolId: text("tool_id").notNull(),
    patch: text("patch", { mode: "json" }).$type<Json>().notNull(),
    original: text("original", { mode: "json" }).$type<Json>().notNull(),
    reason: text("reason").notNull(),
    /** Who set it: the key's name (or "the host's API key"). */
    setBy: text("set_by").notNull(),
    setAt: text("set_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.serviceId, table.toolId] })],
);

/**
 * One encrypted value per row: AES-256-GCM with a random 12-byte IV, the
 * owner and name bound as additional data (a ciphertext moved to another row
 * fails to decrypt), and the id of the key that sealed it.
 */
export const secrets = sqliteTable(
  "secrets",
  {
    ownerType: text("owner_type", { enum: ["service", "module", "service-oauth", "connection"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    name: text("name").notNull(),
    keyId: text("key_id").notNull(),
    iv: blob("iv", { mode: "buffer" }).notNull(),
    ciphertext: blob("ciphertext", { mode: "buffer" }).notNull(),
    tag: blob("tag", { mode: "buffer" }).notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.ownerType, table.ownerId, table.name] })],
);

/** Processes: submitted code and the results of its latest run. AUTOINCREMENT keeps ids from being reused. */
export const processes = sqliteTable(
  "processes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ref: text("ref"),
    state: text("state", { enum: ["queued", "running", "suspended", "idle", "terminating"] }).notNull(),
    exitState: text("exit_state", { enum: ["success", "failed", "timeout", "canceled"] }),
    error: text("error"),
    /** null = no limit. */
    timeoutMs: integer("timeout_ms"),
    code: text("code").notNull(),
    /** Merged `cyrnel.output(...)` of the latest run; null before a run ends. */
    output: text("output", { mode: "json" }).$type<Json>(),
    stdout: text("stdout").notNull().default(""),
    stderr: text("stderr").notNull().default(""),
    /** Number of runs so far; a run needs `force` once results exist. */
    runs: integer("runs").notNull().default(0),
    /** The stored API key that created the process; null for CYRNEL_API_KEY or a host without authentication. */
    keyId: text("key_id"),
    createdAt: text("created_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
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

/** One row per run of a process; its id is the `executionId` environments see (never reused). */
export const executions = sqliteTable("executions", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  processId: integer("process_id")
    .notNull()
    .references(() => processes.id, { onDelete: "cascade" }),
  environment: text("environment").notNull(),
  exitState: text("exit_state", { enum: ["success", "failed", "timeout", "canceled"] }),
  createdAt: text("created_at").notNull(),
  finishedAt: text("finished_at"),
  /** How many times the run was started: 1, plus one per resume by replay (domain/processes/run-journal.ts). */
  attempts: integer("attempts").notNull().default(1),
  /** The bytes of its journal (`run_journal`'s payloads), counted against CYRNEL_JOURNAL_LIMIT_BYTES. */
  journalBytes: integer("journal_bytes").notNull().default(0),
  /** Why the run cannot be resumed (its journal outgrew its limit); null: it can. */
  notDurable: text("not_durable"),
  /** When a run the host let go of while it slept is due to resume (ISO; it waited only on timers); null: not asleep. */
  wakeAt: text("wake_at"),
});

/**
 * The journal of a run (domain/processes/run-journal.ts): each tool call it
 * made, in issue order (`call_index`), written before the call reaches its
 * adapter (`state` `started`) and again with its answer (`ok` or `error`,
 * `payload` the result or the error as JSON), and what its environment
 * recorded of the values the program read (`kind` `replay`, `payload` a JSON
 * array of the environment's entries). A resumed run is answered from it.
 * Deleted with its execution.
 */
export const runJournal = sqliteTable(
  "run_journal",
  {
    executionId: integer("execution_id")
      .notNull()
      .references(() => executions.id, { onDelete: "cascade" }),
    /** The order entries were written in, per run. */
    seq: integer("seq").notNull(),
    kind: text("kind", { enum: ["call", "replay"] }).notNull(),
    callIndex: integer("call_index"),
    /** SHA-256 (hex) of the call's service, tool and parameters (canonical JSON). */
    digest: text("digest"),
    serviceId: text("service_id"),
    toolId: text("tool_id"),
    state: text("state", { enum: ["started", "ok", "error"] }),
    payload: text("payload"),
  },
  (table) => [
    primaryKey({ columns: [table.executionId, table.seq] }),
    uniqueIndex("run_journal_call_idx").on(table.executionId, table.callIndex),
  ],
);

/** Registries added by the operator: the validated well-known document of each. */
export const registries = sqliteTable("registries", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Base URL the well-known document was fetched from. */
  url: text("url").notNull(),
  definitionsUrl: text("definitions_url"),
  modulesUrl: text("modules_url"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/**
 * API keys an operator created (`CYRNEL_API_KEY` is never stored). Only the
 * SHA-256 of a key is kept; requests look keys up by it. Revoking keeps
 * the row with `revoked_at` set, so the key is still listed (as revoked) and
 * the ids on processes and call records keep a name; every lookup that
 * authenticates or counts keys skips revoked rows.
 */
export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  role: text("role", { enum: ["admin", "agent"] }).notNull(),
  /** Service ids the key may reach; null = all. */
  services: text("services", { mode: "json" }).$type<string[]>(),
  /** SHA-256 (hex) of the key. */
  hash: text("hash").notNull().unique(),
  createdAt: text("created_at").notNull(),
  expiresAt: text("expires_at"),
  lastUsedAt: text("last_used_at"),
  /** When the key was revoked; null = live. A revoked key is refused as an unknown one. */
  revokedAt: text("revoked_at"),
  /** Who revoked it: a key id, `bootstrap` for CYRNEL_API_KEY or `oauth:<sub>`; null while live. */
  revokedBy: text("revoked_by"),
});

/**
 * OAuth subjects (`oauth:<sub>`): the grants and expiry of the latest access token seen of each, which its
 * processes' tool calls are checked against (no token is stored).
 */
export const oauthSubjects = sqliteTable("oauth_subjects", {
  id: text("id").primaryKey(),
  role: text("role", { enum: ["admin", "agent"] }).notNull(),
  /** Service ids the subject may reach; null = all. */
  services: text("services", { mode: "json" }).$type<string[]>(),
  expiresAt: text("expires_at").notNull(),
  seenAt: text("seen_at").notNull(),
});

type PolicyAction = "allow" | "ask" | "deny";

/**
 * A service's tool policy, when the operator set one (a service without a
 * row allows every call). Kept apart from the service's row so updates of
 * its definition never touch it; deleted with the service.
 */
export const servicePolicies = sqliteTable("service_policies", {
  serviceId: text("service_id")
    .primaryKey()
    .references(() => services.id, { onDelete: "cascade" }),
  defaultAction: text("default_action", { enum: ["allow", "ask", "deny"] }).notNull(),
  /** `[{tools?, readOnly?, destructive?, action}]`, first match wins. */
  rules: text("rules", { mode: "json" })
    .$type<{ tools?: string; readOnly?: boolean; destructive?: boolean; action: PolicyAction }[]>()
    .notNull(),
  /** How long a call waits for an operator's decision; null: CYRNEL_APPROVAL_TIMEOUT_MS. */
  approvalTimeoutMs: integer("approval_timeout_ms"),
  updatedAt: text("updated_at").notNull(),
});

/**
 * Calls that waited for an operator's decision (an `ask` policy). Kept as
 * a record after the process is gone: no foreign keys.
 */
export const approvals = sqliteTable(
  "approvals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    processId: integer("process_id").notNull(),
    keyId: text("key_id"),
    serviceId: text("service_id").notNull(),
    toolId: text("tool_id").notNull(),
    /**
     * The call's parameters with the service's secret values masked, whole (at most CYRNEL_BODY_LIMIT_BYTES of
     * JSON): what an operator reads before deciding. Only `GET /approvals/:id` reads this column; the call itself is
     * made with the unmasked value its waiting caller holds.
     */
    parameters: text("parameters", { mode: "json" }).$type<Json>().notNull(),
    /** What lists and events show instead: the value when its JSON fits 2048 characters, else the start of it, cut. */
    parametersPreview: text("parameters_preview", { mode: "json" }).$type<unknown>().notNull(),
    /** The size of `parameters`' JSON text in UTF-8 bytes, and its SHA-256 (hex). */
    parametersBytes: integer("parameters_bytes").notNull(),
    parametersSha256: text("parameters_sha256").notNull(),
    state: text("state", { enum: ["pending", "approved", "denied", "expired"] }).notNull(),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
    /** The deciding key's id; null for the bootstrap key (or no auth) and for expiries. */
    decidedBy: text("decided_by"),
    reason: text("reason"),
    /** What the operator is asked, when it is not the policy's usual question (a re-send after a crash); null: the usual. */
    question: text("question"),
    /** The run and the call (its issue order) that asked, so a resumed run finds its approval again; null: not from a journaled call. */
    executionId: integer("execution_id"),
    callIndex: integer("call_index"),
  },
  (table) => [index("approvals_state_idx").on(table.state), index("approvals_process_idx").on(table.processId)],
);

/**
 * One row per tool call, allowed or refused (the audit trail). Ids are
 * assigned by the host as calls end and written in batches; AUTOINCREMENT
 * keeps the highest id ever used, so pruning never lets one come back.
 */
export const calls = sqliteTable(
  "calls",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    processId: integer("process_id"),
    /** The run of the process the call belongs to (for its summary); not part of the API. */
    executionId: integer("execution_id"),
    keyId: text("key_id"),
    serviceId: text("service_id").notNull(),
    toolId: text("tool_id").notNull(),
    startedAt: text("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** `ok`, or the error code the call ended with. */
    outcome: text("outcome").notNull(),
    /** The end service's status when the adapter reported one. */
    status: integer("status"),
    /** The connection (connected account) whose token the call carried, or null. */
    connectionId: text("connection_id"),
    /** A preview of the parameters (secret values masked, at most 2 KiB of JSON): the value, or its cut JSON text. */
    parameters: text("parameters", { mode: "json" }).$type<unknown>().notNull(),
  },
  (table) => [
    index("calls_process_idx").on(table.processId, table.executionId),
    index("calls_started_idx").on(table.startedAt),
  ],
);

/**
 * The OAuth client an operator set up so a service's calls can act for a
 * connected account (domain/connections/). URLs and scopes left null are the
 * ones the definition declares. The client secret is in `secrets` (owner
 * `service-oauth`). Deleted with the service.
 */
export const serviceOAuth = sqliteTable("service_oauth", {
  serviceId: text("service_id")
    .primaryKey()
    .references(() => services.id, { onDelete: "cascade" }),
  clientId: text("client_id").notNull(),
  authorizationUrl: text("authorization_url"),
  tokenUrl: text("token_url"),
  revocationUrl: text("revocation_url"),
  scopes: text("scopes", { mode: "json" }).$type<string[]>(),
  /** Extra parameters of the authorization request (e.g. Google's `access_type=offline`). */
  authorizationParams: text("authorization_params", { mode: "json" }).$type<Record<string, string>>().notNull(),
  credentials: text("credentials", { enum: ["shared", "per-caller"] }).notNull(),
  updatedAt: text("updated_at").notNull(),
});

/**
 * A connected account of a service: `owner` is `shared` or the caller
 * (key id, `oauth:<sub>`, `bootstrap`) it acts for. Its tokens are in
 * `secrets` (owner `connection`, this id), sealed like every secret.
 */
export const connections = sqliteTable(
  "connections",
  {
    id: text("id").primaryKey(),
    serviceId: text("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    owner: text("owner").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** When the access token expires (ISO), or null when the provider did not say. */
    expiresAt: text("expires_at"),
    refreshable: integer("refreshable", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
    refreshedAt: text("refreshed_at"),
  },
  (table) => [uniqueIndex("connections_owner_idx").on(table.serviceId, table.owner)],
);

/**
 * Authorization requests under way: the SHA-256 of their single-use
 * `state`, and the PKCE verifier sealed with the secrets key. Taken (deleted)
 * by the callback; expired ones are pruned.
 */
export const connectionRequests = sqliteTable(
  "connection_requests",
  {
    stateHash: text("state_hash").primaryKey(),
    serviceId: text("service_id")
      .notNull()
      .references(() => services.id, { onDelete: "cascade" }),
    owner: text("owner").notNull(),
    verifier: text("verifier").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [index("connection_requests_expiry_idx").on(table.expiresAt)],
);
