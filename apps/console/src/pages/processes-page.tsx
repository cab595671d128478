/**
 * Processes: filters (state, exit state, ref prefix, caller by key name, creation time, order; kept in the URL), the
 * list a page of 100 at a time (newer/older, refreshed every few seconds), and running new code.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { ExitState, ProcessState } from "../api/types";
import { Badge, toneOf } from "../components/badge";
import { CallerName, keyNames } from "../components/caller-name";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { NewProcessDialog } from "../components/new-process-dialog";
import { PageHeader } from "../components/page-header";
import { TimeAgo } from "../components/time-ago";
import { useInterval } from "../hooks/use-interval";
import { useLoad } from "../hooks/use-load";
import { Link, navigate, useLocation } from "../router/router";

const STATES: ProcessState[] = ["queued", "running", "suspended", "terminating", "idle"];
const EXIT_STATES: ExitState[] = ["success", "failed", "timeout", "canceled"];
const PAGE = 100;

/** A `datetime-local` value (local time) as an ISO instant, or undefined. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function ProcessesPage() {
  const { search } = useLocation();
  const state = (search.get("state") ?? "") as ProcessState | "";
  const exitState = (search.get("exitState") ?? "") as ExitState | "";
  // `ref` (an exact ref, from links made before prefixes) is still honoured; the field edits `refPrefix`.
  const ref = search.get("ref") ?? "";
  const refPrefix = search.get("refPrefix") ?? "";
  const keyId = search.get("keyId") ?? "";
  const since = search.get("since") ?? "";
  const until = search.get("until") ?? "";
  const order = search.get("order") === "oldest" ? "oldest" : "newest";
  const [creating, setCreating] = useState(false);
  const keys = useLoad(keyNames, []);
  // The cursors of the pages before this one: "Newer"/"Earlier" goes back one.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);

  const processes = useLoad(
    () =>
      unwrap(
        api.GET("/processes", {
          params: {
            query: {
              limit: PAGE,
              order,
              ...(state && { state }),
              ...(exitState && { exitState }),
              ...(ref && { ref }),
              ...(refPrefix && { refPrefix }),
              ...(keyId && { keyId }),
              ...(instant(since) && { since: instant(since) }),
              ...(instant(until) && { until: instant(until) }),
              ...(cursor && { cursor }),
            },
          },
        }),
      ),
    [state, exitState, ref, refPrefix, keyId, since, until, order, cursor],
  );
  useInterval(() => void processes.reload(true), 3000);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === "") next.delete(name);
    else next.set(name, value);
    setCursors([]);
    const query = next.toString();
    navigate(`/processes${query ? `?${query}` : ""}`, { replace: true });
  };

  return (
    <>
      <PageHeader title="Processes">
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          Run code
        </button>
      </PageHeader>
      <div className="filters">
        <label>
          State
          <select value={state} onChange={(event) => setFilter("state", event.target.value)}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Exit state
          <select value={exitState} onChange={(event) => setFilter("exitState", event.target.value)}>
            <option value="">any</option>
            {EXIT_STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Ref starts with
          <input
            defaultValue={refPrefix}
            onBlur={(event) => setFilter("refPrefix", event.target.value)}
            onKeyDown={(event) => event.key === "Enter" && setFilter("refPrefix", event.currentTarget.value)}
            spellCheck={false}
          />
        </label>
        <label>
          Caller
          <select value={keyId} onChange={(event) => setFilter("keyId", event.target.value)}>
            <option value="">anyone</option>
            {[...(keys.data ?? new Map<string, string>())]
              .sort(([, a], [, b]) => a.localeCompare(b))
              .map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            {/* A caller from the URL that is no stored key (oauth:<sub>, or a key not known here) stays choosable. */}
            {keyId && !keys.data?.has(keyId) && <option value={keyId}>{keyId}</option>}
          </select>
        </label>
        <label>
          Created from
          <input type="datetime-local" value={since} onChange={(event) => setFilter("since", event.target.value)} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={until} onChange={(event) => setFilter("until", event.target.value)} />
        </label>
        <label>
          Order
          <select
            value={order}
            onChange={(event) => setFilter("order", event.target.value === "oldest" ? "oldest" : "")}
          >
            <option value="newest">newest first</option>
            <option value="oldest">oldest first</option>
          </select>
        </label>
      </div>
      {ref && (
        <p className="muted">
          Only ref “{ref}” exactly.{" "}
          <button type="button" className="link-button" onClick={() => setFilter("ref", "")}>
            Any ref
          </button>
        </p>
      )}
      <ErrorBox error={processes.error} title="Could not list processes" />
      {processes.loading && !processes.data && <Loading what="Loading processes" />}
      {processes.data &&
        (processes.data.items.length === 0 ? (
          <p className="empty">No process matches.</p>
        ) : (
          <div className="table-wrap">
            <table aria-label="Processes">
              <thead>
                <tr>
                  <th scope="col">Process</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">Caller</th>
                </tr>
              </thead>
              <tbody>
                {processes.data.items.map((process) => (
                  <tr key={process.id}>
                    <td>
                      <Link to={`/processes/${process.id}`}>
                        <strong>#{process.id}</strong>
                      </Link>
                      {process.ref && <span className="muted"> {process.ref}</span>}
                      {process.error && <div className="muted clip">{process.error}</div>}
                    </td>
                    <td>
                      <Badge tone={toneOf(process.state)}>{process.state}</Badge>{" "}
                      {process.exitState && <Badge tone={toneOf(process.exitState)}>{process.exitState}</Badge>}
                    </td>
                    <td>
                      <TimeAgo at={process.createdAt} />
                    </td>
                    <td>
                      <CallerName keyId={process.keyId} />
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
          {order === "oldest" ? "Earlier" : "Newer"}
        </button>
        <button
          type="button"
          className="button"
          disabled={!processes.data?.nextCursor}
          onClick={() => {
            const next = processes.data?.nextCursor;
            if (next) setCursors((list) => [...list, next]);
          }}
        >
          {order === "oldest" ? "Later" : "Older"}
        </button>
        {processes.data && (
          <span className="muted" role="status">
            Page {cursors.length + 1}: {processes.data.items.length}{" "}
            {processes.data.items.length === 1 ? "process" : "processes"}
            {processes.data.nextCursor ? ", more on the next" : ""}
          </span>
        )}
      </div>
      <NewProcessDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => {
          setCreating(false);
          navigate(`/processes/${id}`);
        }}
      />
    </>
  );
}
