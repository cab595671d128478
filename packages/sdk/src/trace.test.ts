import { describe, expect, it } from "vitest";
import type { CallTrace } from "./trace.js";
import { traceOutbound } from "./trace.js";

describe("traceOutbound", () => {
  it("answers a span that sends nothing and records nothing when the host does not trace", () => {
    const span = traceOutbound({}, { protocol: "http", method: "GET" });
    expect(span.headers).toEqual({});
    expect(() => span.end({ status: 200 })).not.toThrow();
  });

  it("asks the host's trace for the request's span, and never lets a failing one fail the call", () => {
    const seen: unknown[] = [];
    const trace: CallTrace = {
      request: (info) => {
        seen.push(info);
        return { headers: { traceparent: "00-aa-bb-01" }, end: (result) => seen.push(result) };
      },
    };
    const span = traceOutbound({ trace }, { protocol: "grpc", method: "/pkg.S/M", url: "grpc://h:1" });
    expect(span.headers).toEqual({ traceparent: "00-aa-bb-01" });
    span.end({ status: 0 });
    expect(seen).toEqual([{ protocol: "grpc", method: "/pkg.S/M", url: "grpc://h:1" }, { status: 0 }]);
    const broken: CallTrace = {
      request: () => {
        throw new Error("tracing bug");
      },
    };
    expect(traceOutbound({ trace: broken }, { protocol: "http", method: "GET" }).headers).toEqual({});
  });
});
