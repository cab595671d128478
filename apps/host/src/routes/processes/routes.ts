import { Type } from "@sinclair/typebox";
import type { Context } from "hono";
import { AnyText, ListOf, ListQuery, RowId, Timestamp } from "../../contract/common.js";
import {
  BoundedResult,
  ExitState,
  ProcessEvent,
  ProcessRecord,
  ProcessReport,
  ProcessState,
  ProcessText,
  PrunedProcesses,
  TextPage,
} from "../../contract/processes.js";
import { type Caller, reachesProcess } from "../../domain/governance/caller.js";
import { sliceText } from "../../domain/processes/bounded-results.js";
import { boundedResult, processRecord, processResult, processText } from "../../domain/processes/process-record.js";
import type { ProcessRetention } from "../../domain/processes/process-retention.js";
import { MAX_TIMEOUT_MS, type ProcessRunner, type ProcessView } from "../../domain/processes/process-runner.js";
import { CyrnelError, notFound } from "../../errors.js";
import { decodeCursor, isNumber, toPage } from "../../http/pagination.js";
import { utc } from "../../http/query-time.js";
import { defineRoute, json, noContent, type RouteDefinition, text } from "../../http/route.js";

const tags = ["processes"];
const TYPECHECK_DESCRIPTION =
  "Type-check the code against the types of the services it can reach before it runs; on errors the run ends " +
  "`failed` with `error` listing them, and nothing runs. Default: the environment's (on for typescript-ivm); " +
  "`true` on an environment that cannot check is a 400.";
const IdParams = Type.Object({ id: RowId() });
const numberFormat = new Intl.NumberFormat("en-US");

export interface ProcessRouteOptions {
  /** CYRNEL_AGENT_TEXT_LIMIT_CHARS: the most characters of a results answer and of a text page. */
  agentTextLimitChars: number;
  /** Deletes finished processes in bulk (`DELETE /processes`). */
  retention: ProcessRetention;
}

/**
 * Agents reach only the processes their key created: every route on one
 * process answers another's exactly as a process that does not exist.
 */
