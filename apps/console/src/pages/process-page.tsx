/**
 * One process, live: its state, stdout and stderr as they are written (from the NDJSON event stream), its tool calls
 * as a timeline read from the call records (again as the stream reports calls ending), approvals it waits for
 * (decided here or in the inbox), its result, its code, and the actions kill, run again and delete.
 */
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { ApprovalSummary } from "../api/types";
import { ApprovalCard } from "../components/approval-card";
import { Badge, toneOf } from "../components/badge";
import { CallerName } from "../components/caller-name";
import { CodeView } from "../components/code-view";
import { DecisionDialog, type Verb } from "../components/decision-dialog";
import { Dialog } from "../components/dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { RunTimeline } from "../components/run-timeline";
import { ScrollPre } from "../components/scroll-pre";
import { TimeAgo } from "../components/time-ago";
import { useAction } from "../hooks/use-action";
import { useInterval } from "../hooks/use-interval";
import { useLoad } from "../hooks/use-load";
import { useProcessEvents } from "../hooks/use-process-events";
import { Link, navigate } from "../router/router";

export function ProcessPage({ id }: { id: number }) {
  const [run, setRun] = useState(0);
  const record = useLoad(() => unwrap(api.GET("/processes/{id}", { params: { path: { id } } })), [id]);
  const code = useLoad(
    () => unwrap(api.GET("/processes/{id}/code", { params: { path: { id } }, parseAs: "text" })) as Promise<string>,
    [id],
  );
  const live = useProcessEvents(id, run);
  const [deciding, setDeciding] = useState<{ approval: ApprovalSummary; verb: Verb } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const state = live.ended?.state ?? record.data?.state;
  // The stream carries output, calls and approvals; the state (queued → running → suspended) is read from the record.
  useInterval(() => {
    if (state !== "idle") void record.reload(true);
  }, 1500);
  // What the stream reports changes the state too (an approval suspends or resumes it; the end makes it idle): read
  // the record again at once rather than at the next poll.
  const pendingCount = live.approvals.filter((approval) => approval.state === "pending").length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the events that change the record.
  useEffect(() => {
    void record.reload(true);
  }, [live.ended, pendingCount, live.calls.length]);

  const kill = useAction(async () => {
    await unwrap(api.POST("/processes/{id}/signals/kill", { params: { path: { id } } }));
    await record.reload(true);
  });
  const rerun = useAction(async () => {
    await unwrap(api.POST("/processes/{id}/signals/run", { params: { path: { id } }, body: { force: true } }));
    await record.reload(true);
    setRun((n) => n + 1);
  });
  const remove = useAction(async () => {
    await unwrap(api.DELETE("/processes/{id}", { params: { path: { id } } }));
    navigate("/processes");
  });

  if (record.loading && !record.data) return <Loading what={`Loading process ${id}`} />;
  if (!record.data) {
    return (
      <>
        <PageHeader title={`Process ${id}`} />
        <ErrorBox error={record.error} title="Could not load the process" />
        <Link to="/processes">Back to processes</Link>
      </>
    );
  }
  const process = record.data;
  const idle = process.state === "idle";
  const exitState = live.ended?.exitState ?? process.exitState;
  const error = live.ended?.error ?? process.error;
  const pending = live.approvals.filter((approval) => approval.state === "pending");

  return (
    <>
      <PageHeader title={`Process ${id}`}>
        {!idle && (
          <button type="button" className="button danger" disabled={kill.busy} onClick={() => void kill.run()}>
            {kill.busy ? "Killing…" : "Kill"}
          </button>
        )}
        {idle && (
          <button type="button" className="button" disabled={rerun.busy} onClick={() => void rerun.run()}>
            {rerun.busy ? "Starting…" : "Run again"}
          </button>
        )}
        {idle && (
          <button type="button" className="button subtle" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
      </PageHeader>
      <dl className="facts">
        <div>
          <dt>State</dt>
          <dd>
            <Badge tone={toneOf(process.state)}>{process.state}</Badge>
            {exitState && idle && <Badge tone={toneOf(exitState)}>{exitState}</Badge>}
            {live.following && !idle && (
              <span className="live-dot" role="status">
                live
              </span>
            )}
          </dd>
        </div>
        {process.ref && (
          <div>
            <dt>Ref</dt>
            <dd>{process.ref}</dd>
          </div>
        )}
        <div>
          <dt>Created</dt>
          <dd>
            <TimeAgo at={process.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>
            <TimeAgo at={process.finishedAt} />
          </dd>
        </div>
        <div>
          <dt>Caller</dt>
          <dd>
            <CallerName keyId={process.keyId} />
          </dd>
        </div>
        <div>
          <dt>Timeout</dt>
          <dd>{process.timeoutMs === null ? "none" : `${process.timeoutMs} ms`}</dd>
        </div>
      </dl>
      <ErrorBox error={kill.error} title="The process was not killed" />
      <ErrorBox error={rerun.error} title="The process was not started again" />
      <ErrorBox error={live.error} title="Following the process failed" />
      {error && idle && (
        <div className="error-box" role="alert">
          <strong>Error</strong>
          <ScrollPre className="plain-pre" label="Error">
            {error}
          </ScrollPre>
        </div>
      )}

      {pending.length > 0 && (
        <section aria-labelledby="waiting-title">
          <h2 id="waiting-title">Waiting for approval</h2>
          {pending.map((approval) => (
            <ApprovalCard key={approval.id} approval={approval} onDecide={(verb) => setDeciding({ approval, verb })} />
          ))}
        </section>
      )}

      <div className="two-columns">
        <section className="card" aria-labelledby="stdout-title">
          <h2 id="stdout-title">stdout</h2>
          <ScrollPre className="console-output" data-testid="stdout" aria-live="polite" label="stdout">
            {live.stdout || <span className="muted">{idle ? "empty" : "nothing yet"}</span>}
          </ScrollPre>
        </section>
        <section className="card" aria-labelledby="stderr-title">
          <h2 id="stderr-title">stderr</h2>
          <ScrollPre className="console-output stderr" data-testid="stderr" label="stderr">
            {live.stderr || <span className="muted">{idle ? "empty" : "nothing yet"}</span>}
          </ScrollPre>
        </section>
      </div>

      <RunTimeline processId={id} revision={live.calls.length + (live.ended ? 1 : 0) + pendingCount * 1000} />

      {live.ended && (
        <section className="card" aria-labelledby="output-title">
          <h2 id="output-title">Output</h2>
          <ScrollPre className="code-block" data-testid="output" label="Output">
            {JSON.stringify(live.ended.output, null, 2)}
          </ScrollPre>
        </section>
      )}

      <section className="card" aria-labelledby="code-title">
        <h2 id="code-title">Code</h2>
        <ErrorBox error={code.error} title="Could not load the code" />
        {code.data !== undefined && <CodeView code={code.data} />}
      </section>

      <DecisionDialog
        approval={deciding?.approval ?? null}
        verb={deciding?.verb ?? "approve"}
        onClose={() => setDeciding(null)}
        onDecided={() => setDeciding(null)}
      />
      <Dialog open={confirmDelete} title={`Delete process ${id}?`} onClose={() => setConfirmDelete(false)}>
        <p>Its code, output and streams are deleted. Its call records stay in the call log.</p>
        <ErrorBox error={remove.error} title="The process was not deleted" />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => setConfirmDelete(false)}>
            Cancel
          </button>
          <button type="button" className="button danger" disabled={remove.busy} onClick={() => void remove.run()}>
            Delete
          </button>
        </div>
      </Dialog>
    </>
  );
}
