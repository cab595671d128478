/**
 * Which tools a policy's rules match, as the host decides it (apps/host/src/domain/governance/policy.ts): the first
 * rule whose every condition holds decides, else the default. A glob is over tool ids: `*` any run of characters,
 * `?` exactly one, the rest itself, case-sensitively, matching the whole id. An absent annotation counts as false.
 * Only a preview: the host decides every call.
 */
import type { PolicyAction, PolicyRule, ToolRecord } from "../api/types";

export type PolicyTool = Pick<ToolRecord, "id" | "annotations">;

/** The host's matcher, walking both strings once (back to the last `*` only), so a long glob cannot blow up. */
export function globMatches(glob: string, id: string): boolean {
  let g = 0;
  let i = 0;
  let star = -1;
  let resumeAt = 0;
  while (i < id.length) {
    if (g < glob.length && (glob[g] === "?" || glob[g] === id[i])) {
      g++;
      i++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      resumeAt = i;
    } else if (star !== -1) {
      g = star + 1;
      i = ++resumeAt;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

export function ruleMatches(rule: PolicyRule, tool: PolicyTool): boolean {
  return (
    (rule.tools === undefined || globMatches(rule.tools, tool.id)) &&
    (rule.readOnly === undefined || (tool.annotations.readOnly ?? false) === rule.readOnly) &&
    (rule.destructive === undefined || (tool.annotations.destructive ?? false) === rule.destructive)
  );
}

/** A rule with no condition matches every tool. */
export const matchesEverything = (rule: PolicyRule) =>
  rule.tools === undefined && rule.readOnly === undefined && rule.destructive === undefined;

export interface Decision {
  action: PolicyAction;
  /** The index of the deciding rule, or null for the default. */
  rule: number | null;
}

export function decide(fallback: PolicyAction, rules: PolicyRule[], tool: PolicyTool): Decision {
  const index = rules.findIndex((rule) => ruleMatches(rule, tool));
  return index === -1 ? { action: fallback, rule: null } : { action: rules[index]!.action, rule: index };
}
