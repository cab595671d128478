/**
 * A process's tool calls as a waterfall, from the stored records (`GET /processes/:id/calls` and the process's
 * approvals), so it survives a reload: one row per call, placed on a common time axis; a call that waited for an
 * operator shows the wait apart from the rest of its time (the upstream's), with who decided and why; a call that
 * repeats a failed one (same tool, same parameters) is marked as a retry.
 */
import { api, unwrap } from "../api/client";
import type { ApprovalSummary, CallRecord } from "../api/types";
import { useLoad } from "../hooks/use-load";
import { Link, segment } from "../router/router";
import { Badge, toneOf } from "./badge";
import { CallerName } from "./caller-name";
import { ErrorBox } from "./error-box";

interface Row {
  call: CallRecord;
  start: number;
  end: number;
  approval: ApprovalSummary | null;
  /** Milliseconds spent waiting for the approval (0 without one). */
  waitMs: number;
  retry: boolean;
}

/** Calls oldest first, each with the approval it waited for and whether it repeats a failed call. */
export function timelineRows(calls: CallRecord[], approvals: ApprovalSummary[]): Row[] {
  const taken = new Set<number>();
  const ordered = [...calls].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.id - b.id);
  return ordered.map((call, index) => {
    const start = Date.parse(call.startedAt);
    const end = start + call.durationMs;
    // The approval asked for during this call, for its tool.
    const approval =
      approvals.find((candidate) => {
        const asked = Date.parse(candidate.createdAt);
        return (
          !taken.has(candidate.id) &&
          candidate.serviceId === call.serviceId &&
          candidate.toolId === call.toolId &&
          asked >= start - 1 &&
          asked <= end + 1
        );
      }) ?? null;
    if (approval) taken.add(approval.id);
    const decided = approval?.decidedAt ? Date.parse(approval.decidedAt) : end;
    const waitMs = approval ? Math.max(0, Math.min(end, decided) - Date.parse(approval.createdAt)) : 0;
    const same = JSON.stringify(call.parameters);
    const retry = ordered
      .slice(0, index)
      .some(
        (before) =>
          before.outcome !== "ok" &&
          before.serviceId === call.serviceId &&
          before.toolId === call.toolId &&
          JSON.stringify(before.parameters) === same,
      );
    return { call, start, end, approval, waitMs, retry };
  });
}

const MAX_CALLS = 1000;

export function RunTimeline({ processId, revision }: { processId: number; revision: number }) {
  const data = useLoad(async () => {
    const [calls, approvals] = await Promise.all([
      unwrap(api.GET("/processes/{id}/calls", { params: { path: { id: processId }, query: { limit: MAX_CALLS } } })),
      unwrap(api.GET("/approvals", { params: { query: { processId, limit: MAX_CALLS } } })).catch(() => ({
        items: [] as ApprovalSummary[],
      })),
    ]);
    return { calls: calls.items, more: calls.nextCursor !== null, approvals: approvals.items };
  }, [processId, revision]);

  const rows = data.data ? timelineRows(data.data.calls, data.data.approvals) : [];
  const t0 = Math.min(...rows.map((row) => row.start));
  const span = Math.max(1, Math.max(...rows.map((row) => row.end)) - t0);
  const at = (time: number) => `${(((time - t0) / span) * 100).toFixed(2)}%`;

  return (
    <section className="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">
        Timeline <span className="count">{rows.length}</span>
      </h2>
      <ErrorBox error={data.error} title="Could not load the tool calls" />
      {data.data && rows.length === 0 && <p className="muted">No tool calls.</p>}
      {data.data?.more && <p className="muted">The first {MAX_CALLS} calls of the newest are shown.</p>}
      {rows.length > 0 && (
        <ol className="waterfall" aria-label="Tool calls over time">
          {rows.map((row) => (
            <li key={row.call.id} className="waterfall-row" data-testid="timeline-call">
              <div className="waterfall-label">
                <Link to={`/tools/${segment(row.call.serviceId)}/${segment(row.call.toolId)}`}>
                  <code>{`${row.call.serviceId}.${row.call.toolId}`}</code>
                </Link>{" "}
                <Badge tone={row.call.outcome === "ok" ? "good" : "bad"}>{row.call.outcome}</Badge>
                {row.retry && <Badge tone="warn">retry</Badge>}
                {row.call.status !== null && <span className="muted"> HTTP {row.call.status}</span>}
              </div>
              <div className="waterfall-track" aria-hidden="true">
                <span
                  className="waterfall-bar"
                  style={{ left: at(row.start), width: `max(2px, ${at(t0 + row.call.durationMs)})` }}
                >
                  {row.waitMs > 0 && (
                    <span
                      className="waterfall-wait"
                      style={{ width: `${((row.waitMs / Math.max(1, row.call.durationMs)) * 100).toFixed(2)}%` }}
                    />
                  )}
                </span>
              </div>
              <div className="waterfall-detail muted">
                +{row.start - t0} ms ·{" "}
                {row.approval && row.approval.state !== "approved"
                  ? "never sent"
                  : `${row.call.durationMs - row.waitMs} ms at the service`}
                {row.approval && (
                  <>
                    {" "}
                    · waited {row.waitMs} ms for approval:{" "}
                    <Badge tone={toneOf(row.approval.state)}>{row.approval.state}</Badge>
                    {row.approval.decidedAt && (
                      <>
                        {" "}
                        by <CallerName keyId={row.approval.decidedBy} />
                      </>
                    )}
                    {row.approval.reason && <> — “{row.approval.reason}”</>}
                  </>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
