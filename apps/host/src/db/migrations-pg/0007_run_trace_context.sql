-- Traces (telemetry/tracing.ts): the W3C trace context a queued run continues, written with the run by the host
-- that queued it and read by the host that claims it, so the run's span is a child of the request that created it
-- on whichever host runs it. Only the queue needs it: on SQLite a run starts on the host that admitted it.
ALTER TABLE "executions" ADD COLUMN "traceparent" text;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "tracestate" text;