/**
 * A process followed live: its stdout and stderr as written, its tool calls as they end, its approvals as they are
 * created and decided, and its final record with results. Calls of earlier runs come from GET /processes/{id}/calls
 * first; the stream adds the ones that end from then on (the same record can come both ways: kept once, by id).
 *
 * A stream can stop before the process ends: the host restarts (its connections close, and a restart ends the runs
 * it had `canceled`), the network drops, or the host refuses another follower (`429 too_many_followers`, a running
 * process takes CYRNEL_PROCESS_FOLLOWERS_LIMIT of them). The hook then follows again with backoff (1 s doubling to
 * 15 s) until it reads an `end` whose process is idle; `link` says what it is doing, so the page can say so and read
 * the record meanwhile. Only an `end` with an idle process is final: one sent by a host that is stopping may carry
 * the state of that moment. A refusal that following again cannot cure (the process is gone, the key no longer
 * works) stops it, in `error`.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "../api/api-error";
import { api, unwrap } from "../api/client";
import { followProcess } from "../api/process-events";
import type { ApprovalSummary, CallRecord, ProcessEvent } from "../api/types";

export type EndedProcess = Extract<ProcessEvent, { type: "end" }>["process"];

/**
 * How the page is linked to the process: `live` (the stream is open), `ended` (it delivered the idle process),
 * `reconnecting` (the stream failed or closed early; following again at `retryAt`), `refused` (the host refused the
 * follower with too_many_followers; following again at `retryAt`), `stopped` (see `error`).
 */
export type LiveLink =
  | { kind: "connecting" | "live" | "ended" | "stopped" }
  | { kind: "reconnecting" | "refused"; attempt: number; retryAt: number; reason: unknown };

export interface ProcessLive {
  stdout: string;
  stderr: string;
  calls: CallRecord[];
  approvals: ApprovalSummary[];
  ended: EndedProcess | null;
  link: LiveLink;
  /** Why following stopped for good (`link.kind === "stopped"`). */
  error: unknown;
  /** Follows again now instead of at `retryAt` (the record says the process ended: an idle process is never refused). */
  retryNow(): void;
}

type LiveState = Omit<ProcessLive, "retryNow">;

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 15_000;

const byId = <T extends { id: number }>(items: T[], item: T) => {
  const rest = items.filter((existing) => existing.id !== item.id);
  return [...rest, item].sort((a, b) => a.id - b.id);
};

/** A refusal that following again cannot change: the process is gone, or the key is not (any more) allowed. */
const final = (error: unknown) =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.code !== "too_many_followers";

/** `run` changes when the process is started again: the stream is followed anew. */
export function useProcessEvents(id: number, run: number): ProcessLive {
  const [live, setLive] = useState<LiveState>({
    stdout: "",
    stderr: "",
    calls: [],
    approvals: [],
    ended: null,
    link: { kind: "connecting" },
    error: null,
  });
  // Ends the wait before the next attempt early (retryNow).
  const wake = useRef<() => void>(() => {});

  // biome-ignore lint/correctness/useExhaustiveDependencies: `run` restarts the stream on purpose.
  useEffect(() => {
    const abort = new AbortController();
    setLive((current) => ({
      ...current,
      stdout: "",
      stderr: "",
      ended: null,
      link: { kind: "connecting" },
      error: null,
    }));
    unwrap(api.GET("/processes/{id}/calls", { params: { path: { id }, query: { limit: 1000 } } }))
      .then((page) => {
        if (!abort.signal.aborted)
          setLive((current) => ({ ...current, calls: page.items.reduce(byId, current.calls) }));
      })
      .catch(() => {
        // The stream below reports what matters; a missing history only leaves earlier runs' calls out.
      });
    let endedIdle = false;
    const onEvent = (event: ProcessEvent) => {
      if (event.type === "end" && event.process.state === "idle") endedIdle = true;
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
    // Each stream starts with everything written so far: the texts start afresh with it.
    const onOpen = () =>
      setLive((current) => ({ ...current, stdout: "", stderr: "", link: { kind: "live" }, error: null }));
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = window.setTimeout(done, ms);
        function done() {
          window.clearTimeout(timer);
          abort.signal.removeEventListener("abort", done);
          wake.current = () => {};
          resolve();
        }
        wake.current = done;
        abort.signal.addEventListener("abort", done);
      });

    void (async () => {
      for (let attempt = 1; !abort.signal.aborted; attempt++) {
        let reason: unknown = null;
        let opened = false;
        try {
          await followProcess(id, onEvent, abort.signal, () => {
            opened = true;
            onOpen();
          });
        } catch (error) {
          reason = error;
        }
        if (abort.signal.aborted) return;
        if (endedIdle) {
          setLive((current) => ({ ...current, link: { kind: "ended" } }));
          return;
        }
        if (final(reason)) {
          setLive((current) => ({ ...current, link: { kind: "stopped" }, error: reason }));
          return;
        }
        // A stream that was open before it failed starts the backoff again.
        if (opened) attempt = 1;
        const wait = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LAST_RETRY_MS);
        const refused = reason instanceof ApiError && reason.code === "too_many_followers";
        setLive((current) => ({
          ...current,
          link: {
            kind: refused ? "refused" : "reconnecting",
            attempt,
            retryAt: Date.now() + wait,
            reason: reason ?? new Error("the stream closed before the process ended"),
          },
        }));
        await pause(wait);
      }
    })();
    return () => abort.abort();
  }, [id, run]);

  const retryNow = useCallback(() => wake.current(), []);
  return { ...live, retryNow };
}
