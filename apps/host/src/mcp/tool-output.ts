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
  "missingSecrets",
]);

const DurationMs = Nullable(Type.Integer(), {
  description: "How long the run took; null if it has not run to the end",
});

/**
 * A process as the model needs it: the record without timestamps, the run's duration, its results (sized for an
 * LLM) once idle, what to call next while it runs, or one page of a text.
 */
/** A call of the process that waits for an operator: which, with what (a preview), and until when. */
export const PendingApproval = Type.Object({
  id: Type.Integer(),
  tool: Type.String({ description: "serviceId.toolId" }),
  parameters: Type.Unknown({ description: "The call's parameters (a preview: at most 2048 characters of JSON)" }),
  expiresAt: Type.Union([Type.String(), Type.Null()], {
    description: "When it expires undecided (the call then throws approval_expired)",
  }),
  question: Type.Optional(Type.String({ description: "What the operator is asked, when not the usual question" })),
});
export type PendingApproval = Static<typeof PendingApproval>;

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
          pendingApprovals: Type.Array(PendingApproval),
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
      "shortened, each with a marker saying how to read on); next (and pendingApprovalIds with pendingApprovals — " +
      "each call's tool, parameters and expiry — while it is suspended, waiting for an operator's approval) while " +
      "it is not idle; page (alone) when a text was asked for. id is " +
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

/**
 * A zod schema that accepts exactly what `schema` does (the MCP SDK validates structured output with it), listed
 * to clients as `schema` itself made compact (`compactSchema`): zod's own rendering of it doubled the tool list
 * (integer bounds, a union per enum), for nothing a client needs.
 */
export function toZod(schema: TObject) {
  const json = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const listed = compactSchema(json, true);
  // Without its description, which zod keeps as a parent schema that its rendering would look for.
  const { description: _description, ...checked } = json;
  const zod = z.fromJSONSchema(checked);
  (zod._zod as { toJSONSchema?: () => unknown }).toJSONSchema = () => structuredClone(listed);
  return zod;
}

type JsonSchema = Record<string, unknown>;

/** The pattern TypeBox gives a record's property names: any name. */
const ANY_NAME = "^(.*)$";

/**
 * The same constraints, said shorter: a union of string constants becomes an `enum` (with `null` folded in for a
 * nullable one), a record's any-name pattern `additionalProperties`, and descriptions below the top are dropped
 * (the tool's description says what the fields mean).
 */
export function compactSchema(schema: JsonSchema, top = false): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description" && !top) continue;
    if (key === "properties" && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, compactSub(sub)]));
    } else if ((key === "items" || key === "additionalProperties") && isObject(value)) {
      out[key] = compactSchema(value);
    } else if (key === "patternProperties" && isObject(value) && Object.keys(value).join() === ANY_NAME) {
      // A record: every property name matches, so it is what `additionalProperties` says (nothing: any value).
      const each = compactSub(value[ANY_NAME]);
      if (!isObject(each) || Object.keys(each).length > 0) out.additionalProperties = each;
    } else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      Object.assign(out, compactUnion(key, value.map(compactSub)));
    } else {
      out[key] = value;
    }
  }
  return out;
}

function compactSub(value: unknown): unknown {
  return isObject(value) ? compactSchema(value) : value;
}

/** `anyOf` of string constants (and `null`) as one `enum`; any other union as it is. */
function compactUnion(key: string, members: unknown[]): JsonSchema {
  const flat = members.flatMap((member) =>
    isObject(member) && Object.keys(member).length === 1 && Array.isArray(member.anyOf) ? member.anyOf : [member],
  );
  const constants: unknown[] = [];
  let nullable = false;
  for (const member of flat) {
    if (!isObject(member)) return { [key]: members };
    const keys = Object.keys(member).sort().join();
    if (keys === "const,type" && member.type === "string") constants.push(member.const);
    else if (keys === "type" && member.type === "null") nullable = true;
    else return { [key]: members };
  }
  if (constants.length === 0) return { [key]: members };
  return nullable ? { type: ["string", "null"], enum: [...constants, null] } : { type: "string", enum: constants };
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
