/**
 * The host's Prometheus metrics (`GET /metrics`), in a registry of its own
 * (never prom-client's global one: two hosts in one process, as the tests
 * build them, must not share figures).
 *
 * Where the figures come from, so the hot path stays as it was:
 * - counters are fed by what the host already tells: the `callEnded`,
 *   `approvalSettled` and `runEnded` notices of `ProcessEvents` (on PostgreSQL
 *   also the runs this host's sweeps ended for others), the error
 *   handler's 429s, and one increment and one observation per HTTP request
 *   (http-metrics.ts);
 * - gauges are read when Prometheus scrapes (`collect`): the runs this host
 *   has by state, the environment's `stats()`, the queue's depth.
 *
 * Labels are bounded: ids of installed services and tools, error codes,
 * exit states, route templates and status codes — never a process id, a key
 * id, parameters or free text. Tools are capped at `MAX_TOOL_SERIES`
 * distinct (service, tool) pairs per host; calls of any tool past it are
 * counted under `tool="_other"`.
 *
 * On many hosts each reports its own (Prometheus tells them apart by
 * `instance`); only `cyrnel_queue_depth` on PostgreSQL is the cluster's, the
 * same on every host.
 */
import type { EnvironmentStats } from "@cyrnel/sdk";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { CallRecord } from "../contract/governance.js";
import type { ApprovalSummary } from "../domain/governance/approval-store.js";
import type { LivePhase } from "../domain/processes/live-run.js";
import { ERROR_STATUS } from "../errors.js";

/** Distinct (service, tool) label pairs a host keeps; calls of others are counted as `tool="_other"`. */
export const MAX_TOOL_SERIES = 2000;
export const OTHER_TOOL = "_other";

/** Tool calls take from milliseconds (a cached answer) to the invoke timeout (30 s by default), approval waits included. */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Approvals wait from seconds to the approval timeout (10 minutes by default) and beyond. */
const APPROVAL_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

export interface MetricsSources {
  /** This host's runs that have not ended, by state. */
  livePhases(): Record<LivePhase, number>;
  /** The active environment's `stats()`, or null (none active, or it does not tell). */
  environment(): EnvironmentStats | null;
  /** PostgreSQL: runs waiting for a host in the process queue; absent on one host (the environment's queue is used). */
  clusterQueueDepth?: () => Promise<number>;
}

