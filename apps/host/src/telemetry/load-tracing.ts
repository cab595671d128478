/**
 * The tracing the host runs with: {@link NO_TRACING} when no `OTEL_*`
 * variable turns traces on, else the OpenTelemetry SDK, imported here and
 * only here (a dynamic import, so a host without traces never loads it).
 */
import type { TracesConfig } from "../config-traces.js";
import type { TraceIdsOf } from "../log.js";
import { NO_TRACING, type Tracing } from "./tracing.js";

export async function loadTracing(config: TracesConfig | null, hostVersion: string): Promise<Tracing> {
  if (config === null) return NO_TRACING;
  const { createOtelTracing } = await import("./otel-tracing.js");
  return createOtelTracing(config, hostVersion);
}

/** What the logger asks for the ids of each line: nothing at all when the host does not trace. */
export function traceIdsOf(tracing: Tracing): TraceIdsOf | undefined {
  return tracing.enabled ? () => tracing.currentIds() : undefined;
}
