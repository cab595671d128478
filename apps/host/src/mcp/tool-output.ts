/**
 * The structured output of the MCP tools. Each shape is picked from the
 * API's own (`contract/`), so a record is described once for HTTP, the CLI
 * and MCP; only what MCP adds (a run's `durationMs`, what to call `next`,
 * the lists' wrappers) is written here. The
 * MCP SDK takes zod schemas: `toZod` converts each shape once, from its JSON
 * Schema.
 */
import { type Static, type TObject, Type } from "@sinclair/typebox";
import { z } from "zod";
import { Nullable } from "../contract/common.js";
import { BoundedResult, ProcessRecord, TextPage } from "../contract/processes.js";
import { ServiceRecord } from "../contract/services.js";
import { ToolRecord } from "../contract/tools.js";

export const ServiceSummary = Type.Pick(ServiceRecord, ["id", "name", "description", "enabled", "stale", "toolCount"]);

export const ToolSummary = Type.Pick(ToolRecord, [
  "serviceId",
  "id",
  "name",
  "description",
  "effectivelyEnabled",
  "policy",
]);

const DurationMs = Nullable(Type.Integer(), {
  description: "How long the run took; null if it has not run to the end",
});

/**
 * A process as the model needs it: the record without timestamps, the run's duration, its results (sized for an
 * LLM) once idle, what to call next while it runs, or one page of a text.
 */
export const ProcessSummary = Type.Composite(
  [
    Type.Pick(BoundedResult, ["id"]),
    Type.Partial(
      Type.Composite([
        Type.Pick(BoundedResult, [
          "state",
          "exitState",
          "error",
          "output",
          "stdout",
          "stderr",
          "cut",
          "calls",
          "pendingApprovalIds",
        ]),
        Type.Object({
          durationMs: DurationMs,
          next: Type.String({ description: "How to follow a process that is still running" }),
          page: TextPage,
        }),
      ]),
    ),
  ],
  {
    description:
      "state, exitState, error and durationMs always, except for a page; output, stdout, stderr and calls (how " +
      "many tool calls the run made and how many failed, per tool) once the process is idle (cut lists the texts " +
      "shortened, each with a marker saying how to read on); next (and pendingApprovalIds while it is suspended, " +
      "waiting for an operator's approval) while it is not idle; page (alone) when a text was asked for. id is " +
      "what get_process takes",
  },
);

export const ListedProcess = Type.Composite([
  Type.Pick(ProcessRecord, ["id", "ref", "state", "exitState", "error", "createdAt"]),
  Type.Object({ durationMs: DurationMs }),
]);

export const ProcessList = Type.Object({
  processes: Type.Array(ListedProcess),
  nextCursor: Nullable(Type.String(), { description: "Pass as cursor for the next (older) page; null at the end" }),
});

export const ServiceList = Type.Object({ services: Type.Array(ServiceSummary) });
export const ToolList = Type.Object({ tools: Type.Array(ToolSummary) });

export type ToolSummary = Static<typeof ToolSummary>;
export type ProcessSummary = Static<typeof ProcessSummary>;
export type ListedProcess = Static<typeof ListedProcess>;

/** A zod schema that accepts exactly what `schema` does (the MCP SDK validates structured output with it). */
export const toZod = (schema: TObject) => z.fromJSONSchema(JSON.parse(JSON.stringify(schema)));