export class HostMetrics {
  readonly registry = new Registry();
  private readonly toolSeries = new Set<string>();
  private readonly calls: Counter<"service" | "tool" | "outcome">;
  private readonly callSeconds: Histogram<"service" | "outcome">;
  private readonly approvals: Counter<"outcome">;
  private readonly approvalWait: Histogram<"outcome">;
  private readonly ended: Counter<"exit_state">;
  private readonly queueTimeouts: Counter;
  private readonly tooMany: Counter<"code">;
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly requestSeconds: Histogram<"method" | "route" | "status_class">;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: "cyrnel_" });
    this.calls = new Counter({
      name: "cyrnel_tool_calls_total",
      help: "Tool calls that ended, by service, tool and outcome (`ok` or the error code the caller got)",
      labelNames: ["service", "tool", "outcome"],
      registers,
    });
    this.callSeconds = new Histogram({
      name: "cyrnel_tool_call_duration_seconds",
      help: "How long tool calls took, from the call to its end (a wait for approval included)",
      labelNames: ["service", "outcome"],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.approvals = new Counter({
      name: "cyrnel_approvals_total",
      help: "Approvals that calls on this host waited for, by how they ended (approved, denied, expired)",
      labelNames: ["outcome"],
      registers,
    });
    this.approvalWait = new Histogram({
      name: "cyrnel_approval_wait_seconds",
      help: "How long an approval waited for its decision (or its expiry)",
      labelNames: ["outcome"],
      buckets: APPROVAL_BUCKETS,
      registers,
    });
    this.ended = new Counter({
      name: "cyrnel_processes_ended_total",
      help: "Runs this host ended, by exit state",
      labelNames: ["exit_state"],
      registers,
    });
    this.queueTimeouts = new Counter({
      name: "cyrnel_processes_queue_timeouts_total",
      help: "Runs that timed out before their code started (waiting in the queue or in their type check)",
      registers,
    });
    this.tooMany = new Counter({
      name: "cyrnel_http_429_total",
      help: "Requests answered 429, by error code (at_capacity, rate_limited, too_many_pending_approvals, …)",
      labelNames: ["code"],
      registers,
    });
    this.requests = new Counter({
      name: "cyrnel_http_requests_total",
      help: "HTTP requests, by method, route template and status",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: "cyrnel_http_request_duration_seconds",
      help: "Time to the response's headers, by method, route template and status class (2xx, 4xx, …)",
      labelNames: ["method", "route", "status_class"],
      buckets: HTTP_BUCKETS,
      registers,
    });
    new Gauge({
      name: "cyrnel_processes",
      help: "Runs on this host that have not ended, by state (queued, running, suspended, terminating)",
      labelNames: ["state"],
      registers,
      collect() {
        for (const [state, n] of Object.entries(sources.livePhases())) this.set({ state }, n);
      },
    });
    new Gauge({
      name: "cyrnel_queue_depth",
      help: "Runs waiting to start: PostgreSQL's process queue (every host's, the same on each) or this host's environment queue",
      registers,
      async collect() {
        this.reset();
        try {
          const depth = sources.clusterQueueDepth ? await sources.clusterQueueDepth() : sources.environment()?.queued;
          if (depth !== undefined) this.set(depth);
        } catch {
          // The database is out of reach: the figure is left out of this scrape rather than failing all of it.
        }
      },
    });
    new Gauge({
      name: "cyrnel_sandbox_executions",
      help: "Executions inside the active environment's sandbox now",
      registers,
      collect() {
        this.reset();
        const stats = sources.environment();
        if (stats) this.set(stats.live);
      },
    });
    new Gauge({
      name: "cyrnel_sandbox_executions_limit",
      help: "Most executions the active environment's sandbox holds at once",
      registers,
      collect() {
        this.reset();
        const max = sources.environment()?.maxLive;
        if (max !== undefined && max !== null) this.set(max);
      },
    });
    new Gauge({
      name: "cyrnel_sandbox_rss_bytes",
      help: "Resident memory of the active environment's sandbox processes, as last measured",
      registers,
      collect() {
        this.reset();
        const rss = sources.environment()?.rssBytes;
        if (rss !== undefined && rss !== null) this.set(rss);
      },
    });
  }

  /** A tool call ended (the `callEnded` notice). */
  callEnded(record: CallRecord): void {
    const outcome = boundedOutcome(record.outcome);
    this.calls.inc({ service: record.serviceId, tool: this.toolLabel(record.serviceId, record.toolId), outcome });
    this.callSeconds.observe({ service: record.serviceId, outcome }, record.durationMs / 1000);
  }

  /** A call waiting here got its approval's answer (the `approvalSettled` notice). */
  approvalSettled(approval: ApprovalSummary): void {
    const decided = approval.decidedAt === null ? Date.now() : Date.parse(approval.decidedAt);
    const waited = Math.max(0, (decided - Date.parse(approval.createdAt)) / 1000);
    this.approvals.inc({ outcome: approval.state });
    if (Number.isFinite(waited)) this.approvalWait.observe({ outcome: approval.state }, waited);
  }

  /** A run ended (the `runEnded` notice). */
  runEnded(exitState: string, ran: boolean): void {
    this.ended.inc({ exit_state: exitState });
    if (!ran && exitState === "timeout") this.queueTimeouts.inc();
  }

  /** A request was answered 429 with this code. */
  tooManyRequests(code: string): void {
    this.tooMany.inc({ code });
  }

  /** An HTTP request was answered: `route` is the template it matched (http-metrics.ts). */
  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  private toolLabel(serviceId: string, toolId: string): string {
    const key = `${serviceId}\u0000${toolId}`;
    if (this.toolSeries.has(key)) return toolId;
    if (this.toolSeries.size >= MAX_TOOL_SERIES) return OTHER_TOOL;
    this.toolSeries.add(key);
    return toolId;
  }
}

/** `ok` or a known error code; anything else (an outcome the host does not define) is `other`. */
function boundedOutcome(outcome: string): string {
  return outcome === "ok" || Object.hasOwn(ERROR_STATUS, outcome) ? outcome : "other";
}
