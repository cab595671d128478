/**
 * The structured output of the MCP tools. Each shape is picked from the
 * API's own (`contract/`), so a record is described once for HTTP, the CLI
 * and MCP; only what MCP adds (a run's `durationMs`) is written here. The
 * MCP SDK takes zod schemas: `toZod` converts each shape once, from its JSON
 * Schema.
 */
import { type Static, type TObject, Type } from "@sinclair/typebox";
import { z } from "zod";
import { Nullable } from "../contract/common.js";
import { ProcessRecord, ProcessResult } from "../contract/processes.js";
import { ServiceRecord } from "../contract/services.js";
import { ToolRecord } from "../contract/tools.js";

export const ServiceSummary = Type.Pick(ServiceRecord, ["id", "name", "description", "enabled", "stale", "toolCount"]);

export const ToolSummary = Type.Pick(ToolRecord, ["serviceId", "id", "name", "description", "effectivelyEnabled"]);

/** A process as the model needs it: the record without timestamps, the run's duration, and its results once idle. */
export const ProcessSummary = Type.Composite(
  [
    Type.Pick(ProcessRecord, ["id", "state", "exitState", "error"]),
    Type.Object({
      durationMs: Nullable(Type.Integer(), { description: "How long the run took; null if it has not run to the end" }),
    }),
    Type.Partial(Type.Pick(ProcessResult, ["output", "stdout", "stderr"])),
  ],
  { description: "output, stdout and stderr are present once the process is idle; id is what get_process takes" },
);

export const ServiceList = Type.Object({ services: Type.Array(ServiceSummary) });
export const ToolList = Type.Object({ tools: Type.Array(ToolSummary) });

export type ToolSummary = Static<typeof ToolSummary>;
export type ProcessSummary = Static<typeof ProcessSummary>;

/** A zod schema that accepts exactly what `schema` does (the MCP SDK validates structured output with it). */
export const toZod = (schema: TObject) => z.fromJSONSchema(JSON.parse(JSON.stringify(schema)));
