/**
 * Tracing a tool call's outbound requests (a cyrnel extension). A host that
 * traces calls (cyrnel's, with OpenTelemetry enabled) sets
 * `InvokeInput.trace`; an adapter asks it, through {@link traceOutbound},
 * for the span of each request it sends upstream, adds the headers it gets
 * (the W3C `traceparent`, and `tracestate` when the caller sent one) to that
 * request, and ends the span with the upstream's answer. The request then
 * shows in the trace as a child of the tool call, and the end service's own
 * spans as children of the request.
 *
 * Adapters stay free of any tracing library: the host owns the spans, the
 * adapter only names the request and forwards two headers. On a host that
 * does not trace (or an older host), `InvokeInput.trace` is absent and
 * {@link traceOutbound} answers a span that sends no headers and records
 * nothing, so an adapter calls it unconditionally.
 */
import type { InvokeInput } from "./definitions.js";

/** One outbound request of a tool call, as the adapter names it. */
export interface OutboundRequestInfo {
  /** The protocol: `"http"`, `"grpc"`, `"mcp"`, or another word for a custom one. */
  protocol: string;
  /** HTTP: the method (`"GET"`); gRPC: the full method (`"/pkg.Service/Method"`); MCP: the JSON-RPC method (`"tools/call"`). */
  method: string;
  /**
   * Where the request goes (`"https://api.example.com/v1/items"`, `"grpc://10.0.0.5:50051"`). The host keeps only
   * its origin (scheme, host, port): a path or query can carry parameters and secrets.
   */
  url?: string;
  /** What is called, without parameters: an HTTP path template (`"/pets/{petId}"`), an MCP tool's name. */
  route?: string;
}

/** The end of an outbound request, as far as the adapter knows it. */
export interface OutboundResult {
  /** The upstream's status: an HTTP status code, a gRPC status code. */
  status?: number;
  /** Why the request failed without an answer (or with one the adapter treats as a failure). */
  error?: unknown;
}

/** The span of one outbound request. */
export interface OutboundSpan {
  /** Headers (gRPC: metadata) to send with the request: `traceparent`, and `tracestate` if any; empty when untraced. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request ended; later calls change nothing. Call it however the request ends, or the span is never sent. */
  end(result?: OutboundResult): void;
}

/** What the host hands an adapter on `InvokeInput.trace`: starts the span of one outbound request of the call. */
export interface CallTrace {
  request(info: OutboundRequestInfo): OutboundSpan;
}

const UNTRACED: OutboundSpan = Object.freeze({ headers: Object.freeze({}), end() {} });

/**
 * The span of one outbound request of the call `input` (see the module
 * comment): send its `headers`, then `end()` it with the upstream's answer.
 * Call it once per request the call sends (a retry is another request).
 * Without `input.trace` it answers a span with no headers that records
 * nothing, at no cost.
 */
export function traceOutbound(input: Pick<InvokeInput, "trace">, info: OutboundRequestInfo): OutboundSpan {
  const trace = input.trace;
  if (trace === undefined) return UNTRACED;
  try {
    return trace.request(info);
  } catch {
    // Tracing must never fail a call.
    return UNTRACED;
  }
}
