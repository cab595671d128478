/**
 * One process, live: its state, stdout and stderr as they are written (from the NDJSON event stream), its tool calls
 * as a timeline read from the call records (again as the stream reports calls ending), approvals it waits for
 * (decided here or in the inbox), its result, its code, and the actions kill, run again and delete.
 */
import { useEffect, useState } from "react";
import { describeError } from "../api/api-error";
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
import { type LiveLink, useProcessEvents } from "../hooks/use-process-events";
import { Link, navigate } from "../router/router";

/** How often the record is read while the process has not ended (and while a read fails). */
const RECORD_POLL_MS = 1500;

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

  // The stream carries output, calls and approvals; the state (queued → running → suspended → idle) is the record's,
  // read again until the record itself says idle, and while a read fails: an `end` on the stream never stops it (a
  // host that stops sends one; the record it then writes on restart is what the page must show).
  const recordIdle = record.data?.state === "idle";
  useInterval(() => {
    if (!recordIdle || record.error) void record.reload(true);
  }, RECORD_POLL_MS);
  // The record says the process ended while the stream is down or refused: follow now, an ended process's stream
  // gives its texts and its end at once (and is never refused).
  const { retryNow } = live;
  useEffect(() => {
    if (recordIdle && (live.link.kind === "reconnecting" || live.link.kind === "refused")) retryNow();
  }, [recordIdle, live.link.kind, retryNow]);
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
  const [confirmRerun, setConfirmRerun] = useState(false);
  const rerun = useAction(async () => {
    await unwrap(api.POST("/processes/{id}/signals/run", { params: { path: { id } }, body: { force: true } }));
    setConfirmRerun(false);
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
  // Once the record is idle its exit state and error are the host's; the stream's end only fills in the output.
  const exitState = process.exitState;
  const error = process.error;
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
          <button type="button" className="button" onClick={() => setConfirmRerun(true)}>
            Run again
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
            {live.link.kind === "live" && !idle && (
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
      <LinkBanner link={live.link} idle={idle} onRetry={retryNow} />
      {record.error !== null && (
        <ErrorBox
          error={record.error}
          title={`Could not read the process again (the state shown may be old); trying every ${RECORD_POLL_MS / 1000} s`}
        />
      )}
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

      {live.ended && idle && (
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
      <Dialog open={confirmRerun} title={`Run process ${id} again?`} onClose={() => setConfirmRerun(false)}>
        <p>
          The same code runs again from the start: <strong>every tool call it makes is made again</strong>, with its
          side effects (alerts created, messages sent, records written), and the output, stdout and stderr of this run
          are replaced. Its call records stay in the call log.
        </p>
        <ErrorBox error={rerun.error} title="The process was not started again" />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => setConfirmRerun(false)}>
            Cancel
          </button>
          <button type="button" className="button primary" disabled={rerun.busy} onClick={() => void rerun.run()}>
            {rerun.busy ? "Starting…" : "Run again"}
          </button>
        </div>
      </Dialog>
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

/** What the page says while it is not following the process live: reconnecting, or refused and reading the record. */
function LinkBanner({ link, idle, onRetry }: { link: LiveLink; idle: boolean; onRetry(): void }) {
  if (link.kind !== "reconnecting" && link.kind !== "refused") return null;
  const seconds = Math.max(0, Math.ceil((link.retryAt - Date.now()) / 1000));
  const { code, message } = describeError(link.reason);
  return (
    <div className="notice live-banner" role="status" data-testid="live-banner">
      {link.kind === "refused" ? (
        <p>
          <strong>Not following live:</strong> the host refused another follower of this process (<code>{code}</code>:{" "}
          {message}). The state is read from the host every {RECORD_POLL_MS / 1000} s instead; stdout and stderr are
          shown {idle ? "now that it has ended" : "once it ends"}. Following again in {seconds} s (attempt{" "}
          {link.attempt}).
        </p>
      ) : (
        <p>
          <strong>Reconnecting:</strong> the live stream stopped ({code !== null && <code>{code}</code>} {message}).
          Following again in {seconds} s (attempt {link.attempt}); meanwhile the state is read from the host every{" "}
          {RECORD_POLL_MS / 1000} s.
        </p>
      )}
      <button type="button" className="button small" onClick={onRetry}>
        Follow now
      </button>
    </div>
  );
}
