/**
 * Approving or denying one pending tool call, with an optional reason (a denial's reason reaches the code). Lists
 * carry a preview of the parameters; the dialog reads the approval whole (GET /approvals/{id}) and shows what is
 * decided on, with its size and SHA-256.
 */
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { ApprovalSummary } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { isCut, previewText, sizeText } from "./approval-card";
import { Dialog } from "./dialog";
import { ErrorBox } from "./error-box";
import { ScrollPre } from "./scroll-pre";

export type Verb = "approve" | "deny";

export function DecisionDialog({
  approval,
  verb,
  onClose,
  onDecided,
}: {
  approval: ApprovalSummary | null;
  verb: Verb;
  onClose(): void;
  onDecided(approval: ApprovalSummary): void;
}) {
  const id = approval?.id;
  // Only a cut preview needs the whole approval read; a whole one is on screen already.
  const cut = approval !== null && isCut(approval);
  const whole = useLoad(
    async () =>
      id === undefined || !cut ? null : await unwrap(api.GET("/approvals/{id}", { params: { path: { id } } })),
    [id, cut],
  );
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
          <ScrollPre className="code-block small" label="Parameters">
            {whole.data ? JSON.stringify(whole.data.parameters, null, 2) : previewText(approval)}
          </ScrollPre>
          {cut && whole.loading && <p className="muted">Reading the whole parameters…</p>}
          <ErrorBox error={whole.error} title="Could not read the whole parameters (the start is shown)" />
          <p className="muted">
            {sizeText(approval.parametersBytes)} · SHA-256 <code>{approval.parametersSha256}</code>
          </p>
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
              // A cut preview is not what is decided on: wait for the whole parameters (or their error).
              disabled={decide.busy || (cut && whole.data == null && whole.error == null)}
            >
              {decide.busy ? "Sending…" : verb === "approve" ? "Approve call" : "Deny call"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
