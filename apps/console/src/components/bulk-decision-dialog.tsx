/**
 * Approving or denying many pending calls with one reason: one request (`POST /approvals/decisions`), each approval
 * decided exactly as the single route decides it. The dialog says what is decided (how many calls of which tools,
 * how many destructive, how many whose parameters the list shows only the start of) and, afterwards, each one the
 * host could not decide and why (decided meanwhile by someone else, say); the others stay decided.
 */
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { ApprovalListItem, BulkDecision } from "../api/types";
import { useAction } from "../hooks/use-action";
import { isCut } from "./approval-card";
import type { Verb } from "./decision-dialog";
import { Dialog } from "./dialog";
import { ErrorBox } from "./error-box";

export function BulkDecisionDialog({
  approvals,
  verb,
  onClose,
  onDecided,
}: {
  /** Null: closed. */
  approvals: ApprovalListItem[] | null;
  verb: Verb;
  onClose(): void;
  /** Every one decided (the dialog closes); with failures the dialog stays open and lists them. */
  onDecided(result: BulkDecision): void;
}) {
  const [reason, setReason] = useState("");
  const [failures, setFailures] = useState<BulkDecision["results"]>([]);
  const open = approvals !== null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new opening starts empty.
  useEffect(() => {
    setReason("");
    setFailures([]);
  }, [open]);
  const decide = useAction(async () => {
    if (!approvals) return;
    const result = await unwrap(
      api.POST("/approvals/decisions", {
        body: {
          ids: approvals.map((approval) => approval.id),
          decision: verb,
          ...(reason.trim() && { reason: reason.trim() }),
        },
      }),
    );
    const failed = result.results.filter((one) => one.error !== null);
    setFailures(failed);
    onDecided(result);
  });
  const list = approvals ?? [];
  const calls = list.length === 1 ? "1 call" : `${list.length} calls`;
  const byTool = new Map<string, number>();
  for (const approval of list) {
    const name = `${approval.serviceId}.${approval.toolId}`;
    byTool.set(name, (byTool.get(name) ?? 0) + 1);
  }
  const destructive = list.filter((approval) => approval.toolAnnotations?.destructive).length;
  const cut = list.filter(isCut).length;
  const Verb = verb === "approve" ? "Approve" : "Deny";
  return (
    <Dialog open={open} title={`${Verb} ${calls}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void decide.run();
        }}
      >
        <ul className="tool-counts">
          {[...byTool].map(([name, count]) => (
            <li key={name}>
              <code>{name}</code> × {count}
            </li>
          ))}
        </ul>
        {destructive > 0 && (
          <p className="notice">
            {destructive} of them call a tool annotated <strong>destructive</strong>.
          </p>
        )}
        {cut > 0 && (
          <p className="muted">
            {cut} {cut === 1 ? "has" : "have"} parameters too large to show whole in the list; open{" "}
            {cut === 1 ? "it" : "them"} one by one to read them first.
          </p>
        )}
        <label>
          <span>
            Reason{" "}
            <span className="muted">
              (optional, kept with each decision{verb === "deny" ? "; the code sees it" : ""})
            </span>
          </span>
          <textarea value={reason} onChange={(event) => setReason(event.target.value)} maxLength={2000} rows={3} />
        </label>
        <ErrorBox error={decide.error} title="Nothing was decided" />
        {failures.length > 0 && (
          <div className="error-box" role="alert">
            <strong>
              {failures.length} of {list.length} not decided
            </strong>
            <ul>
              {failures.map((one) => (
                <li key={one.id}>
                  Approval {one.id}: {one.error?.message} <code className="error-code">{one.error?.code}</code>
                </li>
              ))}
            </ul>
          </div>
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            {failures.length > 0 ? "Close" : "Cancel"}
          </button>
          {failures.length === 0 && (
            <button
              type="submit"
              className={verb === "approve" ? "button primary" : "button danger"}
              disabled={decide.busy || list.length === 0}
            >
              {decide.busy ? "Sending…" : `${Verb} ${calls}`}
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
