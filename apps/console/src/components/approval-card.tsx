/**
 * One approval: what is asked, by which process and key, and (pending) the buttons that decide it. Lists carry a
 * preview of the parameters (the start of their JSON when they are large); the decision dialog reads them whole.
 */
import type { ApprovalListItem, ApprovalSummary } from "../api/types";
import { Link } from "../router/router";
import { Badge, toneOf } from "./badge";
import { CallerName } from "./caller-name";
import { ScrollPre } from "./scroll-pre";
import { TimeAgo } from "./time-ago";

export function ApprovalCard({
  approval,
  onDecide,
  selected,
  onSelect,
}: {
  /** A list's approval also says when it expires and what its tool is annotated with; a stream's does not. */
  approval: ApprovalSummary & Partial<Pick<ApprovalListItem, "expiresAt" | "toolAnnotations">>;
  onDecide?(verb: "approve" | "deny"): void;
  /** Given with `onSelect`: a checkbox to pick the approval for a decision of many at once. */
  selected?: boolean;
  onSelect?(selected: boolean): void;
}) {
  const cut = isCut(approval);
  const label = `${approval.serviceId}.${approval.toolId}`;
  const pending = approval.state === "pending";
  return (
    <article className="card approval" aria-label={`Approval ${approval.id}: ${label}`}>
      <header className="approval-head">
        {pending && onSelect && (
          <input
            type="checkbox"
            checked={selected ?? false}
            aria-label={`Select approval ${approval.id}: ${label}`}
            onChange={(event) => onSelect(event.target.checked)}
          />
        )}
        <code>{label}</code>
        <Badge tone={toneOf(approval.state)}>{approval.state}</Badge>
        {approval.toolAnnotations?.destructive && <Badge tone="bad">destructive</Badge>}
        <span className="muted">
          <Link to={`/processes/${approval.processId}`}>process {approval.processId}</Link>
          {approval.keyId && (
            <>
              {" "}
              · by <CallerName keyId={approval.keyId} />
            </>
          )}{" "}
          · <TimeAgo at={approval.createdAt} />
          {pending && approval.expiresAt && (
            <>
              {" "}
              · expires <TimeAgo at={approval.expiresAt} />
            </>
          )}
        </span>
      </header>
      {/* Not the policy's usual question: a call that was in flight when its host stopped asks to be sent again. */}
      {approval.question && (
        <p className="approval-question">
          <Badge tone="warn">re-send?</Badge> {approval.question}
        </p>
      )}
      <ScrollPre className="code-block small" label="Parameters">
        {previewText(approval)}
      </ScrollPre>
      {cut && (
        <p className="muted">
          Only the start of the parameters is shown: they are {sizeText(approval.parametersBytes)}
          {onDecide ? "; approving or denying shows them whole first." : "."}
        </p>
      )}
      {approval.state !== "pending" && (
        <p className="muted">
          {approval.state} <TimeAgo at={approval.decidedAt} />
          {/* An expiry has no decider; a decision without a key id was the bootstrap key's. */}
          {approval.state !== "expired" && (
            <>
              {" "}
              by <CallerName keyId={approval.decidedBy} />
            </>
          )}
          {approval.reason && <> — “{approval.reason}”</>}
        </p>
      )}
      {approval.state === "pending" && onDecide && (
        <div className="row">
          <button type="button" className="button primary" onClick={() => onDecide("approve")}>
            Approve
          </button>
          <button type="button" className="button danger" onClick={() => onDecide("deny")}>
            Deny
          </button>
        </div>
      )}
    </article>
  );
}

/** Whether the list's preview is the start of the parameters only (parameters are objects: a string is a cut one). */
export const isCut = (approval: ApprovalSummary) => typeof approval.parameters === "string";

/** The preview as shown: a cut one is the start of the JSON text already; a whole one is pretty-printed. */
export const previewText = (approval: ApprovalSummary) =>
  typeof approval.parameters === "string" ? approval.parameters : JSON.stringify(approval.parameters, null, 2);

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
