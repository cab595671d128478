/**
 * An OTLP/HTTP trace receiver for tests: a node:http server taking
 * `POST /v1/traces` with protobuf bodies, as a collector does, decoding each
 * with protobufjs and keeping every span.
 *
 * The schema is the part of the OTLP trace protocol the tests read
 * (`ExportTraceServiceRequest` and what it holds), declared here with
 * opentelemetry-proto's package, message and field numbers: no npm package
 * of the current SDK ships the `.proto` files (the exporter encodes with a
 * hand-written serializer), and only years-old deprecated exporters do.
 * Fields the tests do not read are skipped by the decoder, as protobuf
 * allows; a wrong number here would decode garbage and fail the tests.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0; SPAN_KIND_INTERNAL = 1; SPAN_KIND_SERVER = 2; SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4; SPAN_KIND_CONSUMER = 5;
  }
}
message Status { string message = 2; StatusCode code = 3;
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; } }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
`;

const request = protobuf
  .parse(OTLP_TRACE_PROTO)
  .root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");

/** A span as received, ids in lower-case hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  kind: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  status: string;
  /** The resource's `service.name`. */
  service: string;
}

export interface OtlpReceiver {
  /** The base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`): the exporter appends `/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received, and the content types they came with. */
  requests: { contentType: string | undefined; bytes: number }[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      requests.push({ contentType: req.headers["content-type"], bytes: body.length });
      spans.push(...decode(body));
      // An empty ExportTraceServiceResponse: all accepted.
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decode(body: Buffer): ReceivedSpan[] {
  const message = request.toObject(request.decode(body), {
    longs: String,
    enums: String,
    bytes: Array,
    defaults: true,
    oneofs: true,
  }) as { resourceSpans: Record<string, any>[] };
  return message.resourceSpans.flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes ?? [])["service.name"] ?? "");
    return (resourceSpans.scopeSpans as Record<string, any>[]).flatMap((scope) =>
      (scope.spans as Record<string, any>[]).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: String(span.kind).replace("SPAN_KIND_", "").toLowerCase(),
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        status: String(span.status?.code ?? "STATUS_CODE_UNSET")
          .replace("STATUS_CODE_", "")
          .toLowerCase(),
        service,
      })),
    );
  });
}

function attributesOf(list: { key: string; value?: Record<string, unknown> }[]): ReceivedSpan["attributes"] {
  const out: ReceivedSpan["attributes"] = {};
  for (const { key, value } of list) {
    if (value?.stringValue !== undefined && value.value === "stringValue") out[key] = String(value.stringValue);
    else if (value?.intValue !== undefined && value.value === "intValue") out[key] = Number(value.intValue);
    else if (value?.boolValue !== undefined && value.value === "boolValue") out[key] = Boolean(value.boolValue);
    else if (value?.doubleValue !== undefined && value.value === "doubleValue") out[key] = Number(value.doubleValue);
  }
  return out;
}

function hex(bytes: number[] | undefined): string {
  return Buffer.from(bytes ?? []).toString("hex");
}
