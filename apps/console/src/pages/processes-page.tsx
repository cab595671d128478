/** Processes: filters (kept in the URL), the list (refreshed every few seconds), and running new code. */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { ExitState, ProcessState } from "../api/types";
import { Badge, toneOf } from "../components/badge";
import { CallerName } from "../components/caller-name";
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

export function ProcessesPage() {
  const { search } = useLocation();
  const state = (search.get("state") ?? "") as ProcessState | "";
  const exitState = (search.get("exitState") ?? "") as ExitState | "";
  const ref = search.get("ref") ?? "";
  const keyId = search.get("keyId") ?? "";
  const [creating, setCreating] = useState(false);

  const processes = useLoad(
    () =>
      unwrap(
        api.GET("/processes", {
          params: {
            query: {
              limit: 100,
              ...(state && { state }),
              ...(exitState && { exitState }),
              ...(ref && { ref }),
              ...(keyId && { keyId }),
            },
          },
        }),
      ),
    [state, exitState, ref, keyId],
  );
  useInterval(() => void processes.reload(true), 3000);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === "") next.delete(name);
    else next.set(name, value);
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
          Ref
          <input
            defaultValue={ref}
            onBlur={(event) => setFilter("ref", event.target.value.trim())}
            onKeyDown={(event) => event.key === "Enter" && setFilter("ref", event.currentTarget.value.trim())}
          />
        </label>
        <label>
          Caller (key id or oauth:…)
          <input
            defaultValue={keyId}
            onBlur={(event) => setFilter("keyId", event.target.value.trim())}
            onKeyDown={(event) => event.key === "Enter" && setFilter("keyId", event.currentTarget.value.trim())}
          />
        </label>
      </div>
      <ErrorBox error={processes.error} title="Could not list processes" />
      {processes.loading && !processes.data && <Loading what="Loading processes" />}
      {processes.data &&
        (processes.data.items.length === 0 ? (
          <p className="empty">No process matches.</p>
        ) : (
          <div className="table-wrap">
            <table>
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
