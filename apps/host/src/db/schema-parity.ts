/**
 * Compile-time checks that keep the two schemas and the domain's row types
 * in step. The stores are written once, typed against schema-pg.ts, and run
 * on schema.ts's tables on SQLite (dialect.ts): that is sound only while
 * each table reads and writes the same TypeScript types on both dialects.
 * A column added to one schema and not the other, or typed differently, or
 * a row type of the domain that drifts from the tables, fails `tsc` here.
 * PostgreSQL's own columns (the folded copies and search documents of
 * services and tools, the process queue's columns of executions) are left
 * out: only the dialect's hooks write them.
 */
import type { InferSelectModel, Table } from "drizzle-orm";
import type { ConnectionRequestRow, ConnectionRow, ServiceOAuthRow } from "../domain/connections/connection-store.js";
import type { ApprovalRow } from "../domain/governance/approval-store.js";
import type { CallRow } from "../domain/governance/call-store.js";
import type { KeyRow } from "../domain/governance/key-store.js";
import type { OAuthSubjectRow } from "../domain/governance/oauth-subject-store.js";
import type { ModuleRow } from "../domain/modules/module-store.js";
import type { ProcessRow } from "../domain/processes/process-store.js";
import type { RegistryRow } from "../domain/registries/registry-store.js";
import type { SecretRow } from "../domain/secrets/secret-store.js";
import type { StoredService, StoredTool } from "../domain/services/service-store.js";
import type * as sqlite from "./schema.js";
import type * as pg from "./schema-pg.js";

/** Each assignable to the other (so `string` never passes for an enum, nor `null` for a required value). */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The same keys, optional alike, each of the same type. */
type Equal<A, B> =
  Mutual<keyof A, keyof B> extends true
    ? Mutual<{ [K in keyof A]-?: [A[K]] }, { [K in keyof B]-?: [B[K]] }> extends true
      ? Mutual<A, B>
      : false
    : false;
type Assert<T extends true> = T;

/** The same rows to read and to write, on both dialects, but for PostgreSQL's own columns `Own`. */
type SameRead<S extends Table, P extends Table, Own extends string = never> = Equal<
  S["$inferSelect"],
  Omit<P["$inferSelect"], Own>
>;
/** Writes the same, but for ids the database gives (an identity column on PostgreSQL is never written). */
type SameWrite<S extends Table, P extends Table, Own extends string = never> = Equal<
  Omit<S["$inferInsert"], "id">,
  Omit<P["$inferInsert"], Own | "id">
>;

type PgToolColumns =
  | "rowId"
  | "nameFold"
  | "descriptionFold"
  | "searchIdWords"
  | "searchEndpointWords"
  | "searchMain"
  | "searchMainLength"
  | "searchDescription"
  | "searchDescriptionLength"
  | "searchValues"
  | "searchValuesLength";
type PgExecutionColumns =
  | "typecheck"
  | "enqueuedAt"
  | "claimedBy"
  | "claimedAt"
  | "killRequested"
  | "traceparent"
  | "tracestate";

export type SchemaParity = [
  Assert<SameRead<typeof sqlite.modules, typeof pg.modules>>,
  Assert<SameWrite<typeof sqlite.modules, typeof pg.modules>>,
  Assert<SameRead<typeof sqlite.services, typeof pg.services, "idFold" | "nameFold" | "descriptionFold">>,
  Assert<SameWrite<typeof sqlite.services, typeof pg.services, "idFold" | "nameFold" | "descriptionFold">>,
  Assert<SameRead<typeof sqlite.tools, typeof pg.tools, PgToolColumns>>,
  Assert<SameWrite<typeof sqlite.tools, typeof pg.tools, PgToolColumns>>,
  Assert<SameRead<typeof sqlite.secrets, typeof pg.secrets>>,
  Assert<SameWrite<typeof sqlite.secrets, typeof pg.secrets>>,
  Assert<SameRead<typeof sqlite.processes, typeof pg.processes>>,
  Assert<SameWrite<typeof sqlite.processes, typeof pg.processes>>,
  Assert<SameRead<typeof sqlite.executions, typeof pg.executions, PgExecutionColumns>>,
  Assert<SameWrite<typeof sqlite.executions, typeof pg.executions, PgExecutionColumns>>,
  Assert<SameRead<typeof sqlite.registries, typeof pg.registries>>,
  Assert<SameWrite<typeof sqlite.registries, typeof pg.registries>>,
  Assert<SameRead<typeof sqlite.apiKeys, typeof pg.apiKeys>>,
  Assert<SameWrite<typeof sqlite.apiKeys, typeof pg.apiKeys>>,
  Assert<SameRead<typeof sqlite.oauthSubjects, typeof pg.oauthSubjects>>,
  Assert<SameWrite<typeof sqlite.oauthSubjects, typeof pg.oauthSubjects>>,
  Assert<SameRead<typeof sqlite.servicePolicies, typeof pg.servicePolicies>>,
  Assert<SameWrite<typeof sqlite.servicePolicies, typeof pg.servicePolicies>>,
  Assert<SameRead<typeof sqlite.approvals, typeof pg.approvals>>,
  Assert<SameWrite<typeof sqlite.approvals, typeof pg.approvals>>,
  Assert<SameRead<typeof sqlite.calls, typeof pg.calls>>,
  Assert<SameWrite<typeof sqlite.calls, typeof pg.calls>>,
  Assert<SameRead<typeof sqlite.serviceOAuth, typeof pg.serviceOAuth>>,
  Assert<SameWrite<typeof sqlite.serviceOAuth, typeof pg.serviceOAuth>>,
  Assert<SameRead<typeof sqlite.toolInputOverrides, typeof pg.toolInputOverrides>>,
  Assert<SameWrite<typeof sqlite.toolInputOverrides, typeof pg.toolInputOverrides>>,
  Assert<SameRead<typeof sqlite.connections, typeof pg.connections>>,
  Assert<SameWrite<typeof sqlite.connections, typeof pg.connections>>,
  Assert<SameRead<typeof sqlite.connectionRequests, typeof pg.connectionRequests>>,
  Assert<SameWrite<typeof sqlite.connectionRequests, typeof pg.connectionRequests>>,
];

export type DomainRows = [
  Assert<Equal<StoredService, Omit<InferSelectModel<typeof pg.services>, "idFold" | "nameFold" | "descriptionFold">>>,
  Assert<Equal<StoredTool, Omit<InferSelectModel<typeof pg.tools>, PgToolColumns>>>,
  Assert<Equal<ProcessRow, InferSelectModel<typeof pg.processes>>>,
  Assert<Equal<CallRow, InferSelectModel<typeof pg.calls>>>,
  Assert<Equal<ModuleRow, InferSelectModel<typeof pg.modules>>>,
  Assert<Equal<SecretRow, InferSelectModel<typeof pg.secrets>>>,
  Assert<Equal<RegistryRow, InferSelectModel<typeof pg.registries>>>,
  Assert<Equal<KeyRow, InferSelectModel<typeof pg.apiKeys>>>,
  Assert<Equal<OAuthSubjectRow, InferSelectModel<typeof pg.oauthSubjects>>>,
  Assert<Equal<ApprovalRow, InferSelectModel<typeof pg.approvals>>>,
  Assert<Equal<ServiceOAuthRow, InferSelectModel<typeof pg.serviceOAuth>>>,
  Assert<Equal<ConnectionRow, InferSelectModel<typeof pg.connections>>>,
  Assert<Equal<ConnectionRequestRow, InferSelectModel<typeof pg.connectionRequests>>>,
];
