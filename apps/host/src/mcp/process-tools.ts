/**
 * The MCP tools about processes: run_code, get_process, kill_process and list_processes.
 *
 * Answers are sized for an LLM: the host bounds a run's texts
 * (`GET /processes/:id/results`, CYRNEL_AGENT_TEXT_LIMIT_CHARS) and pages
 * the rest (`GET /processes/:id/text`); the markers in a cut text name the
 * get_process call that reads on.
 *
 * A call waits for a process at most `waitMs`: MCP clients give up on a
 * call after some time (60 s in the official SDKs), and a call that fails
 * that way leaves the agent without the process id. Past the budget the
 * call answers the id, the state and how to follow it with get_process; the
 * process keeps running. While a call waits, a client that sent a
 * progressToken gets a notification when the process is created and then
 * every few seconds (not per chunk of output), each with the process id and
 * its last stdout line.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ApiError } from "../client/api-client.js";
import type { ApprovalListItem, ApprovalSummary } from "../contract/governance.js";
import type { BoundedResult, ProcessRecord } from "../contract/processes.js";
import { cutText } from "../cut-text.js";
import { MAX_TIMEOUT_MS } from "../domain/processes/process-runner.js";
import { deadlineSignal } from "../lib/deadline-signal.js";
import type { HostAccess } from "./host-access.js";
import { type ListedProcess, type PendingApproval, ProcessList, ProcessSummary, toZod } from "./tool-output.js";
import { structured } from "./tool-results.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Guard = <A extends unknown[]>(
  tool: string,
  run: (...args: A) => Promise<CallToolResult>,
) => (...args: A) => Promise<CallToolResult>;

/** How often a waiting call reports progress, when the client asked for progress. */
const PROGRESS_INTERVAL_MS = 2_000;
/** The last stdout line in a progress message is cut here. */
const LINE_CHARS = 200;
/** How much of the newest stdout is kept to find its last line. */
const STDOUT_WINDOW_CHARS = 4_096;
/** Errors in a process list are cut here; get_process has them whole. */
const LISTED_ERROR_CHARS = 300;

const PROCESS_SUMMARY = toZod(ProcessSummary);
const PROCESS_LIST = toZod(ProcessList);

