/** Processes: submitted TypeScript, its runs, and what a run leaves behind. */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.js";
import { ApprovalSummary, CallCounts, CallRecord } from "./governance.js";

export const ExitState = Type.Union([
  Type.Literal("success"),
  Type.Literal("failed"),
  Type.Literal("timeout"),
  Type.Literal("canceled"),
]);

export const ProcessState = Type.Union([
  Type.Literal("queued"),
  Type.Literal("running"),
  Type.Literal("suspended"),
  Type.Literal("idle"),
  Type.Literal("terminating"),
]);

export const ProcessRecord = Type.Object({
  id: Type.Integer(),
  ref: Nullable(Type.String()),
  state: ProcessState,
  exitState: Nullable(ExitState, { description: "null until a run ends" }),
  error: Nullable(Type.String(), {
    description: "Why the run did not succeed (compiler message, uncaught error, timeout)",
  }),
  timeoutMs: Nullable(Type.Integer()),
  keyId: Nullable(Type.String(), {
    description:
      "The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees " +
      "only its own); null for CYRNEL_API_KEY",
  }),
  createdAt: Timestamp,
  startedAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
  pendingApprovalIds: Type.Array(Type.Integer(), {
    description: "Approvals a tool call of the process waits for; while any is pending the state is suspended",
  }),
});

/** The record with the results of its last run (once idle). */
export const ProcessResult = Type.Composite([
  ProcessRecord,
  Type.Object({
    output: Type.Record(Type.String(), Type.Unknown(), {
      description: "Everything passed to cyrnel.output(...), shallow-merged",
    }),
    stdout: Type.String({ description: "console.log/info/debug" }),
    stderr: Type.String({ description: "console.warn/error" }),
    calls: CallCounts,
  }),
]);

/** What `POST /processes` and `.../signals/run` answer: with results when they waited (`block`), else the record. */
export const ProcessReport = Type.Union([ProcessResult, ProcessRecord]);

/** The texts a run leaves, as `GET /processes/{id}/text` pages them; `output` is the compact JSON of the output. */
export const ProcessText = Type.Union(
  [Type.Literal("stdout"), Type.Literal("stderr"), Type.Literal("output"), Type.Literal("error")],
  { description: "stdout, stderr, output (its compact JSON) or error" },
);

export const TextCut = Type.Object({
  stream: ProcessText,
  totalChars: Type.Integer({ description: "Length of the whole text" }),
  headChars: Type.Integer({ description: "Characters shown from the start: the offset to read on from" }),
  tailChars: Type.Integer({ description: "Characters shown from the end" }),
});

/** The results of an idle process with its texts within the host's agent text limit (`GET /processes/{id}/results`). */
export const BoundedResult = Type.Composite([
  ProcessRecord,
  Type.Object({
    output: Type.Union([
      Type.Record(Type.String(), Type.Unknown()),
      Type.String({ description: "The output's JSON with its middle cut, when it did not fit" }),
    ]),
    stdout: Type.String(),
    stderr: Type.String(),
    cut: Type.Array(TextCut, { description: "The texts shown with their middle cut; empty when all fit" }),
    calls: CallCounts,
  }),
]);

/** A page of one of a process's texts (`GET /processes/{id}/text`). */
export const TextPage = Type.Object({
  stream: ProcessText,
  offset: Type.Integer({ description: "Where this page starts" }),
  totalChars: Type.Integer(),
  text: Type.String(),
  nextOffset: Nullable(Type.Integer(), { description: "Where the next page starts; null at the end" }),
});

/** One line of `GET /processes/{id}/events` (newline-delimited JSON). */
export const ProcessEvent = Type.Union([
  Type.Object({ type: Type.Union([Type.Literal("stdout"), Type.Literal("stderr")]), text: Type.String() }),
  Type.Composite([Type.Object({ type: Type.Literal("call") }), CallRecord]),
  Type.Composite([Type.Object({ type: Type.Literal("approval") }), ApprovalSummary]),
  Type.Object({ type: Type.Literal("end"), process: ProcessResult }),
]);

export type ExitState = Static<typeof ExitState>;
export type ProcessState = Static<typeof ProcessState>;
export type ProcessRecord = Static<typeof ProcessRecord>;
export type ProcessResult = Static<typeof ProcessResult>;
export type ProcessReport = Static<typeof ProcessReport>;
export type ProcessEvent = Static<typeof ProcessEvent>;
export type ProcessText = Static<typeof ProcessText>;
export type BoundedResult = Static<typeof BoundedResult>;
export type TextPage = Static<typeof TextPage>;

/** `DELETE /processes`: how many finished processes went, with their runs, call records and approvals. */
export const PrunedProcesses = Type.Object({ deleted: Type.Integer({ minimum: 0 }) });
export type PrunedProcesses = Static<typeof PrunedProcesses>;
