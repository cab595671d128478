/**
 * The standard OpenTelemetry variables that decide whether the host sends
 * traces, parsed like the rest of the host's configuration and merged into
 * `HostConfig` (its `traces`). A leaf, so config.ts stays one.
 *
 * Traces are on when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER=otlp`,
 * unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`; off, the
 * host loads no OpenTelemetry module at all. The protocol is OTLP/HTTP with
 * protobuf (`http/protobuf`, the specification's default); `grpc` and
 * `http/json` are refused rather than silently ignored.
 *
 * Read here: whether traces are on, the sampler, the service name and the
 * batch delay (the SDK's 3.x packages no longer read these themselves).
 * The exporter reads its own `OTEL_EXPORTER_OTLP_*` variables (endpoint,
 * headers, timeout, compression, certificates) as the specification has it,
 * and `OTEL_RESOURCE_ATTRIBUTES` is read by the SDK's resource detector: the
 * two places the host lets a library read the environment.
 */
import { ConfigError } from "./config-error.js";

export const TRACE_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export interface TracesConfig {
  /** `OTEL_SERVICE_NAME`, default `cyrnel`. */
  serviceName: string;
  /** `OTEL_TRACES_SAMPLER`, default `parentbased_always_on`. */
  sampler: TraceSampler;
  /** `OTEL_TRACES_SAMPLER_ARG` for the ratio samplers, default 1. */
  samplerRatio: number;
  /** `OTEL_BSP_SCHEDULE_DELAY`: milliseconds between two exports of the spans that ended, default 5000. */
  batchDelayMs: number;
}

type Env = Record<string, string | undefined>;

/** The traces settings, or null when traces are off (nothing is loaded). */
export function loadTracesConfig(env: Env): TracesConfig | null {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  if (read("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return null;
  const exporter = read("OTEL_TRACES_EXPORTER")?.toLowerCase();
  if (exporter !== undefined && exporter !== "otlp" && exporter !== "none") {
    throw new ConfigError("OTEL_TRACES_EXPORTER", `"${exporter}" is not supported: use "otlp" or "none"`);
  }
  const endpoint = read("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? read("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (exporter === "none" || (exporter === undefined && endpoint === undefined)) return null;
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const protocol = read(name);
    if (protocol !== undefined && protocol !== "http/protobuf") {
      throw new ConfigError(name, `"${protocol}" is not supported: the host sends OTLP over HTTP as "http/protobuf"`);
    }
    if (protocol !== undefined) break;
  }
  const sampler = (read("OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on") as TraceSampler;
  if (!TRACE_SAMPLERS.includes(sampler)) {
    throw new ConfigError("OTEL_TRACES_SAMPLER", `must be one of ${TRACE_SAMPLERS.join(", ")}`);
  }
  const arg = read("OTEL_TRACES_SAMPLER_ARG");
  const samplerRatio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(samplerRatio) || samplerRatio < 0 || samplerRatio > 1) {
    throw new ConfigError("OTEL_TRACES_SAMPLER_ARG", "must be a number from 0 to 1");
  }
  const delay = read("OTEL_BSP_SCHEDULE_DELAY");
  const batchDelayMs = delay === undefined ? 5_000 : Number(delay);
  if (!Number.isInteger(batchDelayMs) || batchDelayMs < 1) {
    throw new ConfigError("OTEL_BSP_SCHEDULE_DELAY", "must be a whole number of milliseconds, at least 1");
  }
  return { serviceName: read("OTEL_SERVICE_NAME") ?? "cyrnel", sampler, samplerRatio, batchDelayMs };
}
