/** Approving or denying one pending tool call, with an optional reason (a denial's reason reaches the code). */
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { Approval } from "../api/types";
import { useAction } from "../hooks/use-action";
import { Dialog } from "./dialog";
import { ErrorBox } from "./error-box";

export type Verb = "approve" | "deny";

export function DecisionDialog({
  approval,
  verb,
  onClose,
  onDecided,
}: {
  approval: Approval | null;
  verb: Verb;
  onClose(): void;
  onDecided(approval: Approval): void;
}) {
  const [reason, setReason] = useState("");
  // A new approval starts with an empty reason and no earlier error.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the approval changes.
  useEffect(() => setReason(""), [approval?.id]);
  const decide = useAction(async () => {
    if (!approval) return;
    const path = { id: approval.id };
    const body = reason.trim() ? { reason: reason.trim() } : {};
    const decided =
      verb === "approve"
        ? await unwrap(api.POST("/approvals/{id}/approve", { params: { path }, body }))
        : await unwrap(api.POST("/approvals/{id}/deny", { params: { path }, body }));
    setReason("");
    onDecided(decided);
  });
  const title = approval ? `${verb === "approve" ? "Approve" : "Deny"} ${approval.serviceId}.${approval.toolId}` : "";
  return (
    <Dialog open={approval !== null} title={title} onClose={onClose}>
      {approval && (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            void decide.run();
          }}
        >
          <p>
            Process {approval.processId} asks to call <code>{`${approval.serviceId}.${approval.toolId}`}</code> with:
          </p>
          <pre className="code-block small">{JSON.stringify(approval.parameters, null, 2)}</pre>
          <label>
            <span>
              Reason <span className="muted">(optional{verb === "deny" ? "; the code sees it in the error" : ""})</span>
            </span>
            <textarea value={reason} onChange={(event) => setReason(event.target.value)} maxLength={2000} rows={3} />
          </label>
          <ErrorBox error={decide.error} title="Not decided" />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <button
              type="submit"
              className={verb === "approve" ? "button primary" : "button danger"}
              disabled={decide.busy}
            >
              {decide.busy ? "Sending…" : verb === "approve" ? "Approve call" : "Deny call"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