export function processRoutes(
  runner: ProcessRunner,
  { agentTextLimitChars, retention }: ProcessRouteOptions,
): RouteDefinition[] {
  const reachable = (caller: Caller, id: number) => reachableProcess(runner, caller, id);

  /** With `block`, answer once the process is idle, with its results. */
  const result = async (row: ProcessView) => processResult(row, await runner.callCounts(row.id));
  const respond = async (row: ProcessView, block: boolean | undefined, status: number, context: Context) =>
    block
      ? json(status, await result(await waitBounded(runner, row, context.req.raw.signal)))
      : json(status, processRecord(row));

  return [
    defineRoute({
      method: "post",
      path: "/processes",
      operationId: "createProcess",
      access: "agent",
      summary: "Run TypeScript in the active environment",
      description:
        "Code runs as the body of an async function (top-level await). With `block: true` the response waits until " +
        "the process is idle and carries `output`, `stdout` and `stderr`.",
      tags,
      body: Type.Object(
        {
          code: Type.String({ description: "TypeScript source (≤ 100 KiB)" }),
          ref: Type.Optional(Type.String({ description: "Optional label, trimmed, non-empty" })),
          timeoutMs: Type.Optional(
            Type.Union([Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MS }), Type.Null()], {
              description:
                "Milliseconds the code may run once it runs, and may wait in the queue before that. " +
                "Default 30000; at most 2147483647 (about 24.8 days); null = no limit",
            }),
          ),
          block: Type.Optional(Type.Boolean()),
          typecheck: Type.Optional(Type.Boolean({ description: TYPECHECK_DESCRIPTION })),
        },
        { additionalProperties: false },
      ),
      responses: {
        201: {
          description: "The process (with results when blocking)",
          schema: ProcessReport,
        },
      },
      errors: ["bad_request", "validation_failed", "payload_too_large", "no_environment", "at_capacity"],
      handler: async ({ body, caller, context }) =>
        respond(await runner.create(body, caller.keyId), body.block, 201, context),
    }),
    defineRoute({
      method: "get",
      path: "/processes",
      operationId: "listProcesses",
      access: "agent",
      summary: "List processes, newest first or oldest first (an agent key: its own only)",
      description:
        "Filters combine. `refPrefix` matches refs that start with the text, case-sensitively, every character as " +
        "itself (`%`, `_`, `*` are no wildcards); `since`/`until` bound the creation time. `order=oldest` lists " +
        "upwards; a cursor continues in the order it came from.",
      tags,
      query: Type.Object({
        keyId: Type.Optional(
          Type.String({ description: "Only those created with this stored key (or `oauth:<sub>`)" }),
        ),
        state: Type.Optional(ProcessState),
        exitState: Type.Optional(ExitState),
        ref: Type.Optional(AnyText({ description: "Only processes with this ref (any text, as it was given)" })),
        refPrefix: Type.Optional(
          AnyText({ description: "Only processes whose ref starts with this text (no wildcards), e.g. `nightly-`" }),
        ),
        since: Type.Optional({ ...Timestamp, description: "Only processes created at or after this time" }),
        until: Type.Optional({ ...Timestamp, description: "Only processes created before this time" }),
        order: Type.Optional(
          Type.Union([Type.Literal("newest"), Type.Literal("oldest")], { default: "newest", description: "By id" }),
        ),
        ...ListQuery,
      }),
      responses: { 200: { description: "A page of processes", schema: ListOf(ProcessRecord) } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query, caller }) => {
        const limit = query.limit ?? 100;
        // An agent lists its own processes only: asking for another key's finds none.
        const keyId = caller.role === "admin" ? query.keyId : (caller.keyId ?? "");
        if (query.keyId !== undefined && query.keyId !== keyId) return json(200, { items: [], nextCursor: null });
        const { cursor, since, until, ...filter } = query;
        const from = decodeCursor(cursor, isNumber);
        const rows = await runner.list({
          ...filter,
          keyId,
          limit,
          ...(since !== undefined && { since: utc(since, "since") }),
          ...(until !== undefined && { until: utc(until, "until") }),
          ...(query.order === "oldest" ? { after: from } : { before: from }),
        });
        return json(
          200,
          toPage(rows, limit, processRecord, (row) => row.id),
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/processes/{id}",
      operationId: "getProcess",
      access: "agent",
      summary: "Get a process",
      tags,
      params: IdParams,
      responses: { 200: { description: "The process", schema: ProcessRecord } },
      errors: ["validation_failed", "not_found"],
      handler: async ({ params, caller }) => json(200, processRecord(await reachable(caller, params.id))),
    }),
    defineRoute({
      method: "get",
      path: "/processes/{id}/code",
      operationId: "getProcessCode",
      access: "agent",
      summary: "The submitted source",
      tags,
      params: IdParams,
      responses: { 200: { description: "Source", schema: Type.String(), contentType: "text/plain; charset=utf-8" } },
      errors: ["validation_failed", "not_found"],
      handler: async ({ params, caller }) =>
        text(200, (await reachable(caller, params.id)).code, "text/plain; charset=utf-8"),
    }),
    defineRoute({
      method: "get",
      path: "/processes/{id}/output",
      operationId: "getProcessOutput",
      access: "agent",
      summary: "Everything passed to cyrnel.output(...), shallow-merged (once idle)",
      tags,
      params: IdParams,
      responses: { 200: { description: "Output", schema: Type.Record(Type.String(), Type.Unknown()) } },
      errors: ["validation_failed", "not_found", "conflict"],
      handler: async ({ params, caller }) => {
        await reachable(caller, params.id);
        return json(200, (await runner.requireIdle(params.id, "output")).output ?? {});
      },
    }),
    ...(["stdout", "stderr"] as const).map((stream) =>
      defineRoute({
        method: "get",
        path: `/processes/{id}/${stream}`,
        operationId: `getProcess${stream === "stdout" ? "Stdout" : "Stderr"}`,
        access: "agent",
        summary: `The process's ${stream} (once idle)`,
        tags,
        params: IdParams,
        responses: { 200: { description: stream, schema: Type.String(), contentType: "text/plain; charset=utf-8" } },
        errors: ["validation_failed", "not_found", "conflict"],
        handler: async ({ params, caller }) => {
          await reachable(caller, params.id);
          return text(200, (await runner.requireIdle(params.id, stream))[stream], "text/plain; charset=utf-8");
        },
      }),
    ),
    defineRoute({
      method: "get",
      path: "/processes/{id}/results",
      operationId: "getProcessResults",
      access: "agent",
      summary: "The results of an idle process, sized for an LLM",
      description:
        "The process with its output, stdout and stderr (as `POST /processes` with `block` answers), but with " +
        "stdout, stderr, the output's JSON and the error within CYRNEL_AGENT_TEXT_LIMIT_CHARS characters in total. " +
        "Texts that fit an equal share are whole; a longer one keeps its head and tail around a marker that names " +
        "the offset to read on from with `GET /processes/{id}/text`, and is listed in `cut`. A cut output is its " +
        "JSON text.",
      tags,
      params: IdParams,
      responses: { 200: { description: "The process and its bounded results", schema: BoundedResult } },
      errors: ["validation_failed", "not_found", "conflict"],
      handler: async ({ params, caller }) => {
        await reachable(caller, params.id);
        const row = await runner.requireIdle(params.id, "results");
        return json(200, boundedResult(row, agentTextLimitChars, await runner.callCounts(params.id)));
      },
    }),
    defineRoute({
      method: "get",
      path: "/processes/{id}/text",
      operationId: "getProcessText",
      access: "agent",
      summary: "A page of an idle process's stdout, stderr, output JSON or error",
      description:
        "Offsets count UTF-16 code units (JavaScript's string length); `limit` counts characters as the page's " +
        "text takes them inside JSON (a quote or a newline two), like the limit of a process's results, so no " +
        "page is longer than it; a page never ends inside a surrogate pair. Read on from `nextOffset` until it is null: the pages join to the whole text (for " +
        "`output`, exactly the body of `GET /processes/{id}/output`).",
      tags,
      params: IdParams,
      query: Type.Object({
        stream: ProcessText,
        offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: "Where to start" })),
        limit: Type.Optional(
          Type.Integer({
            minimum: 1,
            description: "Most characters to answer (default and at most CYRNEL_AGENT_TEXT_LIMIT_CHARS)",
          }),
        ),
      }),
      responses: { 200: { description: "The page", schema: TextPage } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict"],
      handler: async ({ params, query, caller }) => {
        await reachable(caller, params.id);
        const whole = processText(await runner.requireIdle(params.id, query.stream), query.stream);
        const offset = query.offset ?? 0;
        if (offset > whole.length) {
          throw new CyrnelError(
            "bad_request",
            `offset ${offset} is past the end of the ${query.stream} of process ${params.id} ` +
              `(${numberFormat.format(whole.length)} characters)`,
          );
        }
        const page = sliceText(whole, offset, Math.min(query.limit ?? agentTextLimitChars, agentTextLimitChars));
        return json(200, { stream: query.stream, totalChars: whole.length, ...page });
      },
    }),
    defineRoute({
      method: "get",
      path: "/processes/{id}/events",
      operationId: "followProcess",
      access: "agent",
      summary: "Follow a process live: stdout and stderr as they are written, then its end",
      description:
        'Newline-delimited JSON, one event per line: `{"type":"stdout"|"stderr","text"}` for what was ' +
        'written so far and then for each new chunk; `{"type":"call", ...callRecord}` when a tool call ends; ' +
        '`{"type":"approval", ...approval}` for each approval the process waits for when the reader comes, and ' +
        "when one is created or decided (the process is suspended while one is pending); " +
        'and last `{"type":"end","process"}` with the idle ' +
        "process and its results (as `POST /processes` with `block` answers). An idle process answers its stored " +
        "text and the end at once. Text past the stream cap is dropped after one marker line. A running process " +
        "takes a limited number of live followers (CYRNEL_PROCESS_FOLLOWERS_LIMIT); past it, 429.",
      tags,
      params: IdParams,
      responses: {
        // Each line is one ProcessEvent: the schema describes a line, so clients get the event types from here.
        200: { description: "NDJSON events, one per line", schema: ProcessEvent, contentType: "application/x-ndjson" },
      },
      errors: ["validation_failed", "not_found", "too_many_followers"],
      handler: async ({ params, caller, signal }) => {
        await reachable(caller, params.id);
        const encoder = new TextEncoder();
        let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
        let open = true;
        const send = (event: ProcessEvent) => {
          if (open) controller?.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
        };
        const end = () => {
          if (!open) return;
          open = false;
          followed.close();
          controller?.close();
        };
        // First, so a refusal (too many followers) is an error response. Events only arrive on later turns of the
        // event loop, and `start` below runs synchronously in the constructor: `controller` is set before any.
        const followed = await runner.follow(params.id, send);
        const body = new ReadableStream<Uint8Array>({
          start: (c) => {
            controller = c;
          },
          cancel: () => {
            open = false;
            followed.close();
          },
        });
        for (const stream of ["stdout", "stderr"] as const) {
          if (followed[stream] !== "") send({ type: stream, text: followed[stream] });
        }
        for (const approval of followed.approvals) send({ type: "approval", ...approval });
        followed.done
          .then(async (row) => send({ type: "end", process: await result(row) }))
          // Without its results (the database failed), the stream still ends.
          .catch(() => undefined)
          .finally(end);
        signal.addEventListener("abort", end, { once: true });
        return new Response(body, {
          status: 200,
          headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
        });
      },
    }),
    defineRoute({
      method: "post",
      path: "/processes/{id}/signals/run",
      operationId: "runProcess",
      access: "agent",
      summary: "Run an idle process again",
      description: "Replacing the results of an earlier run needs `force: true`.",
      tags,
      params: IdParams,
      body: Type.Object(
        {
          force: Type.Optional(Type.Boolean()),
          block: Type.Optional(Type.Boolean()),
          typecheck: Type.Optional(Type.Boolean({ description: TYPECHECK_DESCRIPTION })),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: "The process", schema: ProcessReport } },
      errors: ["bad_request", "validation_failed", "not_found", "conflict", "no_environment", "at_capacity"],
      handler: async ({ params, body, caller, context }) => {
        await reachable(caller, params.id);
        return respond(await runner.run(params.id, body.force ?? false, body.typecheck), body.block, 200, context);
      },
    }),
    defineRoute({
      method: "post",
      path: "/processes/{id}/signals/kill",
      operationId: "killProcess",
      access: "agent",
      summary: "Cancel a queued or running process",
      description:
        "queued → idle/canceled; running or suspended → terminating → idle/canceled (the approvals a suspended " +
        "process waits for expire); idle → 409.",
      tags,
      params: IdParams,
      responses: { 200: { description: "The process, idle", schema: ProcessRecord } },
      errors: ["validation_failed", "not_found", "conflict"],
      handler: async ({ params, caller }) => {
        await reachable(caller, params.id);
        return json(200, processRecord(await runner.kill(params.id)));
      },
    }),
    defineRoute({
      method: "delete",
      path: "/processes/{id}",
      operationId: "deleteProcess",
      access: "agent",
      summary: "Delete an idle process and its results",
      tags,
      params: IdParams,
      responses: { 204: { description: "Deleted" } },
      errors: ["validation_failed", "not_found", "conflict"],
      handler: async ({ params, caller }) => {
        await reachable(caller, params.id);
        await runner.delete(params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: "delete",
      path: "/processes",
      operationId: "pruneProcesses",
      access: "admin",
      summary: "Delete every idle process that finished before a time, with its runs, call records and approvals",
      description:
        "What `CYRNEL_PROCESSES_RETENTION_DAYS` does daily, on demand. Processes still queued, running or suspended " +
        "are never deleted. `finishedBefore` is required, so that nothing is deleted by accident.",
      tags,
      query: Type.Object({
        finishedBefore: { ...Timestamp, description: "Delete the processes that finished before this time" },
        exitState: Type.Optional(ExitState),
      }),
      responses: { 200: { description: "How many processes were deleted", schema: PrunedProcesses } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query }) => {
        const before = new Date(query.finishedBefore);
        if (Number.isNaN(before.getTime())) {
          throw new CyrnelError("bad_request", `"finishedBefore" is not a date-time: "${query.finishedBefore}"`);
        }
        return json(200, { deleted: await retention.prune(before, query.exitState) });
      },
    }),
  ];
}

