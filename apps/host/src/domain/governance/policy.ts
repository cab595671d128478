/**
 * Tool policies: what happens to a call of each tool of a service. A policy
 * is a default action and a list of rules; the first rule that matches a
 * tool decides, else the default. A rule matches by tool id (a glob) and by
 * the tool's annotations; every condition it names must hold.
 *
 * Globs are over tool ids (which are identifiers: letters, digits, `_`,
 * `$`): `*` stands for any run of characters (none included), `?` for
 * exactly one, everything else for itself, case-sensitively, and the glob
 * must match the whole id (`delete*` matches `deletePet`, not `undelete`).
 *
 * Pure: no database, no clock.
 */
import type { ToolAnnotations, ToolPolicy } from "@cyrnel/sdk";
import { GLOB_PATTERN, MAX_GLOB_CHARS } from "../../contract/limits.js";

export type PolicyAction = ToolPolicy;

export const POLICY_ACTIONS = ["allow", "ask", "deny"] as const satisfies readonly PolicyAction[];

export interface PolicyRule {
  /** A glob over tool ids; absent: every tool. */
  tools?: string;
  /** Matches tools whose `readOnly` annotation is this (an absent annotation counts as `false`). */
  readOnly?: boolean;
  /** Matches tools whose `destructive` annotation is this (an absent annotation counts as `false`). */
  destructive?: boolean;
  action: PolicyAction;
}

export interface ServicePolicy {
  default: PolicyAction;
  rules: PolicyRule[];
  /** How long a call of the service waits for an operator's decision; null: the host's CYRNEL_APPROVAL_TIMEOUT_MS. */
  approvalTimeoutMs: number | null;
}

/** A service nobody gave a policy allows every call. */
export const DEFAULT_POLICY: Readonly<ServicePolicy> = Object.freeze({
  default: "allow",
  rules: [],
  approvalTimeoutMs: null,
});

const GLOB = new RegExp(GLOB_PATTERN);

/** Why `glob` is not a valid tool glob, or null. */
export function globProblem(glob: string): string | null {
  if (glob.length > MAX_GLOB_CHARS) return `is longer than ${MAX_GLOB_CHARS} characters`;
  if (!GLOB.test(glob)) {
    return "may only contain the characters of tool ids (letters, digits, _ and $) and the wildcards * and ?";
  }
  return null;
}

/**
 * Whether `glob` matches the whole `id`. Not a regular expression: `*Delete*Repo*` as one backtracks for seconds
 * over a long id. This walks both once, going back only to the last `*` seen, so it takes at most
 * `glob.length × id.length` steps (both are capped: MAX_GLOB_CHARS, and the SDK's MAX_IDENTIFIER_CHARS).
 */
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

/** The tool as a policy sees it. */
export interface PolicySubject {
  id: string;
  annotations: ToolAnnotations;
}

/** A policy ready to be asked about many tools. */
export class CompiledPolicy {
  private readonly rules: { test: (tool: PolicySubject) => boolean; action: PolicyAction }[];

  constructor(private readonly policy: Readonly<Pick<ServicePolicy, "default" | "rules">>) {
    this.rules = policy.rules.map((rule) => {
      const glob = rule.tools;
      return {
        action: rule.action,
        test: (tool) =>
          (glob === undefined || globMatches(glob, tool.id)) &&
          (rule.readOnly === undefined || (tool.annotations.readOnly ?? false) === rule.readOnly) &&
          (rule.destructive === undefined || (tool.annotations.destructive ?? false) === rule.destructive),
      };
    });
  }

  actionFor(tool: PolicySubject): PolicyAction {
    return this.rules.find((rule) => rule.test(tool))?.action ?? this.policy.default;
  }

  /** Whether any tool could be denied (the default, or a rule, says `deny`). */
  get mayDeny(): boolean {
    return this.policy.default === "deny" || this.rules.some((rule) => rule.action === "deny");
  }
}
