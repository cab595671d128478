import { Type } from "@sinclair/typebox";
import { EnabledBody, JsonObject, ListOf, ListQuery } from "../../contract/common.js";
import {
  type InputOverride,
  InputOverrideBody,
  ToolDetail,
  ToolDocsQuery,
  ToolListItem,
  ToolsEnabledBody,
  ToolsEnabledResult,
} from "../../contract/tools.js";
import { searchQuery } from "../../db/search-query.js";
import { type EnvironmentDocs, requireTool } from "../../domain/environment-docs.js";
import type { Policies } from "../../domain/governance/policies.js";
import type { InputOverrides } from "../../domain/services/input-overrides.js";
import { toolDetail, toolRecord } from "../../domain/services/records.js";
import type { InputOverrideRow, ServiceStore, ToolRow, ToolSummaryRow } from "../../domain/services/service-store.js";
import type { ToolCredentials } from "../../domain/services/tool-credentials.js";
import type { ToolGate } from "../../domain/services/tool-gate.js";
import { CyrnelError, notFound } from "../../errors.js";
import { decodeCursor, isRankCursor, isStringPair, toPage } from "../../http/pagination.js";
import { defineRoute, json, type RouteDefinition, text } from "../../http/route.js";
import { readableText } from "../../lib/plain-text.js";

const tags = ["tools"];
const ToolParams = Type.Object({ serviceId: Type.String(), toolId: Type.String() });
/** Longest `search` text (far above any task description; bounds the work one query can ask for). */
const MAX_SEARCH_CHARS = 1000;