/** The process, if the caller may reach it; another key's process is a 404 exactly like a missing one. */
export async function reachableProcess(
  runner: Pick<ProcessRunner, "get">,
  caller: Caller,
  id: number,
): Promise<ProcessView> {
  const row = await runner.get(id);
  if (!reachesProcess(caller, row)) throw notFound(`process ${id}`);
  return row;
}

/**
 * How long past its `timeoutMs` a blocking request waits for a run's end before it answers with the process as it is
 * (not idle: the client polls). A run ends at its deadline, so this is only reached when its end cannot be recorded
 * yet (the database out of reach, the disk full: the host keeps retrying).
 */
const BLOCK_GRACE_MS = 30_000;

/** `waitIdle`, bounded by the run's timeout (plus grace); time spent waiting for an approval does not count. */
async function waitBounded(runner: ProcessRunner, row: ProcessView, signal: AbortSignal): Promise<ProcessView> {
  if (row.timeoutMs === null) return runner.waitIdle(row.id, signal);
  for (;;) {
    const bound = AbortSignal.any([
      signal,
      AbortSignal.timeout(Math.min(row.timeoutMs + BLOCK_GRACE_MS, MAX_TIMEOUT_MS)),
    ]);
    const view = await runner.waitIdle(row.id, bound);
    if (view.state !== "suspended" || signal.aborted) return view;
  }
}