export function registerProcessTools(server: McpServer, access: HostAccess, waitMs: number, guarded: Guard): void {
  const waitSeconds = Math.round(waitMs / 1000);
  const running = (record: ProcessRecord) =>
    `Process ${record.id} is ${record.state}` +
    (record.state === "suspended"
      ? ": a tool call waits for an operator to approve or deny it (its timeout is paused); the call then runs, " +
        "or throws approval_denied or approval_expired"
      : "") +
    `. Call get_process {"id":${record.id},"wait":true} to wait for it ` +
    `(up to ${waitSeconds} s per call), or get_process {"id":${record.id}} to look without waiting.`;

  /** The process as it is now: its bounded results once idle (fetched unless `report` has them), else how to follow it. */
  const answer = async (report: ProcessRecord | BoundedResult, isError: (result: BoundedResult) => boolean) => {
    const result = report.state === "idle" && !hasResults(report) ? await access.getProcess(report.id) : report;
    if (!hasResults(result)) {
      const waiting = result.pendingApprovalIds.length > 0 && {
        pendingApprovalIds: result.pendingApprovalIds,
        pendingApprovals: (await access.pendingApprovals(result.id)).map(waitingFor),
      };
      return structured({ ...summaryOf(result), ...waiting, next: running(result) });
    }
    const { output, stdout, stderr, cut, calls } = result;
    return structured(
      { ...summaryOf(result), output, stdout, stderr, ...(cut.length > 0 && { cut }), calls },
      isError(result),
    );
  };

  const waitFor = async (id: number, extra: Extra): Promise<ProcessRecord> => {
    const progress = startProgress(id, extra);
    const deadline = deadlineSignal(extra.signal, waitMs);
    try {
      return await access.waitForProcess(
        id,
        deadline.signal,
        (text) => progress?.stdout(text),
        (approval) => progress?.approval(approval),
      );
    } finally {
      deadline.clear();
      progress?.stop();
    }
  };

  server.registerTool(
    "run_code",
    {
      title: "Run TypeScript",
      description:
        "Run a TypeScript program in cyrnel's sandbox. This is the only way to call tools. " +
        "Write ONE program that does the whole task: call tools with " +
        "`await cyrnel.services.<serviceId>.tools.<toolId>.invoke({ ...parameters })`, loop, branch and compute in " +
        "code, and report the result with `cyrnel.output({ ... })` (calls are shallow-merged; output only what you " +
        "need; a value you `return` is discarded). The code is the body of an async function: top-level await " +
        "works. It is type-checked against the tools' types (get_types) before it runs: type errors end it at once, " +
        "listed as `code.ts:line:col TSnnnn message`, and no tool is called. " +
        "console.log goes to stdout, console.warn/error to stderr. A failing tool call throws an Error with `status` " +
        "and `code` (404 not_found, 400 validation_failed, 409 tool_disabled, 403 tool_denied, 502 adapter_error, " +
        "504 invoke_timeout) that you can catch. A tool whose policy is ask (search_tools shows it) makes its call " +
        "wait for an operator's decision: the process is suspended meanwhile (its timeout paused), and the call " +
        "then runs or throws 403 approval_denied (with the operator's reason) or approval_expired; do not retry a " +
        "denied call. There is no fetch, require, import, process or file system; atob/btoa, TextEncoder/TextDecoder " +
        "(UTF-8) and structuredClone are there. " +
        `It waits for the program to end, at most ${waitSeconds} s, and answers the process id, exitState ` +
        "(success, failed, timeout, canceled), error, output, stdout, stderr and calls (tool calls made and failed, " +
        "per tool); anything but success is flagged as " +
        "an error with the same details: read error and stderr, fix the program and run it again. Long texts keep " +
        "their start and end around a marker that says how to read the rest with get_process. A program still " +
        'running after the wait (or with wait: false, at once) answers its id, state "running" and how to follow ' +
        "it with get_process; it keeps running.",
      inputSchema: {
        code: z.string().min(1).describe("TypeScript source (up to 100 KiB)"),
        timeoutMs: z
          .number()
          .int()
          .min(1)
          .max(MAX_TIMEOUT_MS)
          .optional()
          .describe(
            "Stop the program after it has run this many milliseconds (default 30000, at most 2147483647); " +
              "it may also wait this long for a free sandbox before it runs",
          ),
        typecheck: z
          .boolean()
          .optional()
          .describe(
            "Type-check before running (default true). Set false only to run code the checker refuses although " +
              "it is right, e.g. when an API's published types are wrong",
          ),
        wait: z
          .boolean()
          .optional()
          .describe(`false: answer the process id at once; true (default): wait for the end, at most ${waitSeconds} s`),
      },
      outputSchema: PROCESS_SUMMARY,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    guarded("run_code", async ({ code, timeoutMs, typecheck, wait }, extra) => {
      const created = await access.startProcess({ code, timeoutMs, typecheck });
      if (wait === false) return answer(created, (result) => result.exitState !== "success");
      // A run_code the client cancels while it waits (notifications/cancelled, or its connection gone) ends the run
      // it started, and with it the run's tool calls; one that outlasts the wait answers "running" and goes on.
      const cancel = () => {
        // A kill that cannot be sent (the host is stopping: it cancels every run itself) leaves nothing to do.
        access.killProcess(created.id).catch(() => {});
      };
      extra.signal.addEventListener("abort", cancel, { once: true });
      try {
        return answer(await waitFor(created.id, extra), (result) => result.exitState !== "success");
      } finally {
        extra.signal.removeEventListener("abort", cancel);
      }
    }),
  );

  server.registerTool(
    "get_process",
    {
      title: "Read a process",
      description:
        "Read a process started by run_code, by id: state, exitState, error and, once it is idle, its output, " +
        "stdout and stderr (long texts cut in the middle, as run_code answers them). With wait: true it first " +
        `waits for the process to end, at most ${waitSeconds} s, which is how to follow a run_code that answered ` +
        'state "running" (call it again while it is still running). With stream (stdout, stderr, output or ' +
        "error) it answers only a page of that text from offset, which is how to read what a cut left out: " +
        "follow page.nextOffset until it is null. Not needed right after a run_code that ended, which already " +
        "answered all of this.",
      inputSchema: {
        id: z.number().int().min(1).describe("Process id returned by run_code"),
        wait: z.boolean().optional().describe(`Wait for the process to end first, at most ${waitSeconds} s`),
        stream: z
          .enum(["stdout", "stderr", "output", "error"])
          .optional()
          .describe("Answer a page of this text (output: its JSON) instead of the summary"),
        offset: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe("Where the page starts (default 0), e.g. from a cut marker"),
        limit: z.number().int().min(1).optional().describe("Most characters in the page (default: the host's limit)"),
      },
      outputSchema: PROCESS_SUMMARY,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded("get_process", async ({ id, wait, stream, offset, limit }, extra) => {
      if (stream === undefined && (offset !== undefined || limit !== undefined)) {
        throw new ApiError(400, "bad_request", "offset and limit page a text: give stream too");
      }
      if (wait) {
        const record = await waitFor(id, extra);
        if (record.state !== "idle") return answer(record, () => false);
      }
      if (stream !== undefined) {
        return structured({ id, page: await access.processText(id, stream, offset ?? 0, limit) });
      }
      return answer(await access.getProcess(id), () => false);
    }),
  );

  server.registerTool(
    "kill_process",
    {
      title: "Stop a process",
      description:
        "Stop a process run_code started, by id: a queued one never runs; a running or suspended one ends " +
        "canceled, its tool calls in flight aborted and the approvals it waits for expired. Use it for a run that " +
        'answered state "running" and is no longer wanted (a loop, a wrong program) instead of waiting for its ' +
        "timeout. Answers the process as it ended, with what it wrote until then; a process that already ended is " +
        "answered as it is.",
      inputSchema: { id: z.number().int().min(1).describe("Process id returned by run_code") },
      outputSchema: PROCESS_SUMMARY,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded("kill_process", async ({ id }) => {
      await access.killProcess(id);
      return answer(await access.getProcess(id), () => false);
    }),
  );

  server.registerTool(
    "list_processes",
    {
      title: "List processes",
      description:
        "List the processes run_code started, newest first: id, ref, state, exitState, error (cut; get_process " +
        "has it whole), when it was created and how long it ran. Use it to find a run whose id you lost, or to " +
        "see what is still running. Filter by state or exitState; follow nextCursor for older ones.",
      inputSchema: {
        state: z
          .enum(["queued", "running", "suspended", "idle", "terminating"])
          .optional()
          .describe("Only processes in this state (suspended: waiting for an operator's approval)"),
        exitState: z
          .enum(["success", "failed", "timeout", "canceled"])
          .optional()
          .describe("Only processes whose last run ended so"),
        limit: z.number().int().min(1).max(100).optional().describe("Most processes to return (default 20)"),
        cursor: z.string().optional().describe("nextCursor of the previous answer"),
      },
      outputSchema: PROCESS_LIST,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded("list_processes", async ({ state, exitState, limit, cursor }) => {
      const page = await access.listProcesses({ state, exitState, limit: limit ?? 20, cursor });
      return structured({ processes: page.items.map(listed), nextCursor: page.nextCursor });
    }),
  );
}

const hasResults = (report: ProcessRecord | BoundedResult): report is BoundedResult => "cut" in report;

function summaryOf({ id, state, exitState, error, startedAt, finishedAt }: ProcessRecord): ProcessSummary {
  return { id, state, exitState, error, durationMs: durationOf(startedAt, finishedAt) };
}

function listed(record: ProcessRecord): ListedProcess {
  const { id, ref, state, exitState, error, createdAt, startedAt, finishedAt } = record;
  return {
    id,
    ref,
    state,
    exitState,
    error: error === null ? null : cutText(error, LISTED_ERROR_CHARS),
    createdAt,
    durationMs: durationOf(startedAt, finishedAt),
  };
}

const durationOf = (startedAt: string | null, finishedAt: string | null) =>
  startedAt && finishedAt ? Math.max(0, Date.parse(finishedAt) - Date.parse(startedAt)) : null;

interface Progress {
  stdout(text: string): void;
  /** An approval the process waits for was created or decided: said at once, and while it is pending. */
  approval(approval: ApprovalSummary): void;
  stop(): void;
}

/** Progress notifications for a wait on process `id`, if the client sent a progressToken. */
function startProgress(id: number, extra: Extra): Progress | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  const started = Date.now();
  let recent = "";
  const pending = new Map<number, ApprovalSummary>();
  let last = -1;
  const send = () => {
    // Progress must increase with every notification, and approvals can come within the same tenth of a second.
    const seconds = Math.max(Math.round((Date.now() - started) / 100) / 10, Math.round((last + 0.1) * 10) / 10);
    last = seconds;
    const line = lastLine(recent);
    const waiting = [...pending.values()].map((a) => `approval ${a.id} (${a.serviceId}.${a.toolId})`).join(", ");
    const message =
      `process ${id}: waiting for its end, ${Math.round(seconds)} s so far` +
      (waiting === "" ? "" : `; suspended until an operator decides ${waiting}`) +
      (line === undefined ? "" : `; last stdout line: ${cutText(line, LINE_CHARS)}`);
    extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: seconds, message },
      })
      .catch(() => undefined);
  };
  send();
  const timer = setInterval(send, PROGRESS_INTERVAL_MS);
  return {
    stdout(text) {
      recent = (recent + text).slice(-STDOUT_WINDOW_CHARS);
    },
    approval(approval) {
      if (approval.state === "pending") pending.set(approval.id, approval);
      else pending.delete(approval.id);
      send();
    },
    stop: () => clearInterval(timer),
  };
}

/** The last line with something on it (the one being written, if any). */
function lastLine(text: string): string | undefined {
  const lines = text.split("\n");
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!.trimEnd();
    if (line !== "") return line;
  }
  return undefined;
}

/** What a pending approval tells the agent whose call waits for it: the call, its parameters (a preview) and expiry. */
function waitingFor(approval: ApprovalListItem): PendingApproval {
  return {
    id: approval.id,
    tool: `${approval.serviceId}.${approval.toolId}`,
    parameters: approval.parameters,
    expiresAt: approval.expiresAt,
    ...(approval.question !== null && { question: approval.question }),
  };
}
