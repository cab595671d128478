/**
 * The tracing seam (tracing.ts) on the OpenTelemetry JS SDK: spans exported
 * in batches over OTLP/HTTP (protobuf) to the collector the `OTEL_*`
 * variables name. Imported only by load-tracing.ts, and only when traces
 * are configured: a host without them never loads a module of
 * `@opentelemetry/*`.
 *
 * The context travels in `AsyncLocalStorage` (the SDK's async-hooks context
 * manager), so a span started inside `run(...)` is a child of the running
 * one without being passed around; the W3C trace-context propagator reads
 * and writes `traceparent`/`tracestate`. Both are registered globally, so a
 * custom module that uses `@opentelemetry/api` itself joins the same traces.
 *
 * Attributes never carry code, parameters, output, URLs' paths or queries
 * (a path or query can hold parameters and secrets), or key secrets: a
 * caller is its key's id.
 */

import type { CallTrace, OutboundRequestInfo, OutboundResult, OutboundSpan } from "@cyrnel/sdk";
import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_SCHEME,
} from "@opentelemetry/semantic-conventions";
import type { TracesConfig } from "../config-traces.js";
import type {
  ApprovalSpan,
  CallEnd,
  CallInfo,
  CallSpan,
  RequestSpan,
  RunInfo,
  RunSpan,
  TraceCarrier,
  TraceIds,
  Tracing,
} from "./tracing.js";

/** The key id a span names for the bootstrap caller (`CYRNEL_API_KEY`, or a host without keys). */
const BOOTSTRAP_KEY = "(bootstrap)";

