/**
 * A process followed live: its stdout and stderr as written, its tool calls as they end, its approvals as they are
 * created and decided, and its final record with results. Calls of earlier runs come from GET /processes/{id}/calls
 * first; the stream adds the ones that end from then on (the same record can come both ways: kept once, by id).
 */
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import { followProcess } from "../api/process-events";
import type { ApprovalSummary, CallRecord, ProcessEvent } from "../api/types";

export type EndedProcess = Extract<ProcessEvent, { type: "end" }>["process"];

export interface ProcessLive {
  stdout: string;
  stderr: string;
  calls: CallRecord[];
  approvals: ApprovalSummary[];
  ended: EndedProcess | null;
  following: boolean;
  error: unknown;
}

const byId = <T extends { id: number }>(items: T[], item: T) => {
  const rest = items.filter((existing) => existing.id !== item.id);
  return [...rest, item].sort((a, b) => a.id - b.id);
};

/** `run` changes when the process is started again: the stream is followed anew. */
export function useProcessEvents(id: number, run: number): ProcessLive {
  const [live, setLive] = useState<ProcessLive>({
    stdout: "",
    stderr: "",
    calls: [],
    approvals: [],
    ended: null,
    following: true,
    error: null,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: `run` restarts the stream on purpose.
  useEffect(() => {
    const abort = new AbortController();
    setLive((current) => ({ ...current, stdout: "", stderr: "", ended: null, following: true, error: null }));
    unwrap(api.GET("/processes/{id}/calls", { params: { path: { id }, query: { limit: 1000 } } }))
      .then((page) => {
        if (!abort.signal.aborted)
          setLive((current) => ({ ...current, calls: page.items.reduce(byId, current.calls) }));
      })
      .catch(() => {
        // The stream below reports what matters; a missing history only leaves earlier runs' calls out.
      });
    const onEvent = (event: ProcessEvent) => {
      setLive((current) => {
        switch (event.type) {
          case "stdout":
            return { ...current, stdout: current.stdout + event.text };
          case "stderr":
            return { ...current, stderr: current.stderr + event.text };
          case "call": {
            const { type: _type, ...call } = event;
            return { ...current, calls: byId(current.calls, call) };
          }
          case "approval": {
            const { type: _type, ...approval } = event;
            return { ...current, approvals: byId(current.approvals, approval) };
          }
          case "end":
            return { ...current, ended: event.process };
          default:
            return current;
        }
      });
    };
    followProcess(id, onEvent, abort.signal)
      .then(() => setLive((current) => ({ ...current, following: false })))
      .catch((error: unknown) => {
        if (!abort.signal.aborted) setLive((current) => ({ ...current, following: false, error }));
      });
    return () => abort.abort();
  }, [id, run]);

  return live;
}
