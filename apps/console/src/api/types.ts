/** Names for the API's shapes, taken from the generated types so they follow the host's contract. */
import type { operations } from "./api-schema";

type Json<Op extends keyof operations, Status extends number> =
  operations[Op]["responses"] extends Record<Status, { content: { "application/json": infer Body } }> ? Body : never;

export type Health = Json<"health", 200>;
export type ServiceRecord = Json<"listServices", 200>["items"][number];
export type ServiceDetail = Json<"getService", 200>;
export type InstalledService = Json<"installService", 201>;
export type ToolRecord = Json<"listTools", 200>["items"][number];
export type ToolDetail = Json<"getTool", 200>;
export type ServicePolicy = Json<"getServicePolicy", 200>;
export type PolicyRule = ServicePolicy["rules"][number];
export type PolicyAction = ServicePolicy["default"];
export type ProcessRecord = Json<"getProcess", 200>;
export type ProcessState = ProcessRecord["state"];
export type ExitState = NonNullable<ProcessRecord["exitState"]>;
export type CallRecord = Json<"listCalls", 200>["items"][number];
export type OAuthSettings = Json<"getServiceOAuth", 200>;
export type Connection = Json<"listConnections", 200>["items"][number];
/** One approval with its parameters whole (`GET /approvals/{id}`). */
export type Approval = Json<"getApproval", 200>;
/** An approval as lists, events and decisions carry it: `parameters` is a preview (a string when cut). */
export type ApprovalSummary = Json<"approveApproval", 200>;
/** A list's approval: the summary, when a pending one expires, and its tool's annotations. */
export type ApprovalListItem = Json<"listApprovals", 200>["items"][number];
export type BulkDecision = Json<"decideApprovals", 200>;
export type KeyRecord = Json<"listKeys", 200>["items"][number];
export type CreatedKey = Json<"createKey", 201>;
export type ModuleRecord = Json<"listModules", 200>["items"][number];
export type ModuleDetail = Json<"getModule", 200>;
export type RegistryRecord = Json<"listRegistries", 200>["items"][number];
export type IndexItem = Json<"browseRegistryDefinitions", 200>["items"][number];
/** One line of GET /processes/{id}/events. */
export type ProcessEvent = operations["followProcess"]["responses"][200]["content"]["application/x-ndjson"];
