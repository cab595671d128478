/**
 * The host's tracing seam: what the HTTP layer, the process runs and the
 * tool gate tell about their work, whatever does (or does not) record it.
 *
 * Callers use it unconditionally. With no `OTEL_*` variable set the host
 * holds {@link NO_TRACING}, whose every method returns a shared frozen
 * object or null: no OpenTelemetry module is imported (load-tracing.ts
 * imports otel-tracing.ts only when traces are configured), and the hot
 * path pays a few property reads per tool call. Nothing here may throw into
 * a caller: tracing never fails a request, a run or a call.
 *
 * The spans (see docs/operating.md, "Traces"): an HTTP request → a process
 * run (parented by the request that created it, across hosts through the
 * trace context stored with the run) → a tool call → its approval wait and
 * the adapter's outbound requests (the SDK's `traceOutbound`).
 */
import type { CallTrace } from "@cyrnel/sdk";

/** A W3C trace context as carried between hosts and stored with a run: the `traceparent` and `tracestate` values. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** The ids a log line written inside a traced context carries. */
export interface TraceIds {
  traceId: string;
  spanId: string;
}

/** One HTTP request being served. */
export interface RequestSpan {
  /** Runs the rest of the request inside the span (spans started meanwhile are its children). */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** `route`: the matched route's template (`/processes/:id`), never the path with its ids. */
  end(route: string | undefined, status: number): void;
}

/** What a run's span says about the run; never its code, parameters or output. */
export interface RunInfo {
  processId: number;
  executionId: number;
  environmentId: string;
  /** The process's key (who its calls run as); null for the bootstrap caller. */
  keyId: string | null;
  /** The context the run continues: the request that created it, possibly on another host. */
  parent: TraceCarrier | null;
}

/** A run's span, from its hand-over to the environment until its final row is written. */
export interface RunSpan {
  end(exitState: string, error: string | null): void;
}

/** What a tool call's span says. */
export interface CallInfo {
  serviceId: string;
  toolId: string;
  keyId: string | null;
  processId: number | null;
  executionId: number | null;
}

/** How a tool call ended. */
export interface CallEnd {
  /** `ok` or the error code (`adapter_error`, `approval_denied`, …). */
  outcome: string;
  /** The end service's status, when the adapter reported one. */
  status: number | null;
  /** The policy action the call met (`allow`, `ask`, `deny`), once the gate knew it. */
  policy: string | null;
}

/** The span of an approval wait. */
export interface ApprovalSpan {
  /** `approved`, or the code the wait ended with (`approval_denied`, `approval_expired`, …). */
  end(decision: string): void;
}

/** A tool call's span. */
export interface CallSpan {
  /** Runs the call's work inside the span: log lines and spans started meanwhile belong to it. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Starts the span of the wait for an operator's decision (a child, kept apart from the upstream's time). */
  approvalWait(): ApprovalSpan;
  /** What the adapter gets as `InvokeInput.trace`; absent when the call is not traced. */
  readonly adapterTrace: CallTrace | undefined;
  end(end: CallEnd): void;
}

export interface Tracing {
  /** Whether spans are recorded (the OpenTelemetry SDK is loaded). */
  readonly enabled: boolean;
  /** An HTTP request's span, continuing the caller's `traceparent`; null when not tracing. */
  request(method: string, header: (name: string) => string | undefined): RequestSpan | null;
  /** The current context as a carrier, to store with a run that may start later or elsewhere; null when none. */
  carrier(): TraceCarrier | null;
  startRun(info: RunInfo): RunSpan;
  /**
   * A tool call's span: a child of `run` (a call from code) or, without one, of the current context (a direct
   * invoke, inside its HTTP request's span).
   */
  startCall(run: RunSpan | undefined, info: CallInfo): CallSpan;
  /** The ids of the current span, for log lines; null outside a traced context. */
  currentIds(): TraceIds | null;
  /** Sends what is buffered and stops (host shutdown). */
  shutdown(): Promise<void>;
}

const NO_RUN_SPAN: RunSpan = Object.freeze({ end() {} });
const NO_APPROVAL_SPAN: ApprovalSpan = Object.freeze({ end() {} });
const NO_CALL_SPAN: CallSpan = Object.freeze({
  run: <T>(work: () => Promise<T>) => work(),
  approvalWait: () => NO_APPROVAL_SPAN,
  adapterTrace: undefined,
  end() {},
});

/** Tracing off: nothing is recorded, nothing is loaded, every method answers a shared constant. */
export const NO_TRACING: Tracing = Object.freeze({
  enabled: false,
  request: () => null,
  carrier: () => null,
  startRun: () => NO_RUN_SPAN,
  startCall: () => NO_CALL_SPAN,
  currentIds: () => null,
  shutdown: async () => {},
});
