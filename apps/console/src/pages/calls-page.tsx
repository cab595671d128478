/**
 * The call log: every tool call (from code or a direct invoke, allowed or refused), newest first, filtered by
 * service, tool, caller, outcome and time range (kept in the URL), a page at a time (`GET /calls`).
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { Badge } from "../components/badge";
import { CallerName } from "../components/caller-name";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { TimeAgo } from "../components/time-ago";
import { useLoad } from "../hooks/use-load";
import { Link, navigate, segment, useLocation } from "../router/router";

const PAGE = 100;
const TEXT_FILTERS = [
  ["serviceId", "Service"],
  ["toolId", "Tool"],
  ["keyId", "Caller (key id or oauth:…)"],
  ["outcome", "Outcome (ok or an error code)"],
] as const;

/** A `datetime-local` value (local time) as an ISO instant, or undefined. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function CallsPage() {
  const { search } = useLocation();
  const filter = Object.fromEntries(TEXT_FILTERS.map(([name]) => [name, search.get(name) ?? ""])) as Record<
    (typeof TEXT_FILTERS)[number][0],
    string
  >;
  const since = search.get("since") ?? "";
  const until = search.get("until") ?? "";
  // The cursors of the pages before this one: "Newer" goes back one.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const key = JSON.stringify([filter, since, until]);

  const calls = useLoad(
    () =>
      unwrap(
        api.GET("/calls", {
          params: {
            query: {
              limit: PAGE,
              ...Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== "")),
              ...(instant(since) && { since: instant(since) }),
              ...(instant(until) && { until: instant(until) }),
              ...(cursor && { cursor }),
            },
          },
        }),
      ),
    [key, cursor],
  );

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === "") next.delete(name);
    else next.set(name, value);
    setCursors([]);
    const query = next.toString();
    navigate(`/calls${query ? `?${query}` : ""}`, { replace: true });
  };

  return (
    <>
      <PageHeader title="Tool calls" />
      <div className="filters">
        {TEXT_FILTERS.map(([name, label]) => (
          <label key={name}>
            {label}
            <input
              name={name}
              defaultValue={filter[name]}
              onBlur={(event) => setFilter(name, event.target.value.trim())}
              onKeyDown={(event) => event.key === "Enter" && setFilter(name, event.currentTarget.value.trim())}
            />
          </label>
        ))}
        <label>
          From
          <input type="datetime-local" value={since} onChange={(event) => setFilter("since", event.target.value)} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={until} onChange={(event) => setFilter("until", event.target.value)} />
        </label>
      </div>
      <ErrorBox error={calls.error} title="Could not list the calls" />
      {calls.loading && !calls.data && <Loading what="Loading calls" />}
      {calls.data &&
        (calls.data.items.length === 0 ? (
          <p className="empty">No call matches.</p>
        ) : (
          <div className="table-wrap">
            <table aria-label="Tool calls">
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Caller</th>
                  <th scope="col">Process</th>
                  <th scope="col">Parameters</th>
                </tr>
              </thead>
              <tbody>
                {calls.data.items.map((call) => (
                  <tr key={call.id}>
                    <td>
                      <TimeAgo at={call.startedAt} />
                    </td>
                    <td>
                      <Link to={`/tools/${segment(call.serviceId)}/${segment(call.toolId)}`}>
                        <code>{`${call.serviceId}.${call.toolId}`}</code>
                      </Link>
                    </td>
                    <td>
                      <Badge tone={call.outcome === "ok" ? "good" : "bad"}>{call.outcome}</Badge>
                      {call.status !== null && <span className="muted"> HTTP {call.status}</span>}
                    </td>
                    <td>{call.durationMs} ms</td>
                    <td>
                      <CallerName keyId={call.keyId} />
                      {call.connectionId && <div className="muted">as {call.connectionId}</div>}
                    </td>
                    <td>
                      {call.processId === null ? (
                        <span className="muted">direct</span>
                      ) : (
                        <Link to={`/processes/${call.processId}`}>#{call.processId}</Link>
                      )}
                    </td>
                    <td>
                      <code className="clip">{JSON.stringify(call.parameters)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <div className="row">
        <button
          type="button"
          className="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors((list) => list.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          className="button"
          disabled={!calls.data?.nextCursor}
          onClick={() => {
            const next = calls.data?.nextCursor;
            if (next) setCursors((list) => [...list, next]);
          }}
        >
          Older
        </button>
      </div>
    </>
  );
}
