import { Type } from "@sinclair/typebox";
import { ListOf, ListQuery, RowId, Timestamp } from "../../contract/common.js";
import { CallRecord } from "../../contract/governance.js";
import { type CallLog, callRecord } from "../../domain/governance/call-log.js";
import type { CallFilter } from "../../domain/governance/call-store.js";
import type { ProcessRunner } from "../../domain/processes/process-runner.js";
import { pageById } from "../../http/pagination.js";
import { utc } from "../../http/query-time.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";
import { reachableProcess } from "../processes/routes.js";

const tags = ["calls"];

export function callRoutes(calls: Pick<CallLog, "list">, runner: Pick<ProcessRunner, "get">): RouteDefinition[] {
  const page = async (filter: Omit<CallFilter, "limit" | "before">, query: { limit?: number; cursor?: string }) =>
    json(200, await pageById(query, (limit, before) => calls.list({ ...filter, limit, before }), callRecord));

  return [
    defineRoute({
      method: "get",
      path: "/calls",
      operationId: "listCalls",
      summary: "The record of tool calls, newest first",
      description:
        "Every tool call, from process code or a direct invoke, allowed or refused: who made it (process, key), " +
        "what it called, when, how long it took, how it ended (`ok` or the error code) and a preview of its " +
        "parameters with secret values masked. Kept CYRNEL_CALLS_RETENTION_DAYS days.",
      tags,
      access: "admin",
      query: Type.Object({
        serviceId: Type.Optional(Type.String()),
        toolId: Type.Optional(Type.String()),
        keyId: Type.Optional(Type.String()),
        processId: Type.Optional(RowId()),
        outcome: Type.Optional(Type.String({ description: "`ok` or an error code, e.g. tool_denied" })),
        connectionId: Type.Optional(Type.String({ description: "Calls that carried this connected account's token" })),
        since: Type.Optional({ ...Timestamp, description: "Only calls that started at or after this time" }),
        until: Type.Optional({ ...Timestamp, description: "Only calls that started before this time" }),
        ...ListQuery,
      }),
      responses: { 200: { description: "A page of call records", schema: ListOf(CallRecord) } },
      errors: ["bad_request", "validation_failed"],
      handler: ({ query }) => {
        const { limit, cursor, since, until, ...filter } = query;
        return page(
          {
            ...filter,
            ...(since !== undefined && { since: utc(since, "since") }),
            ...(until !== undefined && { until: utc(until, "until") }),
          },
          { limit, cursor },
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/processes/{id}/calls",
      operationId: "listProcessCalls",
      summary: "The tool calls of a process, newest first",
      description:
        "Of every run of the process (re-runs included), allowed or refused, as `GET /calls` shows them. " +
        "An agent key reaches the calls of the processes it created.",
      tags,
      access: "agent",
      params: Type.Object({ id: RowId() }),
      query: Type.Object(ListQuery),
      responses: { 200: { description: "A page of call records", schema: ListOf(CallRecord) } },
      errors: ["bad_request", "validation_failed", "not_found"],
      handler: async ({ params, query, caller }) => {
        await reachableProcess(runner, caller, params.id);
        return page({ processId: params.id }, query);
      },
    }),
  ];
}
