import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { loadTracesConfig } from "./config-traces.js";

describe("loadTracesConfig", () => {
  it.each([
    [{}, null],
    [{ OTEL_SERVICE_NAME: "x" }, null],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }, null],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }, null],
  ])("is off for %j", (env, expected) => {
    expect(loadTracesConfig(env)).toBe(expected);
  });

  it.each([
    { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" },
    { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" },
    { OTEL_TRACES_EXPORTER: "otlp" },
  ])("is on for %j, with the defaults", (env) => {
    expect(loadTracesConfig(env)).toEqual({
      serviceName: "cyrnel",
      sampler: "parentbased_always_on",
      samplerRatio: 1,
      batchDelayMs: 5000,
    });
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: "zipkin" }, "OTEL_TRACES_EXPORTER"],
    [{ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_PROTOCOL"],
    [{ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER"],
    [{ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER_ARG: "2" }, "OTEL_TRACES_SAMPLER_ARG"],
    [{ OTEL_TRACES_EXPORTER: "otlp", OTEL_BSP_SCHEDULE_DELAY: "soon" }, "OTEL_BSP_SCHEDULE_DELAY"],
  ])("refuses %j, naming %s", (env, variable) => {
    expect(() => loadTracesConfig(env)).toThrow(ConfigError);
    expect(() => loadTracesConfig(env)).toThrow(variable);
  });
});
