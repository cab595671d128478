/** Governance: tool annotations and policies, approvals of calls, and the record of every call. */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, RowId, Timestamp } from "./common.js";
import { GLOB_PATTERN, MAX_GLOB_CHARS, MAX_RULES } from "./limits.js";

export const PolicyAction = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")], {
  description: "allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused",
});

export const ToolAnnotations = Type.Object(
  {
    readOnly: Type.Optional(Type.Boolean({ description: "Calling it changes nothing (e.g. HTTP GET)" })),
    destructive: Type.Optional(Type.Boolean({ description: "It may delete or overwrite data (e.g. HTTP DELETE)" })),
    idempotent: Type.Optional(Type.Boolean({ description: "Repeating a call has no further effect (PUT, DELETE)" })),
    openWorld: Type.Optional(Type.Boolean({ description: "It reaches a service outside the host" })),
  },
  {
    additionalProperties: false,
    description: "What the adapter says calling the tool does (the meaning of MCP's tool annotations); hints only",
  },
);

export const PolicyRule = Type.Object(
  {
    tools: Type.Optional(
      Type.String({
        pattern: GLOB_PATTERN,
        maxLength: MAX_GLOB_CHARS,
        description:
          "Tool ids this rule covers: `*` is any run of characters, `?` one character, the rest itself " +
          "(case-sensitive, the whole id). Absent: every tool. May name tools the service does not have",
      }),
    ),
    readOnly: Type.Optional(
      Type.Boolean({ description: "Only tools whose readOnly annotation is this (absent = false)" }),
    ),
    destructive: Type.Optional(
      Type.Boolean({ description: "Only tools whose destructive annotation is this (absent = false)" }),
    ),
    action: PolicyAction,
  },
  { additionalProperties: false },
);

/** Longest wait for an operator's decision a policy may set (the longest Node timer, about 24.8 days). */
export const MAX_APPROVAL_TIMEOUT_MS = 2_147_483_647;

export const ServicePolicy = Type.Object({
  default: PolicyAction,
  rules: Type.Array(PolicyRule, { description: "The first rule that matches a tool decides; else `default`" }),
  approvalTimeoutMs: Nullable(Type.Integer(), {
    description:
      "How long a call of this service waits for an operator's decision before its approval expires, in ms; null: " +
      "the host's CYRNEL_APPROVAL_TIMEOUT_MS. A run that waits holds no sandbox after CYRNEL_SUSPEND_EVICT_MS, so " +
      "this may be days",
  }),
});

