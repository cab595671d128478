import { Type } from "@sinclair/typebox";
import { ListOf, ListQuery, RowId } from "../../contract/common.js";
import {
  Approval,
  ApprovalDecision,
  ApprovalListItem,
  ApprovalState,
  ApprovalSummary,
  BulkDecisionBody,
  BulkDecisionResult,
} from "../../contract/governance.js";
import type { Approvals } from "../../domain/governance/approvals.js";
import { notFound } from "../../errors.js";
import { pageById } from "../../http/pagination.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

const tags = ["approvals"];
const IdParams = Type.Object({ id: RowId() });
/** How the `keyId` filter names the bootstrap key (whose approvals store no key id). */
const BOOTSTRAP_KEY_FILTER = "bootstrap";

export function approvalRoutes(approvals: Approvals): RouteDefinition[] {
  const decision = (verb: "approve" | "deny") =>
    defineRoute({
      method: "post",
      path: `/approvals/{id}/${verb}`,
      operationId: `${verb}Approval`,
      summary: verb === "approve" ? "Approve a pending call" : "Deny a pending call",
      description:
        verb === "approve"
          ? "The call goes on (once) and the process runs again when it waits for nothing else. A decided " +
            "approval answers 409."
          : "The call throws `403 approval_denied` in the process's code, with the reason in its message. A decided " +
            "approval answers 409.",
      tags,
      access: "admin",
      params: IdParams,
      body: ApprovalDecision,
      responses: { 200: { description: "The decided approval (parameters as a preview)", schema: ApprovalSummary } },
      errors: ["validation_failed", "not_found", "conflict"],
      // `decidedBy`: the deciding key's id (null for CYRNEL_API_KEY or an open host, which have none).
      handler: async ({ params, body, caller }) =>
        json(
          200,
          await approvals[verb === "approve" ? "approve" : "deny"](
            params.id,
            caller.keyId,
            body.reason?.trim() || null,
          ),
        ),
    });

  return [
    defineRoute({
      method: "get",
      path: "/approvals",
      operationId: "listApprovals",
      summary: "List approvals, newest first",
      description:
        "Calls of tools whose policy is `ask` wait for one of these to be approved or denied. Each item's " +
        "`parameters` is a preview (at most 2048 characters of JSON) with the whole value's size and SHA-256; " +
        "`GET /approvals/{id}` has the parameters whole. Each pending one says when it expires (`expiresAt`), each " +
        "carries its tool's annotations (`toolAnnotations`). Paged like every list (`limit`, `cursor`). An agent " +
        "key sees the approvals of its own processes only (what its calls wait for, their parameters and expiry).",
      tags,
      access: "agent",
      query: Type.Object({
        state: Type.Optional(ApprovalState),
        processId: Type.Optional(RowId()),
        serviceId: Type.Optional(Type.String({ minLength: 1 })),
        toolId: Type.Optional(Type.String({ minLength: 1 })),
        keyId: Type.Optional(
          Type.String({
            minLength: 1,
            description: "The key the process was created with; `bootstrap` for the bootstrap key (CYRNEL_API_KEY)",
          }),
        ),
        ...ListQuery,
      }),
      responses: { 200: { description: "A page of approvals", schema: ListOf(ApprovalListItem) } },
      errors: ["bad_request", "validation_failed"],
      handler: async ({ query, caller }) => {
        // An agent reads its own processes' approvals only: asking for another key's finds none.
        const keyId = caller.role === "admin" ? query.keyId : (caller.keyId ?? BOOTSTRAP_KEY_FILTER);
        if (query.keyId !== undefined && query.keyId !== keyId) return json(200, { items: [], nextCursor: null });
        return json(
          200,
          await pageById(
            query,
            (limit, before) => approvals.list({ ...query, ...(keyId !== undefined && { keyId }), limit, before }),
            (row) => row,
          ),
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/approvals/{id}",
      operationId: "getApproval",
      summary: "Get an approval, with its parameters whole",
      description:
        "The call's parameters as the operator decides on them (secret values masked), at most " +
        "CYRNEL_BODY_LIMIT_BYTES of JSON; `parametersSha256` is the SHA-256 of their JSON text. An agent key reads " +
        "the approvals of its own processes only (another's is a 404).",
      tags,
      access: "agent",
      params: IdParams,
      responses: { 200: { description: "The approval", schema: Approval } },
      errors: ["validation_failed", "not_found"],
      handler: async ({ params, caller }) => {
        const approval = await approvals.get(params.id);
        if (caller.role !== "admin" && approval.keyId !== caller.keyId) throw notFound(`approval ${params.id}`);
        return json(200, approval);
      },
    }),
    decision("approve"),
    decision("deny"),
    defineRoute({
      method: "post",
      path: "/approvals/decisions",
      operationId: "decideApprovals",
      summary: "Approve or deny many pending calls with one reason",
      description:
        "Each id is decided exactly as `POST /approvals/{id}/approve` or `/deny` decides it, one after the other in " +
        "the order given; one that cannot be (already decided: `conflict`; `not_found`) is reported in its result " +
        "and the others go on. Answers 200 with one result per distinct id.",
      tags,
      access: "admin",
      body: BulkDecisionBody,
      responses: { 200: { description: "One result per id", schema: BulkDecisionResult } },
      errors: ["validation_failed"],
      handler: async ({ body, caller }) => {
        const results = await approvals.decideMany(body.ids, body.decision, caller.keyId, body.reason?.trim() || null);
        return json(200, { results, decided: results.filter((result) => result.approval !== null).length });
      },
    }),
  ];
}