export function toolRoutes(
  store: ServiceStore,
  gate: ToolGate,
  docs: EnvironmentDocs,
  policies: Pick<Policies, "actionFor">,
  overrides: InputOverrides,
  credentials: Pick<ToolCredentials, "missing">,
): RouteDefinition[] {
  const record = async (row: ToolSummaryRow) =>
    toolRecord(row, await policies.actionFor(row), await credentials.missing(row));
  const detail = async (row: ToolRow) => toolDetail(row, await policies.actionFor(row), await credentials.missing(row));
  /** One tool's answer: with its input override (or null). */
  const single = async (row: ToolRow) => ({
    ...(await detail(row)),
    inputOverride: overrideView(await overrides.of(row)),
  });
  // Search results are read by an agent choosing a tool: descriptions as text, not the document's HTML (Stripe's).
  const readable = <Row extends { description: string }>(row: Row): Row => ({
    ...row,
    description: readableText(row.description),
  });
  /** A page of rows as items: each with the policy its calls meet. */
  const pageOf = async <Row, Item>(
    rows: Row[],
    limit: number,
    item: (row: Row) => Promise<Item>,
    cursorOf: (row: Row) => unknown,
  ) => {
    const page = toPage(rows, limit, (row) => row, cursorOf);
    return { items: await Promise.all(page.items.map(item)), nextCursor: page.nextCursor };
  };

  return [
    defineRoute({
      method: "get",
      path: "/tools",
      operationId: "listTools",
      access: "agent",
      summary: "List and search tools",
      description:
        "Without `search`: every tool matching the filters, in service and definition order. With `search`: tools " +
        "ranked by how well they match its words (BM25 over id, name, description, endpoint and service), best " +
        "first; only callable tools unless `includeDisabled=true`; descriptions as plain text (HTML tags removed, " +
        'entities decoded). The query\'s verb counts ("delete …" favours DELETE endpoints, "read …" GET, and ' +
        "finds get, list and download tools); an id or an endpoint, with or without its method, comes first. The " +
        "other filters apply to both.",
      tags,
      query: Type.Object({
        serviceId: Type.Optional(Type.String()),
        query: Type.Optional(Type.String({ description: "Case-insensitive substring of name or description" })),
        search: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: MAX_SEARCH_CHARS,
            description:
              'Words describing the task ("refund a charge", "chat.postMessage"); results in rank order. Its ' +
              "nextCursor pages through this ranking only",
          }),
        ),
        includeDisabled: Type.Optional(
          Type.Boolean({
            default: false,
            description: "With `search`: also tools that cannot be called now (disabled or stale)",
          }),
        ),
        enabled: Type.Optional(Type.Boolean()),
        include: Type.Optional(
          Type.Literal("schemas", { description: "`schemas`: each item also carries inputSchema and outputSchema" }),
        ),
        ...ListQuery,
      }),
      responses: { 200: { description: "A page of tools", schema: ListOf(ToolListItem) } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query, caller }) => {
        const { include, search, includeDisabled, ...rest } = query;
        // The key's allow-list narrows every list and search: other services' tools do not exist for it.
        const filter = { ...rest, serviceIds: caller.services ?? undefined };
        const limit = filter.limit ?? 100;
        if (search !== undefined) {
          const words = searchQuery(search);
          if (words === undefined) {
            throw new CyrnelError(
              "bad_request",
              `search ${JSON.stringify(search)} has no letters or digits to look for`,
            );
          }
          // Ranked pages are addressed by position: there is no key to continue after.
          const offset = decodeCursor(filter.cursor, isRankCursor)?.rank ?? 0;
          const ranked = {
            ...filter,
            limit,
            ...words,
            includeDisabled: includeDisabled ?? false,
            offset,
          };
          const next = () => ({ rank: offset + limit });
          // Schemas are read only when asked for: they are most of a row (Stripe's reach megabytes).
          if (include === "schemas")
            return json(
              200,
              await pageOf(await store.searchToolsWithSchemas(ranked), limit, (row) => detail(readable(row)), next),
            );
          return json(200, await pageOf(await store.searchTools(ranked), limit, (row) => record(readable(row)), next));
        }
        const page = { ...filter, limit, after: decodeCursor(filter.cursor, isStringPair) };
        const cursorOf = (row: { serviceId: string; position: number }) => [row.serviceId, row.position];
        // Without `include=schemas` the schema columns are not even read: they are most of a row (GitHub's API:
        // 9 MB for 1,223 tools), and parsing them was most of a page's time.
        if (include === "schemas") {
          return json(200, await pageOf(await store.listToolsWithSchemas(page), limit, detail, cursorOf));
        }
        return json(200, await pageOf(await store.listTools(page), limit, record, cursorOf));
      },
    }),
    defineRoute({
      method: "get",
      path: "/tools/{serviceId}/{toolId}",
      operationId: "getTool",
      access: "agent",
      summary: "Get a tool with its input and output schemas",
      tags,
      params: ToolParams,
      responses: { 200: { description: "The tool", schema: ToolDetail } },
      errors: ["not_found"],
      handler: async ({ params, caller }) =>
        json(200, await single(await requireTool(store, caller, params.serviceId, params.toolId))),
    }),
    defineRoute({
      method: "put",
      path: "/tools/{serviceId}/{toolId}/input-override",
      operationId: "setToolInputOverride",
      access: "admin",
      summary: "Override a tool's input constraints where the API's document is wrong",
      description:
        "A JSON Merge Patch (RFC 7396) over the input schema the adapter made from the API's document, with the " +
        "reason, recorded with who set it and when (shown as `inputOverride` on the tool). From then on the " +
        "patched schema is the tool's: calls are validated against it, and types, docs and tool lists show it. " +
        "It replaces an earlier override of the tool (it is always applied to the document's schema), and an " +
        "update of the service applies it to the new document's schema. A patch that leaves no usable JSON " +
        "Schema is a 400 naming why.",
      tags,
      params: ToolParams,
      body: InputOverrideBody,
      responses: { 200: { description: "The tool, with its patched input schema", schema: ToolDetail } },
      errors: ["bad_request", "validation_failed", "not_found"],
      handler: async ({ params, body, caller }) => {
        const tool = await requireTool(store, caller, params.serviceId, params.toolId);
        await overrides.set(tool, body.patch, body.reason, caller);
        return json(200, await single(await requireTool(store, caller, params.serviceId, params.toolId)));
      },
    }),
    defineRoute({
      method: "delete",
      path: "/tools/{serviceId}/{toolId}/input-override",
      operationId: "removeToolInputOverride",
      access: "admin",
      summary: "Remove a tool's input override: its input schema is the document's again",
      tags,
      params: ToolParams,
      responses: { 200: { description: "The tool, with the document's input schema", schema: ToolDetail } },
      errors: ["not_found"],
      handler: async ({ params, caller }) => {
        const tool = await requireTool(store, caller, params.serviceId, params.toolId);
        await overrides.remove(tool, caller);
        return json(200, await single(await requireTool(store, caller, params.serviceId, params.toolId)));
      },
    }),
    defineRoute({
      method: "get",
      path: "/tools/{serviceId}/{toolId}/docs",
      operationId: "getToolDocs",
      access: "agent",
      summary: "Markdown reference for a tool, rendered by the active environment",
      description:
        "At most CYRNEL_AGENT_TEXT_LIMIT_CHARS characters. Named types are declared once, those near the " +
        "parameters and result in full; `expand` shows one more (or `Input`/`Output`, the whole parameter or result type).",
      tags,
      params: ToolParams,
      query: ToolDocsQuery,
      responses: {
        200: { description: "Markdown", schema: Type.String(), contentType: "text/markdown; charset=utf-8" },
      },
      errors: ["not_found", "no_environment", "adapter_error", "invoke_timeout"],
      handler: async ({ params, query, caller }) =>
        text(
          200,
          await docs.tool(caller, params.serviceId, params.toolId, query.expand),
          "text/markdown; charset=utf-8",
        ),
    }),
    defineRoute({
      method: "post",
      path: "/tools/{serviceId}/{toolId}/enabled",
      operationId: "setToolEnabled",
      access: "admin",
      summary: "Enable or disable one tool",
      tags,
      params: ToolParams,
      body: EnabledBody,
      responses: { 200: { description: "The tool", schema: ToolDetail } },
      errors: ["bad_request", "validation_failed", "not_found"],
      handler: async ({ params, body, caller }) => {
        await requireTool(store, caller, params.serviceId, params.toolId);
        await store.setToolEnabled(params.serviceId, params.toolId, body.enabled);
        return json(200, await detail(await requireTool(store, caller, params.serviceId, params.toolId)));
      },
    }),
    defineRoute({
      method: "post",
      path: "/services/{id}/tools/enabled",
      operationId: "setServiceToolsEnabled",
      access: "admin",
      summary: "Enable or disable many tools of a service at once",
      description:
        "Every tool of the service, or those `toolIds` names, or those annotated destructive (`destructive: true`), " +
        "or both narrowings together: switched in one transaction (one change for the other hosts, one new " +
        "revision). A tool id the service does not have answers 404 and nothing changes.",
      tags,
      params: Type.Object({ id: Type.String() }),
      body: ToolsEnabledBody,
      responses: { 200: { description: "How many tools were selected and changed", schema: ToolsEnabledResult } },
      errors: ["bad_request", "validation_failed", "not_found"],
      handler: async ({ params, body }) => {
        if (!(await store.get(params.id))) throw notFound(`service ${params.id}`);
        // Summaries only (no schemas): GitHub's 1,223 tools are 9 MB with them, a few hundred KB without.
        const tools = await store.listTools({ serviceId: params.id, limit: 1_000_000 });
        let selected = tools;
        if (body.toolIds !== undefined) {
          const known = new Set(tools.map((tool) => tool.id));
          const missing = [...new Set(body.toolIds)].filter((id) => !known.has(id));
          if (missing.length > 0) {
            const named = missing.slice(0, 10).join(", ") + (missing.length > 10 ? `, … (${missing.length})` : "");
            throw notFound(`${missing.length === 1 ? "tool" : "tools"} ${named} of service ${params.id}`);
          }
          const wanted = new Set(body.toolIds);
          selected = selected.filter((tool) => wanted.has(tool.id));
        }
        if (body.destructive !== undefined) {
          selected = selected.filter((tool) => (tool.annotations.destructive === true) === body.destructive);
        }
        const changed = await store.setToolsEnabled(
          params.id,
          selected.map((tool) => tool.id),
          body.enabled,
        );
        return json(200, { enabled: body.enabled, matched: selected.length, changed });
      },
    }),
    defineRoute({
      method: "post",
      path: "/tools/{serviceId}/{toolId}/invoke",
      operationId: "invokeTool",
      access: "agent",
      summary: "Call a tool directly",
      description:
        "Checked in this order before the adapter is called: service exists (404), tool exists (404), service enabled " +
        "and not stale (409 service_disabled), tool enabled (409 tool_disabled), parameters match the input schema " +
        "(400 validation_failed), the service's policy allows the tool (403 tool_denied; a tool whose policy is " +
        "ask needs an approval for every call, which only a call from process code can wait for: 403 " +
        "approval_required), the key has fewer than CYRNEL_KEY_INFLIGHT_CALLS calls in flight (429 rate_limited), a " +
        "service that acts for a connected account has one for this caller (403 connection_required, with the URL " +
        "to connect; a refresh the provider fails is 502 upstream_error). " +
        "Then adapter errors → 502 adapter_error, a slow adapter → 504 invoke_timeout (its request is aborted), a " +
        "host stopping meanwhile → 503 shutting_down. Every call is recorded (GET /calls).",
      tags,
      params: ToolParams,
      body: Type.Object(
        {
          parameters: Type.Optional(JsonObject),
          withResponse: Type.Optional(
            Type.Boolean({
              description:
                "true: `result` is `{status, headers, body}`, the response's status and headers as far as the " +
                "adapter has them (openapi: both; `null` and `{}` otherwise), `set-cookie` dropped",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: "What the adapter returned", schema: Type.Object({ result: Type.Unknown() }) } },
      errors: [
        "bad_request",
        "validation_failed",
        "not_found",
        "service_disabled",
        "tool_disabled",
        "tool_denied",
        "approval_required",
        "connection_required",
        "adapter_error",
        "upstream_error",
        "invoke_timeout",
      ],
      handler: async ({ params, body, caller }) => {
        const result = await gate.invoke(
          { ...params, parameters: body.parameters ?? {}, ...(body.withResponse === true && { withResponse: true }) },
          { caller, processId: null, executionId: null },
        );
        return json(200, { result: result === undefined ? null : result });
      },
    }),
  ];
}

function overrideView(row: InputOverrideRow | undefined): InputOverride | null {
  if (row === undefined) return null;
  const { patch, reason, setBy, setAt, original } = row;
  return { patch, reason, setBy, setAt, documentInputSchema: original };
}
