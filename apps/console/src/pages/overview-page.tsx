/**
 * Overview: the host's health, exact counts from its summary (`GET /stats`: services, tools, live processes, what
 * ended in the last 24 hours — queue timeouts included —, pending approvals, capacity and queue), and what failed
 * lately. One summary request and two short lists per refresh, whatever the number of tools or processes.
 */
import { api, unwrap } from "../api/client";
import type { CallRecord, ProcessRecord } from "../api/types";
import { Badge, toneOf } from "../components/badge";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { TimeAgo } from "../components/time-ago";
import { useInterval } from "../hooks/use-interval";
import { useLoad } from "../hooks/use-load";
import { Link, segment } from "../router/router";

const number = new Intl.NumberFormat("en-US");
const n = (value: number) => number.format(value);

async function loadOverview() {
  const [health, stats, modules, failed, calls] = await Promise.all([
    unwrap(api.GET("/health")),
    unwrap(api.GET("/stats")),
    unwrap(api.GET("/modules")),
    unwrap(api.GET("/processes", { params: { query: { exitState: "failed", limit: 5 } } })),
    unwrap(api.GET("/calls", { params: { query: { limit: 200 } } })),
  ]);
  const { live, ended, queueTimeouts } = stats.processes;
  const capacity = stats.capacity;
  return {
    health,
    counts: [
      {
        label: "Services",
        value: n(stats.services.total),
        detail: `${n(stats.services.enabled)} enabled`,
        to: "/services",
      },
      { label: "Tools", value: n(stats.tools.total), detail: `${n(stats.tools.callable)} callable`, to: "/tools" },
      {
        label: "Running",
        value: n(live.running),
        detail: `${n(live.suspended)} suspended · ${n(live.queued)} queued`,
        to: "/processes?state=running",
      },
      {
        label: "Pending approvals",
        value: n(stats.approvals.pending),
        detail: "waiting for a decision",
        to: "/approvals",
      },
      {
        label: "Ended in 24 h",
        value: n(ended.success + ended.failed + ended.timeout + ended.canceled),
        detail: `${n(ended.failed)} failed · ${n(ended.timeout)} timed out (${n(queueTimeouts)} in the queue) · ${n(ended.canceled)} canceled`,
        to: "/processes?state=idle",
      },
      {
        label: "Capacity",
        value: capacity === null ? "none" : capacity.admitted ? "open" : "full",
        detail:
          capacity === null
            ? "no environment is active"
            : [
                capacity.live !== null &&
                  `${n(capacity.live)}${capacity.maxLive !== null ? ` of ${n(capacity.maxLive)}` : ""} running`,
                stats.queue.depth !== null && `${n(stats.queue.depth)} waiting`,
                !capacity.admitted && capacity.reason,
              ]
                .filter(Boolean)
                .join(" · "),
        to: "/processes?state=queued",
      },
      {
        label: "Modules",
        value: n(modules.items.length),
        detail: `${modules.items.filter((m) => m.active).length} active`,
        to: "/modules",
      },
    ],
    failedProcesses: failed.items,
    failedCalls: calls.items.filter((call) => call.outcome !== "ok").slice(0, 5),
  };
}

export function OverviewPage() {
  const overview = useLoad(loadOverview, []);
  useInterval(() => void overview.reload(true), 5000);
  const data = overview.data;
  return (
    <>
      <PageHeader title="Overview" />
      {overview.loading && !data && <Loading what="Loading the overview" />}
      <ErrorBox error={overview.error} title="Could not load the overview" />
      {data && (
        <>
          <section className="card health" aria-labelledby="health-title">
            <h2 id="health-title">Health</h2>
            <p>
              <Badge tone={data.health.status === "ok" ? "good" : "warn"}>{data.health.status}</Badge>{" "}
              <span className="muted">host version {data.health.version}</span>
            </p>
            {data.health.reasons && data.health.reasons.length > 0 && (
              <ul className="reasons">
                {data.health.reasons.map((reason) => (
                  <li key={reason}>{reason}</li>
                ))}
              </ul>
            )}
          </section>
          <ul className="stat-grid" aria-label="Counts">
            {data.counts.map((stat) => (
              <li key={stat.label} className="card stat">
                <Link to={stat.to}>
                  <span className="stat-value">{stat.value}</span>
                  <span className="stat-label">{stat.label}</span>
                  <span className="stat-detail muted">{stat.detail}</span>
                </Link>
              </li>
            ))}
          </ul>
          <div className="two-columns">
            <FailedProcesses processes={data.failedProcesses} />
            <FailedCalls calls={data.failedCalls} />
          </div>
        </>
      )}
    </>
  );
}

function FailedProcesses({ processes }: { processes: ProcessRecord[] }) {
  return (
    <section className="card" aria-labelledby="failed-processes">
      <h2 id="failed-processes">Recent failed processes</h2>
      {processes.length === 0 ? (
        <p className="muted">No failed processes.</p>
      ) : (
        <ul className="plain-list">
          {processes.map((process) => (
            <li key={process.id}>
              <Link to={`/processes/${process.id}`}>Process {process.id}</Link>
              {process.ref && <span className="muted"> · {process.ref}</span>} <TimeAgo at={process.finishedAt} />
              <p className="clip muted">{process.error}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function FailedCalls({ calls }: { calls: CallRecord[] }) {
  return (
    <section className="card" aria-labelledby="failed-calls">
      <h2 id="failed-calls">Recent failed tool calls</h2>
      {calls.length === 0 ? (
        <p className="muted">No failed calls among the latest 200.</p>
      ) : (
        <ul className="plain-list">
          {calls.map((call) => (
            <li key={call.id}>
              <Link to={`/tools/${segment(call.serviceId)}/${segment(call.toolId)}`}>
                {call.serviceId}.{call.toolId}
              </Link>{" "}
              <Badge tone={toneOf(call.outcome === "ok" ? "ok" : "failed")}>{call.outcome}</Badge>
              {call.status !== null && <span className="muted"> HTTP {call.status}</span>}{" "}
              <TimeAgo at={call.startedAt} />
              {call.processId !== null && (
                <>
                  {" "}
                  · <Link to={`/processes/${call.processId}`}>process {call.processId}</Link>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
