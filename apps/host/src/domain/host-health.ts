/**
 * What `GET /health` reports beyond "the host answers": whether processes
 * can run. Cheap by design — it is polled, and must answer while the host is
 * busy: with an environment active it only asks that module's synchronous
 * `health()`, which reads state the module already keeps.
 */
import type { EnvironmentHealth } from "@cyrnel/sdk";
import { messageOf } from "../errors.js";
import type { ModuleEntries } from "./modules/module-entries.js";

export interface HostHealth {
  status: "ok" | "degraded";
  /** Why processes cannot run normally; empty when `ok`. */
  reasons: string[];
}

/**
 * `storageFault`: why the database could not be written lately (unreachable, no space left), from
 * `StorageHealth`; null when writes succeed.
 */
export function hostHealth(
  modules: Pick<ModuleEntries, "activeEnvironment" | "list">,
  storageFault: string | null = null,
): HostHealth {
  const reasons = storageFault === null ? [] : [`storage: ${storageFault}`];
  const environment = modules.activeEnvironment();
  if (environment === null) {
    reasons.push("no environment module is active: processes cannot run");
    for (const record of modules.list({ type: "environment", enabled: true })) {
      if (record.error !== null) reasons.push(`environment "${record.id}" is enabled but failed: ${record.error}`);
    }
    return { status: "degraded", reasons };
  }
  const reported = environmentHealth(environment.module.health?.bind(environment.module));
  if (reported.status !== "ok") reasons.push(`environment "${environment.id}": ${reported.reason ?? "degraded"}`);
  return { status: reasons.length === 0 ? "ok" : "degraded", reasons };
}

/** Module code: whatever it returns or throws becomes a well-formed answer. */
function environmentHealth(health: (() => EnvironmentHealth) | undefined): EnvironmentHealth {
  if (health === undefined) return { status: "ok" };
  try {
    const reported: unknown = health();
    const { status, reason } = (reported ?? {}) as { status?: unknown; reason?: unknown };
    if (status === "ok") return { status: "ok" };
    if (status === "degraded") return { status, reason: typeof reason === "string" ? reason : undefined };
    return { status: "degraded", reason: `health() returned ${JSON.stringify(reported) ?? String(reported)}` };
  } catch (error) {
    return { status: "degraded", reason: `health() threw: ${messageOf(error)}` };
  }
}
