/**
 * A service's policy: a default action and ordered rules (tool glob, read-only and destructive annotations), the
 * first matching rule deciding. Saved whole with PUT; the host validates globs and names a bad one.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { PolicyAction, PolicyRule, ServicePolicy } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";

const ACTIONS: PolicyAction[] = ["allow", "ask", "deny"];
type Flag = "any" | "true" | "false";
const flagOf = (value: boolean | undefined): Flag => (value === undefined ? "any" : value ? "true" : "false");
const flagValue = (flag: Flag) => (flag === "any" ? undefined : flag === "true");

export function PolicySection({ serviceId, onSaved }: { serviceId: string; onSaved(): void }) {
  const policy = useLoad(
    () => unwrap(api.GET("/services/{id}/policy", { params: { path: { id: serviceId } } })),
    [serviceId],
  );
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
          onSaving={() => setSaved(false)}
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
  onSaving,
  onSaved,
}: {
  serviceId: string;
  initial: ServicePolicy;
  onSaving(): void;
  onSaved(): void;
}) {
  const [fallback, setFallback] = useState<PolicyAction>(initial.default);
  const [rules, setRules] = useState<PolicyRule[]>(initial.rules);
  const save = useAction(async () => {
    onSaving();
    await unwrap(
      api.PUT("/services/{id}/policy", { params: { path: { id: serviceId } }, body: { default: fallback, rules } }),
    );
    onSaved();
  });
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
                    placeholder="any tool, or e.g. delete*"
                    onChange={(event) => update(index, { tools: event.target.value })}
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