export function createOtelTracing(config: TracesConfig, hostVersion: string): Tracing {
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: hostVersion,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(config),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: config.batchDelayMs }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer("cyrnel", hostVersion);

  const headersOf = (span: Span): Record<string, string> => {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(context.active(), span), carrier, {
      set: (target, key, value) => {
        target[key] = value;
      },
    });
    return carrier;
  };
  const fromCarrier = (carrier: TraceCarrier | null): Context =>
    carrier === null ? context.active() : propagator.extract(context.active(), carrier, CARRIER_GETTER);

  return {
    enabled: true,
    request(method, header): RequestSpan {
      const parent = propagator.extract(context.active(), header, {
        get: (read, key) => read(key),
        keys: () => [],
      });
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } },
        parent,
      );
      const active = trace.setSpan(parent, span);
      return {
        run: (work) => context.with(active, work),
        end(route, status) {
          if (route !== undefined) {
            span.setAttribute(ATTR_HTTP_ROUTE, route);
            span.updateName(`${method} ${route}`);
          }
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    carrier(): TraceCarrier | null {
      const carrier: Partial<TraceCarrier> = {};
      propagator.inject(context.active(), carrier, {
        set: (target, key, value) => {
          (target as Record<string, string>)[key] = value;
        },
      });
      return carrier.traceparent === undefined ? null : (carrier as TraceCarrier);
    },
    startRun(info: RunInfo): RunSpan {
      const span = tracer.startSpan(
        "cyrnel.run",
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            "cyrnel.process.id": info.processId,
            "cyrnel.run.id": info.executionId,
            "cyrnel.environment": info.environmentId,
            "cyrnel.caller.key_id": info.keyId ?? BOOTSTRAP_KEY,
          },
        },
        fromCarrier(info.parent),
      );
      return new OtelRunSpan(span);
    },
    startCall(run: RunSpan | undefined, info: CallInfo): CallSpan {
      const parent = run instanceof OtelRunSpan ? trace.setSpan(context.active(), run.span) : context.active();
      const attributes: Attributes = {
        "cyrnel.service": info.serviceId,
        "cyrnel.tool": info.toolId,
        "cyrnel.caller.key_id": info.keyId ?? BOOTSTRAP_KEY,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": `${info.serviceId}.${info.toolId}`,
      };
      if (info.processId !== null) attributes["cyrnel.process.id"] = info.processId;
      if (info.executionId !== null) attributes["cyrnel.run.id"] = info.executionId;
      const span = tracer.startSpan(
        `execute_tool ${info.serviceId}.${info.toolId}`,
        { kind: SpanKind.INTERNAL, attributes },
        parent,
      );
      const active = trace.setSpan(parent, span);
      const adapterTrace: CallTrace = {
        request: (request) =>
          outboundSpan(tracer.startSpan(...outboundStart(request), active), request.protocol, headersOf),
      };
      return {
        run: (work) => context.with(active, work),
        approvalWait(): ApprovalSpan {
          const wait = tracer.startSpan("approval.wait", { kind: SpanKind.INTERNAL }, active);
          return {
            end(decision) {
              wait.setAttribute("cyrnel.approval.decision", decision);
              wait.end();
            },
          };
        },
        adapterTrace,
        end(end: CallEnd) {
          span.setAttribute("cyrnel.outcome", end.outcome);
          if (end.status !== null) span.setAttribute("cyrnel.upstream.status", end.status);
          if (end.policy !== null) span.setAttribute("cyrnel.policy", end.policy);
          if (end.outcome !== "ok") {
            span.setAttribute(ATTR_ERROR_TYPE, end.outcome);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    currentIds(): TraceIds | null {
      const span = trace.getSpan(context.active());
      if (span === undefined) return null;
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

class OtelRunSpan implements RunSpan {
  constructor(readonly span: Span) {}
  end(exitState: string, error: string | null): void {
    this.span.setAttribute("cyrnel.exit_state", exitState);
    if (exitState !== "success") {
      this.span.setStatus({ code: SpanStatusCode.ERROR, ...(error === null ? {} : { message: error.slice(0, 256) }) });
    }
    this.span.end();
  }
}

/** The name and options of an outbound request's span, from what the adapter said of it. */
function outboundStart(request: OutboundRequestInfo): [string, { kind: SpanKind; attributes: Attributes }] {
  const attributes: Attributes = { "cyrnel.outbound.protocol": request.protocol };
  const origin = originOf(request.url);
  if (origin !== null) {
    attributes[ATTR_URL_SCHEME] = origin.scheme;
    attributes[ATTR_SERVER_ADDRESS] = origin.address;
    if (origin.port !== null) attributes[ATTR_SERVER_PORT] = origin.port;
  }
  let name: string;
  if (request.protocol === "http") {
    attributes[ATTR_HTTP_REQUEST_METHOD] = request.method;
    if (request.route !== undefined) attributes["url.template"] = request.route;
    name = request.route === undefined ? request.method : `${request.method} ${request.route}`;
  } else if (request.protocol === "grpc") {
    attributes["rpc.system"] = "grpc";
    attributes["rpc.method"] = request.method;
    name = request.method.replace(/^\//, "");
  } else {
    if (request.protocol === "mcp") attributes["mcp.method.name"] = request.method;
    if (request.route !== undefined) attributes["cyrnel.outbound.route"] = request.route;
    name = request.route === undefined ? request.method : `${request.method} ${request.route}`;
  }
  return [name, { kind: SpanKind.CLIENT, attributes }];
}

function outboundSpan(span: Span, protocol: string, headersOf: (span: Span) => Record<string, string>): OutboundSpan {
  let ended = false;
  return {
    headers: Object.freeze(headersOf(span)),
    end(result: OutboundResult = {}) {
      if (ended) return;
      ended = true;
      if (result.status !== undefined) {
        span.setAttribute(protocol === "grpc" ? "rpc.grpc.status_code" : ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
      }
      const failed =
        result.error !== undefined ||
        (result.status !== undefined && (protocol === "grpc" ? result.status !== 0 : result.status >= 400));
      if (failed) {
        span.setAttribute(ATTR_ERROR_TYPE, result.error instanceof Error ? result.error.name : String(result.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

/** The scheme, host and port of a URL; null for none or one that does not parse. */
function originOf(url: string | undefined): { scheme: string; address: string; port: number | null } | null {
  if (url === undefined) return null;
  try {
    const parsed = new URL(url);
    const scheme = parsed.protocol.replace(/:$/, "");
    const port = parsed.port === "" ? null : Number(parsed.port);
    return { scheme, address: parsed.hostname.replace(/^\[|\]$/g, ""), port };
  } catch {
    return null;
  }
}

function samplerOf(config: TracesConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio;
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio });
  }
}

const CARRIER_GETTER = {
  get: (carrier: TraceCarrier, key: string) =>
    key === "traceparent" || key === "tracestate" ? carrier[key] : undefined,
  keys: () => ["traceparent", "tracestate"],
};