/** `PUT /services/{id}/policy`: both fields optional (`default` allow, no rules). */
export const ServicePolicyBody = Type.Object(
  {
    default: Type.Optional(PolicyAction),
    rules: Type.Optional(Type.Array(PolicyRule, { maxItems: MAX_RULES })),
    approvalTimeoutMs: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: MAX_APPROVAL_TIMEOUT_MS }), {
        description:
          "How long its calls wait for a decision, in ms (at most about 24.8 days); null or absent: the host's",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApprovalState = Type.Union([
  Type.Literal("pending"),
  Type.Literal("approved"),
  Type.Literal("denied"),
  Type.Literal("expired"),
]);

/** Longest preview of an approval's parameters in lists, events and decisions: characters of JSON. */
export const APPROVAL_PREVIEW_CHARS = 2048;

const approvalFields = {
  id: Type.Integer(),
  processId: Type.Integer(),
  keyId: Nullable(Type.String(), {
    description:
      "The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key",
  }),
  serviceId: Type.String(),
  toolId: Type.String(),
  parametersBytes: Type.Integer({
    description: "The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes",
  }),
  parametersSha256: Type.String({
    description:
      "SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that " +
      "what was read in full is what is decided",
  }),
  state: ApprovalState,
  createdAt: Timestamp,
  decidedAt: Nullable(Timestamp),
  decidedBy: Nullable(Type.String(), {
    description: "The deciding key's id; null for the bootstrap key, no auth, and expiries",
  }),
  reason: Nullable(Type.String(), { description: "The operator's reason, or why the approval expired" }),
  question: Nullable(Type.String(), {
    description:
      "What the operator is asked when it is not the policy's usual question: a call that was in flight when the " +
      "host running its process stopped asks whether to send it again (it may have reached the service); null: " +
      "the usual (the service's policy asks for every call)",
  }),
  executionId: Nullable(Type.Integer(), { description: "The run that asked (a resumed run finds its approval again)" }),
  callIndex: Nullable(Type.Integer(), { description: "The call of that run that asked, by issue order from 0" }),
};

/** An approval in lists, events and decisions: its parameters as a bounded preview. */
export const ApprovalSummary = Type.Object({
  ...approvalFields,
  parameters: Type.Unknown({
    description:
      `A preview: the call's parameters (secret values replaced by [redacted]) when their JSON is at most ` +
      `${APPROVAL_PREVIEW_CHARS} characters; else a string with the start of that JSON, ending with ` +
      "`… [cut: N more characters]` (parameters are always an object, so a string means cut). " +
      "`GET /approvals/{id}` has them whole",
  }),
});

/** An approval in `GET /approvals`: the summary, when a pending one expires, and what its tool is annotated with. */
export const ApprovalListItem = Type.Composite([
  ApprovalSummary,
  Type.Object({
    expiresAt: Nullable(Timestamp, {
      description:
        "A pending approval: when it expires undecided (its creation plus the answering host's " +
        "CYRNEL_APPROVAL_TIMEOUT_MS); null once decided",
    }),
    toolAnnotations: Nullable(ToolAnnotations, {
      description: "The tool's annotations now (`destructive`, …); null when the tool is gone",
    }),
  }),
]);

/** Most approvals one bulk decision may name (a page of `GET /approvals`). */
export const MAX_BULK_DECISIONS = 1000;

/** `POST /approvals/decisions`: one verb and one reason for many approvals. */
export const BulkDecisionBody = Type.Object(
  {
    ids: Type.Array(RowId(), {
      minItems: 1,
      maxItems: MAX_BULK_DECISIONS,
    }),
    decision: Type.Union([Type.Literal("approve"), Type.Literal("deny")]),
    reason: Type.Optional(Type.String({ maxLength: 2000, description: "Shown to the code (denials) and kept" })),
  },
  { additionalProperties: false },
);

export const BulkDecisionResult = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.Integer(),
      approval: Nullable(ApprovalSummary, { description: "The decided approval; null when it was not decided" }),
      error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }), {
        description: "Why it was not decided (`conflict`: already decided; `not_found`), as the single route says it",
      }),
    }),
    { description: "One per distinct id, in the order given" },
  ),
  decided: Type.Integer({ description: "How many were decided" }),
});

/** One approval (`GET /approvals/{id}`), with its parameters whole. */
export const Approval = Type.Object({
  ...approvalFields,
  parameters: Type.Record(Type.String(), Type.Unknown(), {
    description: "The call's parameters, whole, with the service's secret values replaced by [redacted]",
  }),
});

export const ApprovalDecision = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 2000, description: "Shown to the code (denials) and kept" })) },
  { additionalProperties: false },
);

export const CallRecord = Type.Object({
  id: Type.Integer(),
  processId: Nullable(Type.Integer(), { description: "null for a direct invoke" }),
  keyId: Nullable(Type.String(), {
    description:
      "The stored key that made the call, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key",
  }),
  serviceId: Type.String(),
  toolId: Type.String(),
  startedAt: Timestamp,
  durationMs: Type.Integer({ description: "From the call to its end, a wait for approval included" }),
  outcome: Type.String({ description: "`ok`, or the error code the caller got (not_found, tool_denied, …)" }),
  status: Nullable(Type.Integer(), { description: "The end service's HTTP status, when the adapter reported one" }),
  connectionId: Nullable(Type.String(), {
    description: "The connected account (`/services/{id}/connections`) whose access token the call carried",
  }),
  parameters: Type.Unknown({
    description:
      "A preview: the parameters with secret values masked, when their JSON is at most 2048 characters; " +
      "else a string with the start of that JSON, marked as cut",
  }),
});

export const CallCounts = Type.Object({
  count: Type.Integer({ description: "Tool calls the run made" }),
  failed: Type.Integer({ description: "Calls that did not end ok (refused ones included)" }),
  byTool: Type.Record(Type.String(), Type.Object({ count: Type.Integer(), failed: Type.Integer() }), {
    description: "Per `serviceId.toolId`",
  }),
});

export type PolicyAction = Static<typeof PolicyAction>;
export type ServicePolicy = Static<typeof ServicePolicy>;
export type Approval = Static<typeof Approval>;
export type ApprovalSummary = Static<typeof ApprovalSummary>;
export type ApprovalListItem = Static<typeof ApprovalListItem>;
export type CallRecord = Static<typeof CallRecord>;
export type CallCounts = Static<typeof CallCounts>;
