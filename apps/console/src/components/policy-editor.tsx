/**
 * A service's policy: a default action and ordered rules (tool glob, read-only and destructive annotations), the
 * first matching rule deciding. Saved whole with PUT; the host validates globs and names a bad one.
 *
 * Guard rails: a new rule starts with no condition, and a rule without any is not saved (it would match every tool;
 * `*` says so on purpose); each rule previews the service's tools it matches (from the tool list, with the host's
 * matcher); destructive tools the draft lets run without asking are named, with a one-click `ask` rule; leaving the
 * page with unsaved edits asks first; "Policy saved." goes away at the next edit.
 */
import { useMemo, useState } from "react";
import { api, unwrap } from "../api/client";
import type { PolicyAction, PolicyRule, ServicePolicy } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { useLeaveGuard } from "../router/router";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";
import { decide, matchesEverything, type PolicyTool, ruleMatches } from "./policy-match";

/** How many tool names a rule's preview lists before "and N more". */
const PREVIEW_NAMES = 5;
/** The most tools read for the previews (pages of 1000): far past any service seen so far. */
const MAX_TOOL_PAGES = 20;

/** Every tool of the service (id and annotations), page by page. */
async function serviceTools(serviceId: string): Promise<PolicyTool[]> {
  const tools: PolicyTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const answer = await unwrap(
      api.GET("/tools", { params: { query: { serviceId, limit: 1000, ...(cursor && { cursor }) } } }),
    );
    for (const tool of answer.items) tools.push({ id: tool.id, annotations: tool.annotations });
    if (answer.nextCursor === null) break;
    cursor = answer.nextCursor;
  }
  return tools;
}

const ACTIONS: PolicyAction[] = ["allow", "ask", "deny"];
type Flag = "any" | "true" | "false";
const flagOf = (value: boolean | undefined): Flag => (value === undefined ? "any" : value ? "true" : "false");
const flagValue = (flag: Flag) => (flag === "any" ? undefined : flag === "true");

export function PolicySection({ serviceId, onSaved }: { serviceId: string; onSaved(): void }) {
  const policy = useLoad(
    () => unwrap(api.GET("/services/{id}/policy", { params: { path: { id: serviceId } } })),
    [serviceId],
  );
  const tools = useLoad(() => serviceTools(serviceId), [serviceId]);
  // Kept here: the form below is rebuilt from the saved policy, which would drop a note kept inside it.
  const [saved, setSaved] = useState(false);
  return (
    <section className="card" aria-labelledby="policy-title">
      <h2 id="policy-title">Policy</h2>
      <p className="muted">
        What a call of each tool gets: <strong>allow</strong> runs it, <strong>ask</strong> waits for an operator's
        approval, <strong>deny</strong> refuses it. The first rule that matches a tool decides; otherwise the default.
      </p>
      {policy.loading && !policy.data && <Loading what="Loading the policy" />}
      <ErrorBox error={policy.error} title="Could not load the policy" />
      {policy.data && (
        <PolicyForm
          key={JSON.stringify(policy.data)}
          serviceId={serviceId}
          initial={policy.data}
          tools={tools.data ?? null}
          onEdit={() => setSaved(false)}
          onSaved={() => {
            setSaved(true);
            void policy.reload(true);
            onSaved();
          }}
        />
      )}
      {saved && (
        <p className="success" role="status">
          Policy saved.
        </p>
      )}
    </section>
  );
}

