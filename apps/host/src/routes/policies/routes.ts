import { Type } from "@sinclair/typebox";
import { ServicePolicy, ServicePolicyBody } from "../../contract/governance.js";
import type { Policies } from "../../domain/governance/policies.js";
import { defineRoute, json, type RouteDefinition } from "../../http/route.js";

const tags = ["policies"];
const IdParams = Type.Object({ id: Type.String() });

export function policyRoutes(policies: Policies): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/services/{id}/policy",
      operationId: "getServicePolicy",
      summary: "The tool policy of a service",
      description: "A service whose policy was never set allows every call: `{default: allow, rules: []}`.",
      tags,
      access: "admin",
      params: IdParams,
      responses: { 200: { description: "The policy", schema: ServicePolicy } },
      errors: ["not_found"],
      handler: async ({ params }) => json(200, await policies.get(params.id)),
    }),
    defineRoute({
      method: "put",
      path: "/services/{id}/policy",
      operationId: "setServicePolicy",
      summary: "Replace the tool policy of a service",
      description:
        "What happens to a call of each tool: the first rule that matches the tool decides (`tools` is a glob over " +
        "tool ids: `*` any run of characters, `?` one; `readOnly`/`destructive` match the tool's annotations, an " +
        "absent one counting as false; every condition a rule names must hold), else `default` (allow when " +
        "absent). allow: calls run; ask: a call from code waits for an operator's approval (a direct invoke is " +
        "refused); deny: calls are refused before anything is sent. Rules may name tools the service does not " +
        "have; the policy stays through updates of the service and goes with it when it is deleted.",
      tags,
      access: "admin",
      params: IdParams,
      body: ServicePolicyBody,
      responses: { 200: { description: "The policy now in force", schema: ServicePolicy } },
      errors: ["not_found", "bad_request"],
      handler: async ({ params, body }) =>
        json(
          200,
          await policies.set(params.id, {
            default: body.default ?? "allow",
            rules: body.rules ?? [],
            approvalTimeoutMs: body.approvalTimeoutMs ?? null,
          }),
        ),
    }),
  ];
}
