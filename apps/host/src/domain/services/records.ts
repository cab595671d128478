/** The API shapes of services and tools (`contract/`), built from store rows. */
import type { ServiceDetail, ServiceRecord } from "../../contract/services.js";
import type { ToolDetail, ToolRecord } from "../../contract/tools.js";
import type { PolicyAction } from "../governance/policy.js";
import type { ServiceRow, ToolRow, ToolSummaryRow } from "./service-store.js";

export function serviceRecord(row: ServiceRow): ServiceRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    adapter: row.adapter,
    source: row.source,
    version: row.version,
    hash: row.hash,
    enabled: row.enabled,
    stale: row.stale,
    toolCount: row.toolCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** `error`: why an enabled service is not running right now (null when it runs or is disabled). */
export function serviceDetail(row: ServiceRow, error: string | null = null): ServiceDetail {
  return {
    ...serviceRecord(row),
    staleReason: row.staleReason,
    error,
    configSchema: row.configSchema,
    secretsSchema: row.secretsSchema,
  };
}

/**
 * `policy`: the tool's effective action under its service's policy; `missingSecrets`: the secrets a call needs when
 * none of them is set (`ToolCredentials`).
 */
export function toolRecord(row: ToolSummaryRow, policy: PolicyAction, missingSecrets?: string[][]): ToolRecord {
  return {
    serviceId: row.serviceId,
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    effectivelyEnabled: row.enabled && row.serviceEnabled && !row.serviceStale,
    annotations: row.annotations,
    policy,
    ...(missingSecrets !== undefined && { missingSecrets }),
  };
}

export function toolDetail(row: ToolRow, policy: PolicyAction, missingSecrets?: string[][]): ToolDetail {
  return { ...toolRecord(row, policy, missingSecrets), inputSchema: row.inputSchema, outputSchema: row.outputSchema };
}