function PolicyForm({
  serviceId,
  initial,
  tools,
  onEdit,
  onSaved,
}: {
  serviceId: string;
  initial: ServicePolicy;
  /** The service's tools, for the previews (null while they load or when they could not be read). */
  tools: PolicyTool[] | null;
  /** Any change to the draft (and the start of a save): the last "saved" note no longer describes it. */
  onEdit(): void;
  onSaved(): void;
}) {
  const [fallback, setFallbackState] = useState<PolicyAction>(initial.default);
  const [rules, setRulesState] = useState<PolicyRule[]>(initial.rules);
  const setFallback = (action: PolicyAction) => {
    onEdit();
    setFallbackState(action);
  };
  const setRules = (change: (current: PolicyRule[]) => PolicyRule[]) => {
    onEdit();
    setRulesState(change);
  };
  const dirty =
    JSON.stringify({ fallback, rules }) !== JSON.stringify({ fallback: initial.default, rules: initial.rules });
  const [saving, setSaving] = useState(false);
  useLeaveGuard(dirty && !saving ? "The policy has unsaved changes. Leave without saving them?" : null);
  const save = useAction(async () => {
    onEdit();
    setSaving(true);
    try {
      await unwrap(
        // The approval timeout is set through the API; saving the rules here keeps it.
        api.PUT("/services/{id}/policy", {
          params: { path: { id: serviceId } },
          body: { default: fallback, rules, approvalTimeoutMs: initial.approvalTimeoutMs },
        }),
      );
    } catch (error) {
      setSaving(false);
      throw error;
    }
    onSaved();
  });
  const decisions = useMemo(
    () => (tools ?? []).map((tool) => ({ tool, decision: decide(fallback, rules, tool) })),
    [tools, fallback, rules],
  );
  // Destructive tools this draft lets run without asking; the `ask` rule for them goes before the first rule that
  // allows one (so rules above it, a deny say, keep deciding), or last when the default allows them.
  const allowedDestructive = decisions.filter(
    ({ tool, decision }) => tool.annotations.destructive === true && decision.action === "allow",
  );
  const askAt = Math.min(...allowedDestructive.map(({ decision }) => decision.rule ?? rules.length));
  const update = (index: number, change: Partial<PolicyRule>) =>
    setRules((current) =>
      current.map((rule, i) => {
        if (i !== index) return rule;
        const next: PolicyRule = { ...rule, ...change };
        for (const key of ["tools", "readOnly", "destructive"] as const)
          if (next[key] === undefined || next[key] === "") delete next[key];
        return next;
      }),
    );
  const move = (index: number, by: number) =>
    setRules((current) => {
      const next = [...current];
      const [rule] = next.splice(index, 1);
      next.splice(index + by, 0, rule!);
      return next;
    });

  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      {allowedDestructive.length > 0 && (
        <div className="notice" role="note" aria-label="Destructive tools allowed">
          <p>
            <strong>
              {allowedDestructive.length} destructive {allowedDestructive.length === 1 ? "tool runs" : "tools run"}{" "}
              without asking:
            </strong>{" "}
            {names(allowedDestructive.map(({ tool }) => tool.id))}. A tool that may delete or overwrite data is safer
            behind <strong>ask</strong>.
          </p>
          <button
            type="button"
            className="button small"
            onClick={() =>
              setRules((current) => [
                ...current.slice(0, askAt),
                { destructive: true, action: "ask" },
                ...current.slice(askAt),
              ])
            }
          >
            Ask before destructive tools
          </button>
        </div>
      )}
      <label className="inline-label">
        Default action
        <select value={fallback} onChange={(event) => setFallback(event.target.value as PolicyAction)}>
          {ACTIONS.map((action) => (
            <option key={action}>{action}</option>
          ))}
        </select>
      </label>
      {rules.length > 0 && (
        <ol className="rules">
          {rules.map((rule, index) => (
            // Rules have no id; their position is what they are.
            // biome-ignore lint/suspicious/noArrayIndexKey: the index is the rule's identity here.
            <li key={index} className="rule">
              <fieldset>
                <legend>Rule {index + 1}</legend>
                <label>
                  Tools (glob)
                  <input
                    value={rule.tools ?? ""}
                    placeholder="e.g. delete*, or * for every tool"
                    onChange={(event) => update(index, { tools: event.target.value })}
                    // A rule with no condition at all matches every tool: a pattern (`*` on purpose) or an
                    // annotation condition is required.
                    required={rule.readOnly === undefined && rule.destructive === undefined}
                    title="A tool pattern (* for every tool), unless the rule names read-only or destructive"
                    spellCheck={false}
                  />
                </label>
                <label>
                  Read-only
                  <select
                    value={flagOf(rule.readOnly)}
                    onChange={(event) => update(index, { readOnly: flagValue(event.target.value as Flag) })}
                  >
                    <option value="any">any</option>
                    <option value="true">yes</option>
                    <option value="false">no</option>
                  </select>
                </label>
                <label>
                  Destructive
                  <select
                    value={flagOf(rule.destructive)}
                    onChange={(event) => update(index, { destructive: flagValue(event.target.value as Flag) })}
                  >
                    <option value="any">any</option>
                    <option value="true">yes</option>
                    <option value="false">no</option>
                  </select>
                </label>
                <label>
                  Action
                  <select
                    value={rule.action}
                    onChange={(event) => update(index, { action: event.target.value as PolicyAction })}
                  >
                    {ACTIONS.map((action) => (
                      <option key={action}>{action}</option>
                    ))}
                  </select>
                </label>
                <RulePreview index={index} rule={rule} decisions={tools === null ? null : decisions} />
                <div className="rule-buttons">
                  <button
                    type="button"
                    className="button small"
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                    aria-label={`Move rule ${index + 1} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button small"
                    disabled={index === rules.length - 1}
                    onClick={() => move(index, 1)}
                    aria-label={`Move rule ${index + 1} down`}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="button small danger"
                    onClick={() => setRules((current) => current.filter((_, i) => i !== index))}
                    aria-label={`Remove rule ${index + 1}`}
                  >
                    Remove
                  </button>
                </div>
              </fieldset>
            </li>
          ))}
        </ol>
      )}
      <div className="row">
        <button type="button" className="button" onClick={() => setRules((current) => [...current, { action: "ask" }])}>
          Add rule
        </button>
        <button type="submit" className="button primary" disabled={save.busy}>
          {save.busy ? "Saving…" : "Save policy"}
        </button>
      </div>
      <ErrorBox error={save.error} title="The policy was not saved" />
    </form>
  );
}

/** "a, b, c and 4 more" */
function names(ids: string[]): string {
  const shown = ids.slice(0, PREVIEW_NAMES).join(", ");
  return ids.length > PREVIEW_NAMES ? `${shown} and ${ids.length - PREVIEW_NAMES} more` : shown;
}

/** The service's tools a rule matches, and how many of them an earlier rule decides instead. */
function RulePreview({
  index,
  rule,
  decisions,
}: {
  index: number;
  rule: PolicyRule;
  decisions: { tool: PolicyTool; decision: { rule: number | null } }[] | null;
}) {
  if (matchesEverything(rule))
    return (
      <p className="rule-preview muted" data-testid={`rule-${index + 1}-preview`}>
        Give a tool pattern (<code>*</code> for every tool) or a read-only or destructive condition.
      </p>
    );
  if (decisions === null) return null;
  const matched = decisions.filter(({ tool }) => ruleMatches(rule, tool));
  const earlier = matched.filter(({ decision }) => decision.rule !== null && decision.rule < index).length;
  return (
    <p className="rule-preview muted" data-testid={`rule-${index + 1}-preview`}>
      {matched.length === 0 ? (
        "Matches no tool of this service."
      ) : (
        <>
          Matches {matched.length} of {decisions.length} {decisions.length === 1 ? "tool" : "tools"}:{" "}
          {names(matched.map(({ tool }) => tool.id))}
          {earlier > 0 && ` (${earlier} decided by an earlier rule)`}.
        </>
      )}
    </p>
  );
}
